#!/usr/bin/env bash
# run-trace-cost.sh: what tracing (MPIWATCH_TRACE=1) adds to each MPI call
# over profiling alone, in instructions (callgrind), side by side in one run.
#
# See bench/README.md. Exit status: 0 when the benchmark ran (whatever the
# verdicts), non-zero on an error (bad arguments, build failure, a run failing).
set -euo pipefail

PROG=$(basename "$0")
HERE=$(cd "$(dirname "$0")" && pwd)
SRC="$HERE/overhead.c"
COSTS="$HERE/../tests/runtime/callgrind_costs.py"
. "$HERE/budgets.sh"

usage() {
    cat <<EOF
usage: $PROG --mpi openmpi|mpich --lib PATH/libmpiwatch.so [--iterations N] [--keep]

Builds bench/overhead.c and runs every single-rank loop (--callgrind-all N: a
warm-up, N and 2N iterations) under callgrind three times: bare, preloaded
with profiling on, and preloaded with profiling and MPIWATCH_TRACE=1. Prints,
per loop and per MPI call of the data loops, the instructions per call added
over bare by profiling and by profiling with the trace, and the trace's own
share (the difference), against BUDGET_TRACE of bench/budgets.sh. A fourth
traced run counts only the writer thread's encoding of the chunks
(mw_trace_transcode) and prints it per call recorded: the work the call path
leaves to the writer.

options:
  --mpi openmpi|mpich   which MPI (uses mpicc.MPI)
  --lib PATH            the libmpiwatch.so to preload
  --iterations N        N (default 2000)
  --keep                keep the temporary directory (callgrind files, traces)
  -h, --help            this text
EOF
}

die() {
    echo "$PROG: error: $*" >&2
    exit 1
}

MPI=""
LIB=""
N=2000
KEEP=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --mpi) [[ $# -ge 2 ]] || die "--mpi needs a value"; MPI=$2; shift 2 ;;
        --lib) [[ $# -ge 2 ]] || die "--lib needs a value"; LIB=$2; shift 2 ;;
        --iterations) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || die "--iterations wants a positive integer"
            N=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "$MPI" == openmpi || "$MPI" == mpich ]] || die "--mpi wants openmpi or mpich (see --help)"
[[ -f "$LIB" ]] || die "--lib: no library at '$LIB'"
DO_CALLGRIND=1
. "$HERE/common.sh"
need_mpi_tools
PYTHON=${PYTHON:-python3}

bench_workdir trace-cost
cp -L "$LIB" "$TMP/libmpiwatch.so"
unset LD_PRELOAD MPIWATCH_LEVEL MPIWATCH_TIMER MPIWATCH_TRACE 2>/dev/null || true
"$MPICC" -std=c11 -O2 -o "$TMP/overhead" "$SRC" >"$TMP/build.log" 2>&1 ||
    { cat "$TMP/build.log" >&2; die "building $SRC failed"; }

# measure VARIANT: one callgrind run of every loop; figures in $TMP/VARIANT.costs.
measure() {
    local v=$1 dir=$TMP/$1
    local -a envs=()
    mkdir -p "$dir"
    case $v in
        profile) envs=(LD_PRELOAD="$TMP/libmpiwatch.so") ;;
        trace) envs=(LD_PRELOAD="$TMP/libmpiwatch.so" MPIWATCH_TRACE=1 MPIWATCH_TRACE_DIR="$dir") ;;
    esac
    echo "# callgrind: $v" >&2
    (cd "$dir" && env ${envs[@]+"${envs[@]}"} MPIWATCH_OUTDIR="$dir" \
        valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_run_loop \
        --dump-after=bench_run_loop --callgrind-out-file="$dir/cg.out" \
        "$TMP/overhead" --callgrind-all "$N" >"$dir/plan" 2>"$dir/stderr" </dev/null) ||
        { tail -n 20 "$dir/stderr" >&2; die "the $v run failed under valgrind"; }
    "$PYTHON" "$COSTS" "$dir/plan" "$dir/cg.out" >"$TMP/$v.costs" ||
        die "cannot read the $v run's callgrind dumps"
}
for v in bare profile trace; do measure "$v"; done

echo "# mpiwatch trace cost: instructions per call added over the bare MPI"
echo "# mpi: $MPI; library: $LIB; N = $N; (I(2N) - I(N)) / N, callgrind, one rank"
printf '%-22s %10s %10s %10s %10s %s\n' figure bare +profile +trace trace-only verdict
while read -r name bare; do
    p=$(awk -v n="$name" '$1 == n {print $2}' "$TMP/profile.costs")
    t=$(awk -v n="$name" '$1 == n {print $2}' "$TMP/trace.costs")
    [[ -n "$p" && -n "$t" ]] || die "no figure for $name in the profile or trace run"
    calls=$(calls_per_iteration "${name%%:*}" | wc -w)
    [[ "$name" == *:* ]] && calls=1
    awk -v n="$name" -v b="$bare" -v p="$p" -v t="$t" -v c="$calls" -v budget="$BUDGET_TRACE" 'BEGIN {
        ap = (p - b) / c; at = (t - b) / c; d = at - ap
        printf "%-22s %10.2f %+10.2f %+10.2f %+10.2f %s\n", n, b / c, ap, at, d,
            (d <= budget ? "<= " budget : "ABOVE " budget) }'
done <"$TMP/bare.costs"
echo "# per call: the data loops' rows without ':' are per MPI call of the loop (its calls averaged);"
echo "# trace-only = +trace - +profile, the issue-29 target is <= $BUDGET_TRACE (BUDGET_TRACE)"

# The writer's share: callgrind collects only inside mw_trace_transcode (the
# writer thread's, and the finalizing thread's for the last chunks), over
# every loop; divided by the calls the report says the trace recorded.
dir=$TMP/writer
mkdir -p "$dir"
echo "# callgrind: writer" >&2
(cd "$dir" && env LD_PRELOAD="$TMP/libmpiwatch.so" MPIWATCH_TRACE=1 MPIWATCH_TRACE_DIR="$dir" \
    MPIWATCH_OUTDIR="$dir" valgrind --tool=callgrind --collect-atstart=no \
    --toggle-collect=mw_trace_transcode --callgrind-out-file="$dir/cg.out" \
    "$TMP/overhead" --callgrind-all "$N" >"$dir/plan" 2>"$dir/stderr" </dev/null) ||
    { tail -n 20 "$dir/stderr" >&2; die "the writer run failed under valgrind"; }
instructions=$(awk '$1 == "totals:" {print $2}' "$dir/cg.out")
events=$("$PYTHON" -c 'import glob, json, sys
print(json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))["trace"]["events"])' "$dir") ||
    die "no trace events in the writer run's report"
[[ -n "$instructions" && "$events" -gt 0 ]] || die "no figure from the writer run ($dir)"
awk -v i="$instructions" -v e="$events" 'BEGIN {
    printf "# writer thread: %.1f instructions per call recorded to encode it (mw_trace_transcode: %d instructions, %d calls; off the call path)\n", i / e, i, e }'
