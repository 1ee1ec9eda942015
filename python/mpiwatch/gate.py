"""Thresholds on a comparison, for CI: ``mpiwatch --diff A B --fail-if EXPR``.

The grammar (docs/python.md, "Thresholds", is its description for users)::

    EXPR   := TARGET OP CHANGE
    TARGET := mpi_time | app_time | mpi_share          the whole run
            | KIND "_" METRIC                          any entry of that kind
            | KIND ":" NAME "." METRIC                 one entry
    KIND   := function | site | region
    METRIC := time | calls | bytes | share
    OP     := ">" | "<"
    CHANGE := [+|-] NUMBER UNIT
    UNIT   := "%"  relative change, 100 (B - A) / A
            | "x"  factor, B / A
            | s | ms | us | ns          for time: B - A
            | B | KB | MB | GB | KiB | MiB | GiB   for bytes: B - A
            | ""   for calls: B - A
            | pp   for shares: B - A in percentage points

A site's NAME is ``FILE:LINE`` (as the report writes the file; the line on
either side). ``>`` is crossed when the change is greater than CHANGE,
``<`` when it is less: ``mpi_time>+10%`` fails a run whose MPI time grew by
more than a tenth, ``function:MPI_Allreduce.calls<-50%`` one whose
allreduces halved. An entry on one side only counts as 0 on the other (so
it is an infinite relative change). Values are on the comparison's basis
(per-rank means when the rank counts differ).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .diff_text import FORMAT

KINDS = ("function", "site", "region")
METRICS = ("time", "calls", "bytes", "share")
JOB = {"mpi_time": "time", "app_time": "time", "mpi_share": "share"}
SCALE = {
    "time": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9},
    "bytes": {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024, "MiB": 1 << 20, "GiB": 1 << 30},
    "calls": {"": 1},
    "share": {"pp": 0.01},
}
_EXPR = re.compile(r"^(?P<target>[^<>]+?)\s*(?P<op>[<>])\s*(?P<num>[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)"
                   r"\s*(?P<unit>[A-Za-z%]*)$")


class GateError(ValueError):
    """A threshold expression that does not parse; the message names it and why."""


@dataclass
class Threshold:
    """One parsed ``--fail-if`` expression."""
    text: str
    kind: str | None      # None for the whole run
    name: str | None      # None: any entry of the kind
    metric: str           # time, calls, bytes, share (or mpi_time, ...)
    op: str
    value: float
    unit: str             # "%", "x", or "abs"

    def change(self, a: float | None, b: float | None) -> float:
        a, b = a or 0, b or 0
        if self.unit == "%":
            return 100 * (b - a) / a if a else (0.0 if b == a else math.copysign(math.inf, b - a))
        if self.unit == "x":
            return b / a if a else (1.0 if b == a else math.inf)
        return b - a

    def crossed_by(self, a, b) -> bool:
        c = self.change(a, b)
        return c > self.value if self.op == ">" else c < self.value

    def check(self, d) -> list[str]:
        """What crosses this threshold in the comparison ``d``: one line each.

        Raises :class:`GateError` when it names an entry neither run has (a
        misspelt name must not pass a CI gate unnoticed)."""
        if self.kind is None:
            j = d.job[self.metric]
            if self.crossed_by(j["a"], j["b"]):
                return [f"{self.text}: {self.metric} {self._show(j['a'], j['b'], JOB[self.metric])}"]
            return []
        entries = {"function": d.functions, "site": d.sites, "region": d.regions}[self.kind]
        out = []
        found = False
        for e in entries:
            if self.name is not None and not self._names(e):
                continue
            found = True
            a = e["a"][self.metric] if e["a"] else None
            b = e["b"][self.metric] if e["b"] else None
            if a is None and b is None:
                continue
            if self.crossed_by(a, b):
                out.append(f"{self.text}: {e['kind']} {e['name']}: {self.metric} "
                           f"{self._show(a, b, self.metric)}")
        if self.name is not None and not found:
            raise GateError(f"--fail-if {self.text!r}: no {self.kind} {self.name} in either run")
        return out

    def _names(self, e: dict) -> bool:
        if self.kind != "site":
            return e["name"] == self.name
        file, _, line = self.name.rpartition(":")
        lines = {e["site"]["line"]}
        if e.get("moved"):
            lines |= {e["moved"]["a_line"], e["moved"]["b_line"]}
        return e["site"]["file"] == file and line.isdigit() and int(line) in lines

    def _show(self, a, b, metric: str) -> str:
        fmt = FORMAT[metric]
        c = self.change(a, b)
        how = {"%": f"{c:+.1f}%", "x": f"x{c:.2f}"}.get(self.unit, "")
        if self.unit == "abs":
            how = ("+" if c >= 0 else "-") + fmt(abs(c))
        return f"{fmt(a)} -> {fmt(b)} ({how})"


def parse_threshold(text: str) -> Threshold:
    """Parse a ``--fail-if`` expression; raises :class:`GateError` naming it."""
    m = _EXPR.match(text.strip())
    if not m:
        raise GateError(f"--fail-if {text!r}: not TARGET>CHANGE or TARGET<CHANGE "
                        "(e.g. mpi_time>+10%, site_time>+50ms, function:MPI_Allreduce.time>+20%)")
    target, unit = m["target"].strip(), m["unit"]
    kind = name = None
    if target in JOB:
        metric, family = target, JOB[target]
    elif ":" in target:
        kind, _, rest = target.partition(":")
        name, dot, metric = rest.rpartition(".")
        if kind not in KINDS or not dot or not name:
            raise GateError(f"--fail-if {text!r}: {target!r} is not KIND:NAME.METRIC "
                            f"(KIND one of {', '.join(KINDS)})")
        if kind == "site" and not re.match(r"^.+:\d+$", name):
            raise GateError(f"--fail-if {text!r}: a site is named FILE:LINE, not {name!r}")
        family = metric
    else:
        kind, _, metric = target.partition("_")
        if kind not in KINDS:
            raise GateError(f"--fail-if {text!r}: unknown target {target!r} (mpi_time, app_time, "
                            f"mpi_share, KIND_METRIC or KIND:NAME.METRIC, KIND one of {', '.join(KINDS)})")
        family = metric
    if family not in METRICS:
        raise GateError(f"--fail-if {text!r}: unknown metric {metric!r} (one of {', '.join(METRICS)})")
    value = float(m["num"])
    if unit in ("%", "x"):
        kind_of_unit = unit
    elif unit in SCALE[family]:
        kind_of_unit = "abs"
        value *= SCALE[family][unit]
    else:
        units = ", ".join(repr(u) if u else "none" for u in SCALE[family])
        raise GateError(f"--fail-if {text!r}: unit {unit or 'none'!r} does not fit {family} "
                        f"(use %, x, or {units})")
    return Threshold(text, kind, name, metric, m["op"], value, kind_of_unit)
