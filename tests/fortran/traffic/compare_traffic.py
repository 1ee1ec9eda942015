#!/usr/bin/python3
"""Compare what two mpiwatch JSON reports say a program moved.

    compare_traffic.py REFERENCE.json CANDIDATE.json

A Fortran test program and its C twin make the same calls, so their reports
must agree exactly on every function's calls, bytes sent and received and
message-size histogram, on every rank's row of the rank x function table,
on the rank pairs, and on what the call sites of each function add up to
(calls, bytes, size ranges: the sites themselves differ, as compilers lay out
code as they like). Every call site of either report must be in the program
itself, never in mpiwatch's or the MPI's libraries (a Fortran call counted
from inside its binding or shim). Times are not compared.
Prints each difference; exits 1 if there is one, 2 if a report is unreadable.
"""

import json
import os
import sys

FUNCTION_KEYS = ("calls", "bytes_sent", "bytes_recv", "sizes")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as err:
        print(f"compare_traffic.py: cannot read {path}: {err}", file=sys.stderr)
        sys.exit(2)


def functions(report):
    return {name: {k: entry.get(k) for k in FUNCTION_KEYS}
            for name, entry in report.get("functions", {}).items()}


def rank_rows(report):
    table = report.get("rank_functions") or {}
    names = table.get("functions", [])
    rows = {}
    for row in table.get("ranks", []):
        cells = {}
        for key, values in row.items():
            if key in ("rank", "time") or not isinstance(values, list):
                continue
            cells[key] = dict(zip(names, values))
        rows[row.get("rank")] = cells
    return rows


def sites(report):
    """function -> [calls, bytes sent, bytes received, size ranges] over its sites."""
    found = {}
    for site in (report.get("callsites") or {}).get("sites", []):
        total = found.setdefault(site.get("function"), [0, 0, 0, set()])
        total[0] += site.get("calls", 0)
        total[1] += site.get("bytes_sent", 0)
        total[2] += site.get("bytes_recv", 0)
        total[3].update(tuple(r) for r in site.get("size_ranges", []))
    return {name: [c, s, r, sorted(ranges)] for name, (c, s, r, ranges) in found.items()}


def foreign_sites(report, label):
    """The call sites whose module is one of mpiwatch's or the MPI's libraries."""
    found = []
    for site in (report.get("callsites") or {}).get("sites", []):
        module = os.path.basename(str(site.get("module", "")))
        if module.startswith(("libmpiwatch", "libmpi", "libopen-")):
            found.append(f"{label}: {site.get('function')}'s call site is in {module} "
                         f"({site.get('caller')}, {site.get('file')}:{site.get('line')}), "
                         "not in the program")
    return found


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    ref, got = load(argv[1]), load(argv[2])
    problems = []
    ref_fns, got_fns = functions(ref), functions(got)
    for name in sorted(set(ref_fns) | set(got_fns)):
        if name not in got_fns:
            problems.append(f"{name}: missing (reference: {ref_fns[name]})")
        elif name not in ref_fns:
            problems.append(f"{name}: not in the reference ({got_fns[name]})")
        else:
            for key in FUNCTION_KEYS:
                if ref_fns[name][key] != got_fns[name][key]:
                    problems.append(f"{name}.{key}: {got_fns[name][key]} "
                                    f"(reference {ref_fns[name][key]})")
    if ref.get("pairs") != got.get("pairs"):
        problems.append(f"pairs: {got.get('pairs')} (reference {ref.get('pairs')})")
    ref_rows, got_rows = rank_rows(ref), rank_rows(got)
    for rank in sorted(set(ref_rows) | set(got_rows), key=str):
        if ref_rows.get(rank) != got_rows.get(rank):
            problems.append(f"rank {rank}'s row: {got_rows.get(rank)} "
                            f"(reference {ref_rows.get(rank)})")
    ref_sites, got_sites = sites(ref), sites(got)
    for name in sorted(set(ref_sites) | set(got_sites)):
        if ref_sites.get(name) != got_sites.get(name):
            problems.append(f"{name}'s call sites add up to {got_sites.get(name)} "
                            f"(reference {ref_sites.get(name)})")
    problems += foreign_sites(ref, "reference") + foreign_sites(got, "candidate")
    for problem in problems:
        print(problem)
    if not problems:
        print(f"same traffic: {len(ref_fns)} functions, {len(ref.get('pairs') or [])} pairs, "
              f"call sites of {len(ref_sites)} functions")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
