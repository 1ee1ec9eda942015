"""Two runs compared: per function, per call site and per region.

:func:`diff` is the one comparison; ``mpiwatch --diff A.json B.json`` prints
it (:mod:`mpiwatch.cli`). For every entry it gives both sides' MPI time,
calls, bytes (sent plus received) and share of the run (the entry's time over
the sum of the ranks' application times), the change of each, the
imbalance (the slowest rank's time over the mean rank's) and the standing-out
ranks (the slowest and the fastest). Entries on one side only are marked so.

Call sites are matched by what names them in the code, (function, file,
line, enclosing function), never by address or module offset: first exactly,
then, among the sites left of the same (function, file, enclosing function),
in line order, so a site whose line moved because lines were inserted above
it is still the same site (``moved`` says from which line to which).

When the rank counts differ, values are per-rank means (a total divided by
the run's ranks) and the totals are kept beside them; ``basis`` says which.

Sites with the same name but several return addresses (a loop the
compiler unrolled, a function inlined twice) are one site here: their calls,
time and bytes are summed, and ``addresses`` says how many there were; the
imbalance and ranks are those of the busiest of them.

Calls and bytes are counts: any change is a change. Time is measured, so a
time change counts only above the noise: more than ``time_noise`` (25%) of
the larger side, more than ``floor`` (5%) of the larger run's MPI time, and
more than ``min_seconds`` (5 ms) per rank, about a scheduler's time slice,
which a rank waiting for a descheduled peer can lose in any call. The time
of MPI_Init and MPI_Finalize (not MPI time, see the report's ``mpi_time``)
never counts. Entries are sorted with what the program did first: entries
on one side only, then those whose calls or bytes changed (exact counts, so
certain), then those whose time alone changed (a measurement); within each,
by the size of their largest change that counts (its factor, on a log
scale), then by the time change.
"""
from __future__ import annotations

import json
import math
from typing import Any

from .report import HEADER_KEYS, Report, as_report

METRICS = ("time", "calls", "bytes", "share")
TIME_NOISE = 0.25
FLOOR = 0.05
MIN_SECONDS = 0.005


def _bytes(x: dict) -> int | None:
    if "bytes_sent" not in x and "bytes_recv" not in x:
        return None
    return (x.get("bytes_sent") or 0) + (x.get("bytes_recv") or 0)


def _spread(rt: dict | None, ranks: int, total: float) -> dict:
    """Imbalance (slowest over mean) and the standing-out ranks of an entry."""
    if not rt:
        return {"imbalance": None, "slowest_rank": None, "fastest_rank": None}
    mean = rt.get("mean") or (total / ranks if ranks else 0)
    return {"imbalance": round(rt["max"] / mean, 4) if mean else None,
            "slowest_rank": rt.get("max_rank"), "fastest_rank": rt.get("min_rank"),
            "cv": rt.get("cv")}


class _Run:
    """One side: its entries by key, its totals, and the divisor of its values."""

    def __init__(self, r: Report, per_rank: bool):
        d = r.doc
        self.report = r
        self.ranks = d.get("ranks") or 1
        self.startup = {n for n, f in d.get("functions", {}).items() if f.get("mpi_time") is False}
        self.div = self.ranks if per_rank else 1
        times = d.get("rank_times", [])
        self.app = sum(t.get("app", 0) or 0 for t in times)
        self.mpi = sum(t.get("mpi", 0) or 0 for t in times)
        self.functions = {}
        for name, f in d.get("functions", {}).items():
            self.functions[name] = self.values(f.get("time", 0), f.get("calls"), _bytes(f),
                                               _spread(f.get("rank_time"), self.ranks, f.get("time", 0)))
            self.functions[name]["startup"] = f.get("mpi_time") is False
        self.sites = []
        named: dict[tuple, list[dict]] = {}
        for s in (d.get("callsites") or {}).get("sites", []):
            named.setdefault(tuple(s.get(k) for k in ("function", "file", "line", "caller")), []).append(s)
        for key, same in named.items():
            busiest = max(same, key=lambda s: s.get("time", 0))
            total = {k: sum(s.get(k) or 0 for s in same) for k in ("time", "calls")}
            nbytes = None if all(_bytes(s) is None for s in same) else sum(_bytes(s) or 0 for s in same)
            v = self.values(total["time"], total["calls"], nbytes,
                            _spread(busiest.get("rank_time"), self.ranks, busiest.get("time", 0)))
            v["site"] = dict(zip(("function", "file", "line", "caller"), key))
            v["addresses"] = len(same)
            v["startup"] = key[0] in self.startup
            self.sites.append(v)
        self.regions = {}
        for name, g in (d.get("regions") or {}).items():
            mpi = (g.get("mpi") or {})
            ranks = g.get("ranks") or 1
            mean = (mpi.get("sum") or 0) / ranks
            self.regions[name] = self.values(mpi.get("sum", 0), g.get("calls"), None, {
                "imbalance": round(mpi["max"] / mean, 4) if mean and "max" in mpi else None,
                "slowest_rank": None, "fastest_rank": None})

    def values(self, time: float, calls: int | None, nbytes: int | None, spread: dict) -> dict:
        v = {"time": (time or 0) / self.div,
             "calls": None if calls is None else calls / self.div,
             "bytes": None if nbytes is None else nbytes / self.div,
             "share": (time or 0) / self.app if self.app else None,
             "total": {"time": time or 0, "calls": calls, "bytes": nbytes}}
        v.update(spread)
        return v


