"""A comparison (:class:`mpiwatch.compare.Diff`) as text: ``mpiwatch --diff``'s output."""
from __future__ import annotations

import datetime

TOP = 20   # entries per table; the JSON has all


def seconds(x: float | None) -> str:
    if x is None:
        return "-"
    a = abs(x)
    if a >= 1 or a == 0:
        return f"{x:.3f} s"
    if a >= 1e-3:
        return f"{x * 1e3:.3f} ms"
    return f"{x * 1e6:.1f} us"


def count(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:,.0f}" if x == int(x) else f"{x:,.1f}"


def nbytes(x: float | None) -> str:
    if x is None:
        return "-"
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if abs(x) >= size:
            return f"{x / size:.2f} {unit}"
    return f"{x:.0f} B"


def share(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}%"


FORMAT = {"time": seconds, "calls": count, "bytes": nbytes, "share": share}


def factor(c: dict | None) -> str:
    if c is None:
        return "-"
    if c["delta"] == 0:
        return "="
    f = c["factor"]
    if f is None:
        return "new"
    return f"x{f:.4f}" if abs(f - 1) < 0.01 else f"x{f:.2f}"


def _run(h: dict) -> str:
    when = datetime.datetime.fromtimestamp(h["start"]).strftime("%Y-%m-%d %H:%M") if h.get("start") else "?"
    parts = [f"{h.get('program') or '?'}, {h.get('ranks') or '?'} ranks"]
    if h.get("nodes"):
        parts.append(f"{h['nodes']} node{'s' if h['nodes'] != 1 else ''}")
    parts.append(f"started {when}")
    if h.get("build_id"):
        parts.append(f"build-id {h['build_id'][:12]}")
    if h.get("library"):
        parts.append(h["library"])
    return f"{h['name']}: " + ", ".join(parts)


def _metric(e: dict, m: str) -> str:
    fmt = FORMAT[m]
    a, b = e["a"], e["b"]
    if e["side"] != "both":
        v = (a or b)[m]
        return f"{m} {fmt(v)}"
    c = e["change"][m]
    if c is None:
        return ""
    if m == "share":
        return f"share {fmt(a[m])} -> {fmt(b[m])}"
    return f"{m} {fmt(a[m])} -> {fmt(b[m])} ({factor(c)})"


def _spread(e: dict) -> str:
    def one(v):
        if v is None or v.get("imbalance") is None:
            return "-"
        r = f"{v['imbalance']:.2f}"
        if v.get("slowest_rank") is not None:
            r += f" (slowest rank {v['slowest_rank']}, fastest {v['fastest_rank']})"
        return r
    if e["side"] == "both":
        return f"imbalance {one(e['a'])} -> {one(e['b'])}"
    return f"imbalance {one(e['a'] or e['b'])}"


def _entry_lines(e: dict, per_rank: bool) -> list[str]:
    head = f"  {e['kind']:<8} {e['name']}"
    if e["side"] != "both":
        head += f"  [only in {'A' if e['side'] == 'a only' else 'B'}]"
    if e.get("moved"):
        head += f"  [line {e['moved']['a_line']} -> {e['moved']['b_line']}]"
    counted = e["above_noise"]
    ms = [_metric(e, m) + (" *" if m in counted else "") for m in ("time", "calls", "bytes", "share")]
    lines = [head, "      " + "; ".join(x for x in ms if x)]
    if per_rank:   # the means above; the totals too, as the runs' sizes differ
        ta, tb = (e["a"] or {}).get("total"), (e["b"] or {}).get("total")
        lines.append("      totals: " + "; ".join(
            f"{m} {FORMAT[m](ta[m]) if ta else '-'} -> {FORMAT[m](tb[m]) if tb else '-'}"
            for m in ("time", "calls", "bytes")))
    return lines + ["      " + _spread(e)]


def render(d) -> str:
    out = [f"A {_run(d.a)}", f"B {_run(d.b)}"]
    if d.basis == "totals":
        out.append(f"Values: totals over the {d.a.get('ranks')} ranks of each run.")
    else:
        out.append(f"The runs have different rank counts ({d.a.get('ranks')} and {d.b.get('ranks')}): "
                   "values are per-rank means, compared; each entry's totals follow them.")
    if d.a.get("build_id") and d.b.get("build_id") and d.a["build_id"] != d.b["build_id"]:
        out.append("The programs' build-ids differ: B is another build.")
    j = d.job
    each = "" if d.basis == "totals" else " per rank"
    out.append(f"MPI time{each} {seconds(j['mpi_time']['a'])} -> {seconds(j['mpi_time']['b'])} "
               f"({factor(j['mpi_time']['change'])}); application time{each} {seconds(j['app_time']['a'])} -> "
               f"{seconds(j['app_time']['b'])}; MPI share {share(j['mpi_share']['a'])} -> "
               f"{share(j['mpi_share']['b'])}")
    out.append("")
    if d.changes:
        out.append(f"Largest changes ({len(d.changes)}; * marks a change above noise: any change of "
                   f"calls or bytes, time by more than {100 * d.time_noise:.0f}% and "
                   f"{seconds(d._min_time)}):")
        for e in d.changes[:TOP]:
            out += _entry_lines(e, d.basis != "totals")
        if len(d.changes) > TOP:
            out.append(f"  ... {len(d.changes) - TOP} more (--json lists all)")
    else:
        out.append(f"No change above noise (calls and bytes equal; no time change above "
                   f"{100 * d.time_noise:.0f}% and {seconds(d._min_time)}).")
    for title, entries in (("Functions", d.functions), ("Call sites", d.sites), ("Regions", d.regions)):
        if not entries:
            continue
        only_a = sum(e["side"] == "a only" for e in entries)
        only_b = sum(e["side"] == "b only" for e in entries)
        moved = sum(1 for e in entries if e.get("moved"))
        out.append("")
        note = f"{len(entries) - only_a - only_b} in both, {only_a} only in A, {only_b} only in B"
        if title == "Call sites":
            note += f", {moved} matched at a moved line"
        out.append(f"{title} ({note}):")
        for e in entries[:TOP]:
            out += _entry_lines(e, d.basis != "totals")
        if len(entries) > TOP:
            out.append(f"  ... {len(entries) - TOP} more (--json lists all)")
    return "\n".join(out) + "\n"
