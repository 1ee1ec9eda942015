#!/usr/bin/env bash
# run-trace-bounds.sh: the trace's memory stays bounded and a polling loop
# stays one record, on bench/trace_bounds.c (issue 29, "Bounded").
#
# See bench/README.md. Exit status: 0 when the benchmark ran (whatever the
# verdicts), non-zero on an error (bad arguments, build failure).
set -euo pipefail

PROG=$(basename "$0")
HERE=$(cd "$(dirname "$0")" && pwd)
SRC="$HERE/trace_bounds.c"
CHECK="$HERE/../tests/trace/trace_check.py"

usage() {
    cat <<EOF
usage: $PROG --mpi openmpi|mpich --lib PATH/libmpiwatch.so [options]

Runs bench/trace_bounds.c (CALLS calls of MPI_Comm_rank a rank, then POLLS
unsuccessful MPI_Test calls) bare and with MPIWATCH_TRACE=1 and
MPIWATCH_TRACE_BUFFER=BUFFER, and prints: each run's status and time, whether
the traced run printed the bare run's result, each rank's peak resident set
(VmHWM) after the first and the last tenth of the calls, the report's trace
totals against its calls (written + dropped = calls, decoded from the files
by tests/trace/trace_check.py), and the records the polling loop became.

options:
  --mpi openmpi|mpich   which MPI (uses mpicc.MPI and mpirun.MPI)
  --lib PATH            the libmpiwatch.so to preload
  --np N                ranks (default 4)
  --calls N             MPI_Comm_rank calls a rank (default 10000000)
  --polls N             unsuccessful MPI_Test calls a rank (default 1000000)
  --buffer SIZE         MPIWATCH_TRACE_BUFFER (default 1M)
  --keep                keep the temporary directory
  -h, --help            this text
EOF
}

die() {
    echo "$PROG: error: $*" >&2
    exit 1
}

MPI="" LIB="" NP=4 CALLS=10000000 POLLS=1000000 BUFFER=1M KEEP=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --mpi | --lib | --np | --calls | --polls | --buffer)
            [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"
            case $1 in
                --mpi) MPI=$2 ;;
                --lib) LIB=$2 ;;
                --buffer) BUFFER=$2 ;;
                *) [[ "$2" =~ ^[0-9]+$ ]] || die "$1 wants a count, got '$2'"
                   case $1 in --np) NP=$2 ;; --calls) CALLS=$2 ;; --polls) POLLS=$2 ;; esac ;;
            esac
            shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "$MPI" == openmpi || "$MPI" == mpich ]] || die "--mpi wants openmpi or mpich (see --help)"
[[ -f "$LIB" ]] || die "--lib: no library at '$LIB'"
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")   # the runs start elsewhere
DO_CALLGRIND=0
. "$HERE/common.sh"
need_mpi_tools
PYTHON=${PYTHON:-python3}

bench_workdir trace-bounds
unset LD_PRELOAD MPIWATCH_TRACE MPIWATCH_TRACE_BUFFER 2>/dev/null || true
"$MPICC" -std=c11 -O2 -o "$TMP/trace_bounds" "$SRC" >"$TMP/build.log" 2>&1 ||
    { cat "$TMP/build.log" >&2; die "building $SRC failed"; }

# launch DIR VAR=VALUE...: run the program on NP ranks in DIR with the
# variables; its status in DIR/rc, its time in seconds in DIR/seconds.
launch() {
    local dir=$1 rc=0 start end e
    shift
    mkdir -p "$dir"
    local -a cmd=("$MPIRUN")
    if [[ $MPI == openmpi ]]; then
        cmd+=(--oversubscribe -np "$NP")
        for e in "$@"; do cmd+=(-x "$e"); done
    else
        cmd+=(-n "$NP")
        for e in "$@"; do cmd+=(-genv "${e%%=*}" "${e#*=}"); done
    fi
    start=$(date +%s.%N)
    (cd "$dir" && "${cmd[@]}" "$TMP/trace_bounds" "$CALLS" "$POLLS" >stdout 2>stderr </dev/null) || rc=$?
    end=$(date +%s.%N)
    echo "$rc" >"$dir/rc"
    awk -v s="$start" -v e="$end" 'BEGIN {printf "%.1f\n", e - s}' >"$dir/seconds"
}

echo "# mpiwatch trace bounds: $NP ranks, $CALLS MPI_Comm_rank + $POLLS unsuccessful MPI_Test a rank"
echo "# mpi: $MPI; library: $LIB; MPIWATCH_TRACE_BUFFER=$BUFFER"
launch "$TMP/bare"
launch "$TMP/traced" LD_PRELOAD="$LIB" MPIWATCH_TRACE=1 MPIWATCH_TRACE_BUFFER="$BUFFER" \
    MPIWATCH_FORMATS=json MPIWATCH_OUTDIR="$TMP/traced"
for v in bare traced; do
    echo "$v: status $(cat "$TMP/$v/rc"), $(cat "$TMP/$v/seconds") s: $(cat "$TMP/$v/stdout")"
done
if cmp -s "$TMP/bare/stdout" "$TMP/traced/stdout" && [[ $(cat "$TMP/traced/rc") == 0 ]]; then
    echo "result: the traced run printed the bare run's result, status 0"
else
    echo "result: DIFFERENT (status $(cat "$TMP/traced/rc"); stderr follows)"
    tail -n 5 "$TMP/traced/stderr"
fi

echo "peak resident set (VmHWM, KiB) after the first and the last tenth of the calls:"
for v in bare traced; do
    awk -v v="$v" '$1 == "vmhwm" {
        split($2, rk, "="); split($3, t, "="); split($4, k, "=")
        if (t[2] == 1) first[rk[2]] = k[2]; if (t[2] == 10) last[rk[2]] = k[2] }
        END { for (n in first) printf "  %-6s rank %s: %8d -> %8d (%+d)\n", v, n, first[n], last[n], last[n] - first[n] }' \
        "$TMP/$v/stderr" | sort
done

report=$(ls "$TMP/traced"/mpiwatch-*.json 2>/dev/null | head -n 1)
files=("$TMP/traced"/*.trace.*)
[[ -n "$report" && -f "${files[0]}" ]] || die "the traced run left no report or no trace files (see $TMP/traced/stderr)"
echo "trace files: $(cat "${files[@]}" | wc -c) bytes for $NP ranks"
echo "written + dropped = calls: $("$PYTHON" "$CHECK" written "$report" "${files[@]}" 2>&1 | tail -n 1)"
echo "polling loop: $("$PYTHON" "$CHECK" polls "${files[@]}" "$POLLS" MPI_Test 2>&1 | tail -n 1)"
