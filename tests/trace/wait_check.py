#!/usr/bin/env python3
"""Checks `mpiwatch --trace DIR --analyze --json` output (docs/wait-states.md)
for tests/trace/check-wait-states.sh.

  wait_check.py cause JSON PATTERN RANK FILE LINE PREV SLEPT WAITERS
      the largest cause is RANK arriving late at FILE:LINE after FILE:PREV,
      of PATTERN; its waiting is within 10% of SLEPT (the delaying rank's
      measured sleep, all iterations) x WAITERS (the ranks that wait)
  wait_check.py share JSON MAX
      the waiting is less than MAX percent of the MPI time

Prints the figures on success (the last line) or what differs (status 1).
"""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def cause(path, pattern, rank, file, line, prev, slept, waiters):
    a = load(path)
    if not a["causes"]:
        return f"no cause at all; waiting {a['waiting']:.6f} s"
    c = a["causes"][0]
    site, after = f"{file}:{line}", f"{file}:{prev}"
    got_after = c["after"]["site"] if c["after"] else "(none)"
    if (c["pattern"], c["rank"], c["site"], got_after) != (pattern, int(rank), site, after):
        return (f"largest cause: {c['pattern']} rank {c['rank']} at {c['site']} after "
                f"{got_after}; expected {pattern} rank {rank} at {site} after {after}")
    expected = float(slept) * int(waiters)
    if abs(c["waiting"] - expected) > 0.1 * expected:
        return (f"{pattern}: waiting {c['waiting']:.6f} s, expected {expected:.6f} s "
                f"(slept {float(slept):.6f} s x {waiters} ranks) within 10%")
    print(f"{pattern} rank {rank} at {site} after {after}: waiting {c['waiting']:.6f} s, "
          f"expected {expected:.6f} s ({100 * (c['waiting'] / expected - 1):+.1f}%), "
          f"{a['waiting_share']:.1f}% of MPI time")
    return None


def share(path, limit):
    a = load(path)
    if a["waiting_share"] >= float(limit):
        return (f"waiting {a['waiting']:.6f} s is {a['waiting_share']:.1f}% of the MPI time "
                f"{a['mpi_time']:.6f} s, not under {limit}%")
    print(f"waiting {a['waiting']:.6f} s of MPI time {a['mpi_time']:.6f} s: "
          f"{a['waiting_share']:.1f}%")
    return None


def main(argv):
    checks = {"cause": (cause, 8), "share": (share, 2)}
    if len(argv) < 2 or argv[1] not in checks or len(argv) - 2 != checks[argv[1]][1]:
        print(__doc__)
        return 2
    try:
        problem = checks[argv[1]][0](*argv[2:])
    except (OSError, ValueError, KeyError, TypeError, IndexError) as err:
        problem = f"cannot read {argv[2]}: {err!r}"
    if problem:
        print(problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
