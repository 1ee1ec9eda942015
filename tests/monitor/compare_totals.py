#!/usr/bin/env python3
"""Check the mpiwatch client's --json output against the job's JSON report.

    compare_totals.py CLIENT_JSONL REPORT_JSON [--ranks N] [--late]

The client's last line is its totals; they must equal the report's functions
(calls and bytes exactly, time to rounding), with every rank finished and
none lost. Every rank said hello and goodbye. With --late (the client came
after the job had started) some events must be counted as unwatched.
Prints what differs; exit status 1 if anything does.
"""
import argparse
import json
import sys


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("client")
    ap.add_argument("report")
    ap.add_argument("--ranks", type=int)
    ap.add_argument("--late", action="store_true")
    args = ap.parse_args()
    lines = [json.loads(l) for l in open(args.client, encoding="utf-8") if l.strip()]
    report = json.load(open(args.report, encoding="utf-8"))
    bad = []
    if not lines or lines[-1].get("type") != "totals":
        print("the client's output does not end with a totals line")
        return 1
    totals = lines[-1]
    n = args.ranks or report["ranks"]
    hellos = {l["rank"] for l in lines if l.get("type") == "hello"}
    goodbyes = {l["rank"] for l in lines if l.get("type") == "goodbye"}
    if hellos != set(range(n)) or goodbyes != set(range(n)):
        bad.append(f"hello from {len(hellos)} ranks, goodbye from {len(goodbyes)}, of {n}")
    if totals.get("ranks") != n or totals.get("finished") != n or totals.get("lost"):
        bad.append(f"totals: ranks {totals.get('ranks')}, finished {totals.get('finished')}, "
                   f"lost {totals.get('lost')}; expected {n} finished")
    mine, theirs = totals["functions"], report["functions"]
    if set(mine) != set(theirs):
        bad.append(f"functions: client only {sorted(set(mine) - set(theirs))}, "
                   f"report only {sorted(set(theirs) - set(mine))}")
    for name in sorted(set(mine) & set(theirs)):
        for key in ("calls", "bytes_sent", "bytes_recv"):
            if mine[name][key] != theirs[name][key]:
                bad.append(f"{name}.{key}: {mine[name][key]} (client), {theirs[name][key]} (report)")
        t, r = mine[name]["time"], theirs[name]["time"]
        if abs(t - r) > 1e-6 * abs(r) + n * 2e-9:
            bad.append(f"{name}.time: {t!r} (client), {r!r} (report)")
    if args.late and totals["events"]["unwatched"] == 0:
        bad.append("the client came late, yet no event is counted as unwatched")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