def _change(a: float | None, b: float | None) -> dict | None:
    if a is None or b is None:
        return None
    return {"delta": b - a, "factor": (b / a) if a else (None if b else 1.0)}


def _site_name(k: dict) -> str:
    where = f"{k['file']}:{k['line']}" if k.get("file") else "?"
    return f"{k['function']} at {where} ({k.get('caller') or '?'})"


def match_sites(a: list[dict], b: list[dict]) -> list[tuple[dict | None, dict | None, bool]]:
    """Pairs (site of A, site of B, moved): exact (function, file, line, caller)
    first, then the rest of each (function, file, caller) in line order; a
    site without a partner is paired with None."""
    def key(s):
        k = s["site"]
        return (k["function"], k["file"], k["line"], k["caller"])
    pairs = []
    b_left = {}
    for s in b:
        b_left.setdefault(key(s), []).append(s)
    a_left = []
    for s in a:
        same = b_left.get(key(s))
        if same:
            pairs.append((s, same.pop(0), False))
        else:
            a_left.append(s)
    groups: dict[tuple, tuple[list, list]] = {}
    for s in a_left:
        k = s["site"]
        groups.setdefault((k["function"], k["file"], k["caller"]), ([], []))[0].append(s)
    for rest in b_left.values():
        for s in rest:
            k = s["site"]
            groups.setdefault((k["function"], k["file"], k["caller"]), ([], []))[1].append(s)
    for k, (sa, sb) in groups.items():
        sa.sort(key=lambda s: s["site"]["line"] or 0)
        sb.sort(key=lambda s: s["site"]["line"] or 0)
        # Without a file name a site has no line to move; it matches only exactly.
        n = min(len(sa), len(sb)) if k[1] else 0
        pairs += [(sa[i], sb[i], True) for i in range(n)]
        pairs += [(s, None, False) for s in sa[n:]] + [(None, s, False) for s in sb[n:]]
    return pairs


