#!/usr/bin/env bash
# The per-rank figures gathered to rank 0 at MPI_Finalize (core/tree_gather.c:
# a binomial tree, whose inner ranks pass up their subtree's figures) land
# under the right rank: on 1, 7 and 13 ranks (subtrees of every shape) of
# tests/runtime/rank_figures.c, where every rank's figures are its own,
# each rank's row of the rank x function matrix, its pair, its times, the
# regions that only some ranks entered (a gatherv of a different size from
# every rank, none from rank 0) and the hosts line.
name=rank-figures
. "$(dirname "$0")/../lib/harness.sh"

build "$rt_dir/rank_figures.c" "$work/rank_figures" linked

# check_figures NP REPORT: the problems in REPORT, one a line (none: empty).
check_figures() {
    "$PYTHON" - "$1" "$2" <<'PY'
import json, sys
p, report = int(sys.argv[1]), json.load(open(sys.argv[2], encoding="utf-8"))
problems = []
matrix = report["rank_functions"]
isend = matrix["functions"].index("MPI_Isend")
rows = matrix["ranks"]
if [row["rank"] for row in rows] != list(range(p)):
    problems.append(f"rank_functions: ranks {[row['rank'] for row in rows]}")
for r, row in enumerate(rows):
    want = (r + 1, 8 * (r + 1) ** 2)
    got = (row["calls"][isend], row["bytes_sent"][isend])
    if got != want:
        problems.append(f"rank_functions rank {r}: MPI_Isend calls, bytes_sent {got}, expected {want}")
pairs = {(x["from"], x["to"]): (x["messages"], x["bytes"]) for x in report["pairs"]}
want = {(r, (r + 1) % p): (r + 1, 8 * (r + 1) ** 2) for r in range(p)}
if pairs != want:
    problems.append(f"pairs {sorted(pairs.items())}, expected {sorted(want.items())}")
times = report["rank_times"]
if [t["rank"] for t in times] != list(range(p)) or not all(t["app"] > 0 and t["init"] > 0 for t in times):
    problems.append(f"rank_times: {times}")
regions = {name: (v["ranks"], v["entries"], v["calls"]) for name, v in report.get("regions", {}).items()}
want = {f"part{k}": (p - 1 - k,) * 3 for k in range(p - 1)}
if regions != want:
    problems.append(f"regions {regions}, expected {want}")
if f"({p} rank" not in report["hosts"]:
    problems.append(f"hosts {report['hosts']!r}: not {p} ranks")
print("\n".join(problems))
PY
}

for np in 1 7 13; do
    dir=$work/np$np
    mkdir -p "$dir/out"
    run "$dir" "$np" linked MPIWATCH_OUTDIR="$dir/out" -- "$work/rank_figures"
    report=$(reports "$dir/out" 'mpiwatch-*.json')
    if [ "$(rc_of "$dir")" -ne 0 ] || [ -z "$report" ]; then
        fail "$np ranks" "the run failed or wrote no report ($(describe_rc "$(rc_of "$dir")"))" \
            "$dir/stderr"
    elif problems=$(check_figures "$np" "$dir/out/$report") && [ -z "$problems" ]; then
        pass "$np ranks: every rank's row, pair, times and regions under its rank"
    else
        printf '%s\n' "$problems" >"$dir/problems"
        fail "$np ranks" "figures under the wrong rank or missing" "$dir/problems"
    fi
done
finish
