"""A report as a Hatchet literal graph (``mpiwatch --report R.json --hatchet OUT.json``).

Hatchet's literal format (``hatchet.GraphFrame.from_literal``, its
LiteralReader) is a list of root nodes; each node is a dict with ``frame``
(a dict with at least ``name`` and ``type``), ``metrics`` (a dict of numbers,
the same keys on every node; those ending in `` (inc)`` are inclusive) and,
optionally, ``children`` (a list of nodes). The tree here:

- the job (type ``job``), whose frame also carries the run's metadata as
  strings and numbers (program, label, ranks, nodes, build-id, command, MPI,
  library, start): ``from_literal`` keeps frame attributes, Thicket reads
  them from there;
  - each region (type ``region``): its MPI time (regions nest in the program
    but the report gives each one's own totals, so they are leaves);
  - each MPI function (type ``function``);
    - each call site of it (type ``callsite``, named ``file:line (caller)``).

Metrics: ``time`` (seconds, summed over the ranks; a function's own time is
what none of its listed sites has), ``time (inc)``, ``calls``,
``bytes_sent`` and ``bytes_recv`` (exclusive, like ``time``).
"""
from __future__ import annotations

from typing import Any

from .report import HEADER_KEYS, as_report

METRIC_KEYS = ("time", "time (inc)", "calls", "bytes_sent", "bytes_recv")


def _node(name: str, kind: str, time: float, inc: float, calls: int, sent: int, recv: int,
          children: list | None = None, **frame: Any) -> dict:
    n = {"frame": dict({"name": name, "type": kind}, **frame),
         "metrics": {"time": time, "time (inc)": inc, "calls": calls, "bytes_sent": sent,
                     "bytes_recv": recv}}
    if children:
        n["children"] = children
    return n


def to_literal(report: Any) -> list[dict]:
    """The report (a path, :class:`~mpiwatch.Report` or dict) as Hatchet's literal list."""
    d = as_report(report).doc
    sites: dict[str, list[dict]] = {}
    for s in (d.get("callsites") or {}).get("sites", []):
        where = f"{s.get('file')}:{s.get('line')}" if s.get("file") else f"{s.get('module')}+{s.get('offset')}"
        sites.setdefault(s["function"], []).append(_node(
            f"{where} ({s.get('caller') or '?'})", "callsite", s.get("time", 0), s.get("time", 0),
            s.get("calls", 0), s.get("bytes_sent", 0), s.get("bytes_recv", 0),
            file=s.get("file") or "", line=s.get("line") or 0, caller=s.get("caller") or ""))
    functions = []
    for name, f in d.get("functions", {}).items():
        kids = sites.get(name, [])
        sub = {k: sum(c["metrics"][k] for c in kids) for k in ("time", "calls", "bytes_sent", "bytes_recv")}
        functions.append(_node(
            name, "function", max(0.0, f.get("time", 0) - sub["time"]), f.get("time", 0),
            max(0, f.get("calls", 0) - sub["calls"]), max(0, f.get("bytes_sent", 0) - sub["bytes_sent"]),
            max(0, f.get("bytes_recv", 0) - sub["bytes_recv"]), kids))
    regions = [_node(name, "region", (g.get("mpi") or {}).get("sum", 0), (g.get("mpi") or {}).get("sum", 0),
                     g.get("calls", 0), 0, 0)
               for name, g in (d.get("regions") or {}).items()]
    inc = sum(n["metrics"]["time (inc)"] for n in functions)
    meta = {k: d[k] for k in HEADER_KEYS if isinstance(d.get(k), (str, int, float)) and k != "program"}
    root = _node(d.get("program") or "job", "job", 0.0, inc, 0, 0, 0,
                 regions + functions, **meta)
    return [root]