class Diff:
    """The comparison of run ``a`` (before) with run ``b`` (after).

    Attributes:
        a, b: the runs' headers (program, label, ranks, nodes, build-id, ...).
        basis: ``"totals"`` (same rank count) or ``"per-rank means"``.
        job: the whole run's MPI time, application time and MPI share, each side.
        functions, sites, regions: the entries, each a dict with ``kind``,
            ``name``, ``side`` (``both``, ``a only``, ``b only``), ``a`` and
            ``b`` (time, calls, bytes, share, imbalance, slowest_rank,
            fastest_rank, total), ``change`` (per metric ``delta`` and
            ``factor``), ``above_noise`` (the metrics whose change counts),
            ``score`` (the largest such change, log of its factor) and
            ``count_score`` (the same, of calls and bytes only); sites also
            have ``site``, ``moved`` and, per side, ``addresses``.
        changes: every entry with a change that counts, largest first.
    """

    def __init__(self, a: Any, b: Any, time_noise: float = TIME_NOISE, floor: float = FLOOR,
                 min_seconds: float = MIN_SECONDS):
        ra, rb = as_report(a), as_report(b)
        per_rank = (ra.doc.get("ranks") or 1) != (rb.doc.get("ranks") or 1)
        self.basis = "per-rank means" if per_rank else "totals"
        self.time_noise, self.floor = time_noise, floor
        A, B = _Run(ra, per_rank), _Run(rb, per_rank)
        self.a = dict(ra.header, name=ra.name)
        self.b = dict(rb.header, name=rb.name)
        # Per rank, or over the ranks as the values are.
        self._min_time = max(floor * max(A.mpi / A.div, B.mpi / B.div),
                             min_seconds * (1 if per_rank else max(A.ranks, B.ranks)))
        self.job = {k: {"a": x / A.div, "b": y / B.div, "change": _change(x / A.div, y / B.div)}
                    for k, x, y in (("mpi_time", A.mpi, B.mpi), ("app_time", A.app, B.app))}
        self.job["mpi_share"] = {"a": A.mpi / A.app if A.app else None,
                                 "b": B.mpi / B.app if B.app else None}
        self.job["mpi_share"]["change"] = _change(self.job["mpi_share"]["a"], self.job["mpi_share"]["b"])
        self.functions = self._pairs("function", A.functions, B.functions)
        self.regions = self._pairs("region", A.regions, B.regions)
        self.sites = []
        for sa, sb, moved in match_sites(A.sites, B.sites):
            e = self._entry("site", _site_name((sb or sa)["site"]), sa, sb)
            e["site"] = (sb or sa)["site"]
            e["moved"] = {"a_line": sa["site"]["line"], "b_line": sb["site"]["line"]} \
                if moved and sa["site"]["line"] != sb["site"]["line"] else None
            self.sites.append(e)
        self.sites.sort(key=self._order)
        self.changes = sorted((e for e in self.functions + self.sites + self.regions
                               if e["above_noise"]), key=self._order)

    @staticmethod
    def _order(e: dict):
        t = e["change"].get("time") if e["change"] else None
        counted = set(e["above_noise"])
        certain = 0 if "present" in counted else 1 if counted & {"calls", "bytes"} else 2
        score = e["count_score"] if certain == 1 else e["score"]
        return (certain, -score, -abs(t["delta"]) if t else 0, e["kind"], e["name"])

    def _pairs(self, kind: str, a: dict, b: dict) -> list[dict]:
        out = [self._entry(kind, k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b))]
        return sorted(out, key=self._order)

    def _entry(self, kind: str, name: str, a: dict | None, b: dict | None) -> dict:
        side = "both" if a and b else ("a only" if a else "b only")
        e = {"kind": kind, "name": name, "side": side, "a": a and {k: v for k, v in a.items() if k != "site"},
             "b": b and {k: v for k, v in b.items() if k != "site"}, "change": {}, "above_noise": [],
             "score": 0.0, "count_score": 0.0}
        if side != "both":
            e["above_noise"] = ["present"]
            e["score"] = math.inf
            return e
        for m in METRICS:
            c = _change(a[m], b[m])
            e["change"][m] = c
            if c is None or c["delta"] == 0 or m == "share":
                continue
            if m == "time":
                if a.get("startup"):
                    continue
                big = max(a[m], b[m])
                if abs(c["delta"]) <= self.time_noise * big or abs(c["delta"]) <= self._min_time:
                    continue
            e["above_noise"].append(m)
            f = c["factor"]
            size = abs(math.log(f)) if f else math.inf
            e["score"] = max(e["score"], size)
            if m != "time":
                e["count_score"] = max(e["count_score"], size)
        return e

    def as_dict(self) -> dict:
        """The comparison as plain JSON-able data (what ``--diff --json`` prints)."""
        def clean(x):
            if isinstance(x, float) and not math.isfinite(x):
                return None
            if isinstance(x, dict):
                return {k: clean(v) for k, v in x.items()}
            if isinstance(x, list):
                return [clean(v) for v in x]
            return x
        return clean({"a": self.a, "b": self.b, "basis": self.basis,
                      "noise": {"time_relative": self.time_noise, "time_floor_seconds": self._min_time},
                      "job": self.job, "changes": [self._ref(e) for e in self.changes],
                      "functions": self.functions, "sites": self.sites, "regions": self.regions})

    @staticmethod
    def _ref(e: dict) -> dict:
        return {"kind": e["kind"], "name": e["name"], "side": e["side"], "metrics": e["above_noise"],
                "factors": {m: e["change"][m]["factor"] for m in e["above_noise"] if m in e["change"]}}

    def json(self) -> str:
        """as_dict() as JSON text."""
        return json.dumps(self.as_dict(), indent=1)

    def text(self) -> str:
        """The comparison as text (what ``mpiwatch --diff`` prints)."""
        from .diff_text import render
        return render(self)


def diff(a: Any, b: Any, time_noise: float = TIME_NOISE, floor: float = FLOOR,
         min_seconds: float = MIN_SECONDS) -> Diff:
    """Compare run ``a`` (before) with run ``b`` (after).

    ``a`` and ``b`` are paths of JSON reports, :class:`~mpiwatch.Report`
    objects or report dicts. ``time_noise`` (a fraction of the larger side),
    ``floor`` (a fraction of the larger run's MPI time) and ``min_seconds``
    (per rank) are the noise below which a time change does not count.
    Returns a :class:`Diff`.
    """
    return Diff(a, b, time_noise, floor, min_seconds)


__all__ = ["Diff", "diff", "match_sites", "HEADER_KEYS"]
