"""Instructions per iteration of bench/overhead's loops, from one callgrind run.

    callgrind_costs.py PLAN OUT

PLAN is the program's stdout in its all-loops mode (bench/overhead.c
--callgrind-all, bench/overhead_f.f90 --callgrind-all): one line
"run=K loop=NAME iterations=n" per run, each loop run three times (warm-up,
N, 2N). OUT is callgrind's --callgrind-out-file; run K's counts are in OUT.K
(--dump-after=bench_run_loop). For each loop this prints

    LOOP FIGURE
    LOOP:CALL FIGURE      (one per bench_call_CALL function the loop went through)

where FIGURE is (I(2N) - I(N)) / N: the run's total, or the inclusive count of
bench_call_CALL (one MPI function, wrapper included), so that what happens once
per run cancels. A missing dump or an unreadable plan is an error (status 1).
"""

import re
import sys

CALL_PREFIX = "bench_call_"


def dump_costs(path, names):
    """The total, and the inclusive count of each bench_call_* function, of one dump.

    names maps compressed function ids to names; callgrind gives a name once,
    where its id first appears, so the map is carried from dump to dump."""
    total = None
    inclusive = {}
    current = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"(c?)fn=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    names[m.group(2)] = m.group(3)
                if not m.group(1):
                    current = names.get(m.group(2), "")
                continue
            if line.startswith(("totals:", "summary:")) and total is None:
                total = int(line.split()[1])
                continue
            if line[:1].isdigit() or line[:1] in "+-*":
                # A cost line: the function's own, or (after a calls= line)
                # what one of its calls costs, callees included.
                if current is not None and current.startswith(CALL_PREFIX):
                    fields = line.split()
                    if len(fields) >= 2:
                        name = current[len(CALL_PREFIX):]
                        inclusive[name] = inclusive.get(name, 0) + int(fields[1])
    if total is None:
        raise ValueError(f"{path}: no totals line")
    return total, inclusive


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    plan, out = argv[1], argv[2]
    runs = {}
    try:
        with open(plan, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"run=(\d+) loop=(\S+) iterations=(\d+)$", line.strip())
                if m:
                    runs.setdefault(m.group(2), []).append((int(m.group(1)), int(m.group(3))))
    except OSError as err:
        print(f"callgrind_costs.py: cannot read the plan: {err}", file=sys.stderr)
        return 1
    if not runs:
        print(f"callgrind_costs.py: {plan} announces no run", file=sys.stderr)
        return 1
    names = {}
    costs = {}
    try:
        for k in sorted(k for loop in runs.values() for k, _ in loop):
            costs[k] = dump_costs(f"{out}.{k}", names)
    except (OSError, ValueError) as err:
        print(f"callgrind_costs.py: {err}", file=sys.stderr)
        return 1
    for loop, loop_runs in runs.items():
        if len(loop_runs) < 2:
            print(f"callgrind_costs.py: loop {loop} has {len(loop_runs)} run(s), wants N and 2N",
                  file=sys.stderr)
            return 1
        (k1, n1), (k2, n2) = loop_runs[-2], loop_runs[-1]
        if n2 != 2 * n1:
            print(f"callgrind_costs.py: loop {loop}: the last two runs have {n1} and {n2}"
                  " iterations, not N and 2N", file=sys.stderr)
            return 1
        (t1, inc1), (t2, inc2) = costs[k1], costs[k2]
        print(f"{loop} {(t2 - t1) / n1:.2f}")
        for call in sorted(set(inc1) | set(inc2)):
            print(f"{loop}:{call} {(inc2.get(call, 0) - inc1.get(call, 0)) / n1:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
