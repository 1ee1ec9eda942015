#!/usr/bin/env python3
"""Checks `mpiwatch --trace DIR --analyze --json` output (docs/wait-states.md)
for tests/trace/check-wait-states.sh.

  wait_check.py cause JSON PATTERN RANK FILE LINE PREV SLEPT WAITED WAITERS
      the largest cause is RANK arriving late at FILE:LINE after FILE:PREV,
      of PATTERN; its waiting is within 10% of WAITED, the waiting the
      program measured on its own clock (tests/trace/delays.c says how);
      SLEPT (the delaying rank's measured sleep, all iterations) x WAITERS
      (the ranks that wait) is printed beside it
  wait_check.py share JSON MAX
      the waiting is less than MAX percent of the MPI time
  wait_check.py damaged CLIENT N FILE...
      N copies of the run's files, each with one file damaged (bytes
      changed, cut, a run repeated), analysed (--analyze --json): exit 0 or
      1, never a crash, and JSON that parses when the exit is 0

Prints the figures on success (the last line) or what differs (status 1).
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def cause(path, pattern, rank, file, line, prev, slept, waited, waiters):
    a = load(path)
    if not a["causes"]:
        return f"no cause at all; waiting {a['waiting']:.6f} s"
    c = a["causes"][0]
    site, after = f"{file}:{line}", f"{file}:{prev}"
    got_after = c["after"]["site"] if c["after"] else "(none)"
    if (c["pattern"], c["rank"], c["site"], got_after) != (pattern, int(rank), site, after):
        return (f"largest cause: {c['pattern']} rank {c['rank']} at {c['site']} after "
                f"{got_after}; expected {pattern} rank {rank} at {site} after {after}")
    measured, by_sleep = float(waited), float(slept) * int(waiters)
    figures = (f"waiting {c['waiting']:.6f} s; the program measured {measured:.6f} s "
               f"({100 * (c['waiting'] / measured - 1):+.1f}%); slept {float(slept):.6f} s x "
               f"{waiters} = {by_sleep:.6f} s ({100 * (c['waiting'] / by_sleep - 1):+.1f}%)")
    if abs(c["waiting"] - measured) > 0.1 * measured:
        return f"{pattern}: not within 10%: {figures}"
    print(f"{pattern} rank {rank} at {site} after {after}: {figures}")
    return None


def share(path, limit):
    a = load(path)
    if a["waiting_share"] >= float(limit):
        return (f"waiting {a['waiting']:.6f} s is {a['waiting_share']:.1f}% of the MPI time "
                f"{a['mpi_time']:.6f} s, not under {limit}%")
    print(f"waiting {a['waiting']:.6f} s of MPI time {a['mpi_time']:.6f} s: "
          f"{a['waiting_share']:.1f}%")
    return None


def damaged(client, count, *files):
    rng = random.Random(30)
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(int(count)):
            for f in files:
                shutil.copy(f, tmp)
            victim = os.path.join(tmp, os.path.basename(rng.choice(files)))
            bad = bytearray(open(victim, "rb").read())
            how = i % 3
            if how == 0:  # bytes changed, in the header or anywhere
                for _ in range(rng.randint(1, 8)):
                    at = rng.randrange(min(len(bad), 64) if i % 2 else len(bad))
                    bad[at] = rng.randrange(256)
            elif how == 1:  # cut anywhere
                del bad[rng.randrange(len(bad)):]
            else:  # a run of bytes repeated
                at = rng.randrange(len(bad))
                bad[at:at] = bad[at:at + rng.randint(1, 64)] * rng.randint(1, 4)
            open(victim, "wb").write(bad)
            run = subprocess.run([client, "--quiet", "--trace", tmp, "--analyze", "--json"],
                                 capture_output=True, timeout=60, check=False)
            if run.returncode not in (0, 1):
                problems.append(f"copy {i}: exit {run.returncode}: {run.stderr[-300:]!r}")
            elif run.returncode == 0:
                try:
                    json.loads(run.stdout)
                except ValueError as err:
                    problems.append(f"copy {i}: the JSON does not parse: {err}")
    if problems:
        return "; ".join(problems[:5])
    print(f"{count} runs with a damaged file analysed without a crash")
    return None


def main(argv):
    checks = {"cause": (cause, 9), "share": (share, 2), "damaged": (damaged, None)}
    if (len(argv) < 2 or argv[1] not in checks or
            (checks[argv[1]][1] is not None and len(argv) - 2 != checks[argv[1]][1]) or
            (checks[argv[1]][1] is None and len(argv) < 5)):
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
