#!/usr/bin/python3
"""The merged report of a job's partial profiles (mpiwatch --merge), checked.

Usage::

    merged_check.py REPORT.json --world N [--ranks all|R,R,...] [--reason TEXT]
                    [--rank-reason R TEXT]... [--calls FUNCTION LOW HIGH]...

REPORT.json must be the report of the job's N ranks merged from the ranks
listed (all: every rank), none missing but the others, each rank's data
taken for a reason containing TEXT (rank R's for one containing its own
TEXT), and FUNCTION's calls over the ranks
between LOW and HIGH. Prints one line per problem; status 1 if any.
"""
import argparse
import json
import sys


def problems(doc: dict, args: argparse.Namespace) -> list[str]:
    found = []
    merged = doc.get("merged")
    if not isinstance(merged, dict):
        return ["no 'merged' object: not a merged report"]
    if merged.get("world_size") != args.world:
        found.append(f"merged.world_size {merged.get('world_size')}, expected {args.world}")
    want = list(range(args.world)) if args.ranks == "all" else \
        [int(r) for r in args.ranks.split(",") if r != ""]
    present = [r.get("rank") for r in merged.get("ranks", [])]
    if present != want:
        found.append(f"ranks {present} merged, expected {want}")
    missing = sorted(set(range(args.world)) - set(want))
    if merged.get("missing") != missing:
        found.append(f"missing {merged.get('missing')}, expected {missing}")
    for r in merged.get("ranks", []):
        if args.reason and args.reason not in str(r.get("reason")):
            found.append(f"rank {r.get('rank')}: reason {r.get('reason')!r}, expected "
                         f"{args.reason!r} in it")
    reasons = {r.get("rank"): str(r.get("reason")) for r in merged.get("ranks", [])}
    for rank, text in args.rank_reason:
        if text not in reasons.get(int(rank), ""):
            found.append(f"rank {rank}: reason {reasons.get(int(rank))!r}, expected {text!r} in it")
    for name, low, high in args.calls:
        calls = doc.get("functions", {}).get(name, {}).get("calls", 0)
        if not int(low) <= calls <= int(high):
            found.append(f"{name}: {calls} calls, expected {low} to {high}")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("report")
    parser.add_argument("--world", type=int, required=True)
    parser.add_argument("--ranks", default="all")
    parser.add_argument("--reason", default="")
    parser.add_argument("--rank-reason", nargs=2, action="append", default=[],
                        metavar=("RANK", "TEXT"))
    parser.add_argument("--calls", nargs=3, action="append", default=[],
                        metavar=("FUNCTION", "LOW", "HIGH"))
    args = parser.parse_args()
    try:
        doc = json.load(open(args.report, encoding="utf-8"))
    except (OSError, ValueError) as err:
        print(f"{args.report}: {err}")
        return 1
    found = problems(doc, args)
    for p in found:
        print(f"{args.report}: {p}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
