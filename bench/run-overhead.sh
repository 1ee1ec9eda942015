#!/usr/bin/env bash
# run-overhead.sh: what mpiwatch adds to cheap MPI calls, measured side by side
# in one invocation against the same program run without it.
#
# See bench/README.md. Exit status: 0 when the benchmark ran (whatever the
# verdicts), non-zero on an error (bad arguments, build failure, a run failing).
set -euo pipefail

PROG=$(basename "$0")
HERE=$(cd "$(dirname "$0")" && pwd)
SRC="$HERE/overhead.c"

# The instruction budgets (added per call, against the bare MPI) are defined
# once, in budgets.sh, which the test suite's guard (tests/runtime/check-cost.sh)
# reads too; this script judges its figures against them with no tolerance.
. "$HERE/budgets.sh"
# The time target of the runtime-overhead issue (added per call, profiling on).
TARGET_ON_NS=30

usage() {
    cat <<EOF
usage: $PROG --mpi openmpi|mpich --lib PATH/libmpiwatch.so [options]

Builds bench/overhead.c with mpicc.MPI and measures, per call, the cost of
MPI_Comm_rank, MPI_Test(MPI_REQUEST_NULL), MPI_Iprobe(MPI_ANY_SOURCE) with no
message pending, and a 0-byte MPI_Send/MPI_Recv ping-pong (round trip), in
three variants run interleaved in the same invocation:
  bare          the program alone
  mpiwatch      LD_PRELOAD=libmpiwatch.so, profiling on
  mpiwatch-off  LD_PRELOAD=libmpiwatch.so with MPIWATCH_LEVEL=0 (or MPI_Pcontrol(0))
then counts instructions per call under callgrind: the cheap loops, and calls that
move data (MPI_Sendrecv, MPI_Isend/Irecv, MPI_Send/Recv on the world and on a
duplicate, MPI_Allreduce), each next to its target.

options:
  --mpi openmpi|mpich         which MPI (uses mpicc.MPI and mpirun.MPI)
  --lib PATH                  the libmpiwatch.so to preload (copied once at the
                              start, so a rebuild during the run cannot mix versions)
  --iterations N              iterations per cheap loop per repetition
                              (default 100000; ping-pong: N/50 round trips, >= 500)
  --rounds R                  interleaved rounds of (bare, mpiwatch, mpiwatch-off)
                              (default 5)
  --repetitions R             timed repetitions inside each run (default 21; short
                              and many, so that some fall between interruptions)
  --callgrind-iterations N    N for the callgrind differential, I(2N)-I(N) (default 10000)
  --off-method env|pcontrol   how mpiwatch-off turns profiling off: MPIWATCH_LEVEL=0
                              (default) or MPI_Pcontrol(0) right after MPI_Init
  --no-callgrind              skip the instruction counts
  --callgrind-loops LIST      single-rank loops to count under callgrind (comma-separated;
                              default all: comm_rank,test_null,iprobe, and the calls
                              that move data: sendrecv_self (0-byte MPI_Sendrecv to
                              self), isend_irecv, send_recv, send_recv_dup (8 bytes
                              to self on MPI_COMM_WORLD / an MPI_Comm_dup of it),
                              allreduce (1 int); the last four are also shown per
                              MPI call)
  --no-timing                 skip the timed runs (instruction counts only)
  --quick                     a short run: --iterations 50000 --rounds 3
                              --repetitions 11 --callgrind-iterations 2000
                              --callgrind-loops comm_rank
                              (explicit options given after --quick win)
  --wait SECONDS              how long to wait for a missing --lib (default 300)
  --keep                      keep the temporary directory (build, logs, callgrind files)
  -h, --help                  this text

Figures: time per call is, per variant, the minimum over the rounds of each
run's minimum over its repetitions (rank 0's timing; both ranks run every
loop at once); noise only ever adds time, and every variant gets the same
number of samples. The spread column shows how noisy the bare runs were. Instructions per call are exact: (I(2N) - I(N)) / N of
callgrind --toggle-collect=bench_loop_LOOP on a 1-rank (singleton) run.
EOF
}

die() {
    echo "$PROG: error: $*" >&2
    exit 1
}

MPI=""
LIB=""
ITERATIONS=100000
ROUNDS=5
REPETITIONS=21
CG_ITERATIONS=10000
CG_LOOPS_LIST=comm_rank,test_null,iprobe,sendrecv_self,isend_irecv,send_recv,send_recv_dup,allreduce
DO_TIMING=1
OFF_METHOD="env"
DO_CALLGRIND=1
WAIT_SECONDS=300
KEEP=0

need_value() {
    [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"
}
need_int() {
    [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1 wants a positive integer, got '$2'"
}

while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --mpi) need_value "$@"; MPI=$2; shift 2 ;;
        --lib) need_value "$@"; LIB=$2; shift 2 ;;
        --iterations) need_value "$@"; need_int "$1" "$2"; ITERATIONS=$2; shift 2 ;;
        --rounds) need_value "$@"; need_int "$1" "$2"; ROUNDS=$2; shift 2 ;;
        --repetitions) need_value "$@"; need_int "$1" "$2"; REPETITIONS=$2; shift 2 ;;
        --callgrind-iterations) need_value "$@"; need_int "$1" "$2"; CG_ITERATIONS=$2; shift 2 ;;
        --off-method) need_value "$@"; OFF_METHOD=$2; shift 2 ;;
        --callgrind-loops) need_value "$@"; CG_LOOPS_LIST=$2; shift 2 ;;
        --no-callgrind) DO_CALLGRIND=0; shift ;;
        --no-timing) DO_TIMING=0; shift ;;
        --quick) ITERATIONS=50000; ROUNDS=3; REPETITIONS=11; CG_ITERATIONS=2000; CG_LOOPS_LIST=comm_rank; shift ;;
        --wait) need_value "$@"; [[ "$2" =~ ^[0-9]+$ ]] || die "--wait wants seconds, got '$2'"; WAIT_SECONDS=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done

[[ -n "$MPI" ]] || die "--mpi openmpi|mpich is required (see --help)"
[[ "$MPI" == openmpi || "$MPI" == mpich ]] || die "--mpi wants openmpi or mpich, got '$MPI'"
[[ -n "$LIB" ]] || die "--lib PATH/libmpiwatch.so is required (see --help)"
[[ "$OFF_METHOD" == env || "$OFF_METHOD" == pcontrol ]] || die "--off-method wants env or pcontrol, got '$OFF_METHOD'"
[[ -f "$SRC" ]] || die "cannot find $SRC"
IFS=, read -r -a CG_LOOPS <<<"$CG_LOOPS_LIST"
[[ ${#CG_LOOPS[@]} -gt 0 ]] || die "--callgrind-loops is empty"
for l in "${CG_LOOPS[@]}"; do
    case $l in
        comm_rank | test_null | iprobe | sendrecv_self | isend_irecv | send_recv | send_recv_dup | allreduce) ;;
        *) die "--callgrind-loops: '$l' is not one of comm_rank, test_null, iprobe, sendrecv_self, isend_irecv, send_recv, send_recv_dup, allreduce" ;;
    esac
done

. "$HERE/common.sh"
need_mpi_tools
command -v nm >/dev/null || die "nm (binutils) not found"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpiwatch-overhead.XXXXXX")
cleanup() {
    if [[ $KEEP -eq 1 ]]; then
        echo "# kept $TMP" >&2
    else
        rm -rf "$TMP"
    fi
}
trap cleanup EXIT

# The library may be rebuilt by someone else while we run: wait until it is
# there and not growing, then take one private copy and use only that.
snapshot_lib() {
    local waited=0 s1 s2
    while :; do
        if [[ -f "$LIB" ]]; then
            s1=$(stat -Lc %s:%Y "$LIB" 2>/dev/null || true)
            sleep 1
            s2=$(stat -Lc %s:%Y "$LIB" 2>/dev/null || true)
            if [[ -n "$s1" && "$s1" == "$s2" ]] && cp -L "$LIB" "$TMP/libmpiwatch.so" 2>/dev/null &&
                grep -q ' MPI_Comm_rank$' <<<"$(nm -D --defined-only "$TMP/libmpiwatch.so" 2>/dev/null)"; then
                return 0
            fi
        fi
        if [[ $waited -ge $WAIT_SECONDS ]]; then
            die "no usable library at $LIB after waiting ${WAIT_SECONDS}s (missing, changing, or without MPI_Comm_rank)"
        fi
        echo "# waiting for $LIB (missing or being rebuilt)..." >&2
        sleep 4
        waited=$((waited + 5))
    done
}
snapshot_lib
PRELOAD=$TMP/libmpiwatch.so

# A library built against the other MPI crashes at the first call: say so now.
if command -v readelf >/dev/null; then
    needed=$(readelf -d "$PRELOAD" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case "$MPI" in
        openmpi) want='libmpi.so' ;;
        mpich) want='libmpich.so' ;;
    esac
    [[ " $needed" == *" $want"* ]] ||
        die "$LIB is not linked against $MPI ($want); it needs: ${needed:-nothing}"
fi

# Open MPI refuses root without these.
if [[ $(id -u) -eq 0 ]]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# Nothing of the caller's may leak into the bare runs.
unset LD_PRELOAD MPIWATCH_LEVEL MPIWATCH_TIMER 2>/dev/null || true
mkdir -p "$TMP/reports"
export MPIWATCH_OUTDIR=$TMP/reports

# ---------------------------------------------------------------- build
BIN=$TMP/overhead
if ! "$MPICC" -std=c11 -O2 -Wall -Wextra -o "$BIN" "$SRC" >"$TMP/build.log" 2>&1; then
    cat "$TMP/build.log" >&2
    die "building $SRC with $MPICC failed"
fi

VARIANTS=(bare mpiwatch mpiwatch-off)

# Run one variant on 2 ranks; its output goes to $2.
run_mpi() {
    local variant=$1 out=$2
    local -a args=(--iterations "$ITERATIONS" --repetitions "$REPETITIONS")
    local -a envs=()
    case "$variant" in
        bare) ;;
        mpiwatch) envs=(LD_PRELOAD="$PRELOAD") ;;
        mpiwatch-off)
            envs=(LD_PRELOAD="$PRELOAD")
            if [[ $OFF_METHOD == env ]]; then envs+=(MPIWATCH_LEVEL=0); else args+=(--pcontrol-off); fi
            ;;
    esac
    local -a launch
    if [[ $MPI == openmpi ]]; then
        launch=("$MPIRUN" --oversubscribe -np 2 -x MPIWATCH_OUTDIR)
        local e
        for e in ${envs[@]+"${envs[@]}"}; do launch+=(-x "$e"); done
    else
        launch=("$MPIRUN" -n 2 -genv MPIWATCH_OUTDIR "$MPIWATCH_OUTDIR")
        local e
        for e in ${envs[@]+"${envs[@]}"}; do launch+=(-genv "${e%%=*}" "${e#*=}"); done
    fi
    if ! "${launch[@]}" "$BIN" "${args[@]}" >"$out" 2>"$out.err"; then
        echo "--- command: ${launch[*]} $BIN ${args[*]}" >&2
        tail -n 30 "$out" "$out.err" >&2
        die "the $variant run failed"
    fi
}

minimum() { # numbers on stdin -> the smallest
    sort -g | awk 'NR == 1 {printf "%.3f\n", $1; found = 1} END {exit !found}'
}

field() { # field NAME < line -> value
    sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p"
}

echo "# mpiwatch overhead benchmark"
echo "# mpi:      $MPI ($("$MPIRUN" --version 2>&1 | grep -m1 -E '[0-9]+\.[0-9]+' | sed 's/^[[:space:]]*//'))"
echo "# library:  $LIB (sha256 $(sha256sum "$PRELOAD" | cut -c1-16), copied at start)"
echo "# cpu:      $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown), $(nproc) cores"
echo "# date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "# timing:   2 ranks, $ITERATIONS iterations x $REPETITIONS repetitions per run, $ROUNDS interleaved rounds;"
echo "#           mpiwatch-off = $([[ $OFF_METHOD == env ]] && echo MPIWATCH_LEVEL=0 || echo 'MPI_Pcontrol(0) after MPI_Init')"
echo

# ---------------------------------------------------------------- timing
if [[ $DO_TIMING -eq 1 ]]; then
RESULTS=$TMP/results.tsv
: >"$RESULTS"
for ((r = 0; r < ROUNDS; r++)); do
    # Rotate the order each round so that no variant always runs first.
    for ((k = 0; k < 3; k++)); do
        v=${VARIANTS[$(((r + k) % 3))]}
        out=$TMP/run.$r.$v.out
        echo "# round $((r + 1))/$ROUNDS: $v" >&2
        run_mpi "$v" "$out"
        n=0
        while IFS= read -r line; do
            [[ $line == loop=* ]] || continue
            loop=${line#loop=}
            loop=${loop%% *}
            printf '%s\t%s\t%s\t%s\t%s\n' "$v" "$loop" "$r" \
                "$(field ns_per_iter <<<"$line")" "$(field calls_per_iter <<<"$line")" >>"$RESULTS"
            n=$((n + 1))
        done <"$out"
        [[ $n -eq 4 ]] || { cat "$out" "$out.err" >&2; die "the $v run printed $n result lines, expected 4"; }
    done
done

LOOPS=(comm_rank test_null iprobe pingpong)
ns_of() { # variant loop -> minimum over rounds (of each run's minimum over repetitions)
    awk -F'\t' -v v="$1" -v l="$2" '$1 == v && $2 == l {print $4}' "$RESULTS" | minimum
}

echo "== time per call ($MPI; ns; min over $ROUNDS rounds of each run's min over $REPETITIONS repetitions) =="
echo "   pingpong: ns per ROUND TRIP (4 MPI calls on the critical path); its added/call = added / 4"
printf '%-10s %9s %9s %7s %9s %10s %-7s %-12s %9s %7s %10s %8s\n' \
    loop bare mpiwatch ratio added added/call target verdict mw-off ratio added/call spread
for l in "${LOOPS[@]}"; do
    b=$(ns_of bare "$l")
    m=$(ns_of mpiwatch "$l")
    o=$(ns_of mpiwatch-off "$l")
    cpi=$(awk -F'\t' -v l="$l" '$2 == l {print $5; exit}' "$RESULTS")
    # Noise indicator: the range, over the rounds, of the bare run's figure.
    spread=$(awk -F'\t' -v l="$l" '$1 == "bare" && $2 == l {
        if (n++ == 0 || $4 < lo) lo = $4; if (n == 1 || $4 > hi) hi = $4 } END {printf "%.2f", hi - lo}' "$RESULTS")
    awk -v l="$l" -v b="$b" -v m="$m" -v o="$o" -v c="$cpi" -v t="$TARGET_ON_NS" -v sp="$spread" 'BEGIN {
        add = m - b; per = sprintf("%.2f", add / c) + 0; offper = (o - b) / c
        verdict = per <= t ? "PASS" : "ABOVE TARGET"
        printf "%-10s %9.2f %9.2f %6.2fx %+9.2f %+10.2f %-7s %-12s %9.2f %6.2fx %+10.2f %8.2f\n",
            l, b, m, m / b, add, per, "<=" t "ns", verdict, o, o / b, offper, sp }'
done
echo "   spread: max - min over the rounds of the bare figure (ns); an added time smaller than it"
echo "   is not resolved on this machine. No time target with profiling off (its target is in"
echo "   instructions, below)."
echo
fi

# ---------------------------------------------------------------- callgrind
if [[ $DO_CALLGRIND -eq 1 ]]; then
    # Total instructions inside bench_loop_LOOP (callees included) for n iterations.
    cg_count() {
        local variant=$1 loop=$2 n=$3
        local file=$TMP/cg.$variant.$loop.$n
        local -a envs=() args=(--callgrind "$loop" --iterations "$n")
        case "$variant" in
            bare) ;;
            mpiwatch) envs=(LD_PRELOAD="$PRELOAD") ;;
            mpiwatch-off)
                envs=(LD_PRELOAD="$PRELOAD")
                if [[ $OFF_METHOD == env ]]; then envs+=(MPIWATCH_LEVEL=0); else args+=(--pcontrol-off); fi
                ;;
        esac
        # A singleton: both MPIs initialise without mpirun.
        if ! env ${envs[@]+"${envs[@]}"} valgrind --tool=callgrind \
            --toggle-collect="bench_loop_$loop" --callgrind-out-file="$file" \
            "$BIN" "${args[@]}" >"$file.log" 2>&1; then
            tail -n 30 "$file.log" >&2
            die "callgrind run ($variant, $loop, $n iterations) failed"
        fi
        local total
        total=$(callgrind_total "$file")
        [[ -n "$total" && "$total" -gt 0 ]] || die "callgrind collected nothing in bench_loop_$loop ($variant; see $file.log)"
        echo "$total"
    }

    # calls_of LOOP: the bench_call_X functions of a data loop (one per MPI call).
    calls_of() {
        case $1 in
            isend_irecv | send_recv | send_recv_dup) calls_per_iteration "$1" ;;
            *) echo "" ;;
        esac
    }
    # target_of NAME: the budget of a loop's call, or of one of a data loop's
    # calls (LOOP:CALL); "-" for a data loop's row, judged call by call.
    target_of() {
        case $1 in
            isend_irecv | send_recv | send_recv_dup) echo "-" ;;
            *) budget_of "${1#*:}" ;;
        esac
    }
    # inclusive FILE FUNCTION: callgrind's inclusive count of FUNCTION in FILE.
    inclusive() {
        callgrind_annotate --inclusive=yes --threshold=100 "$1" |
            awk -v f="$2" '!found && $0 ~ (":" f " ") {gsub(",", "", $1); print $1; found = 1} END {if (!found) print 0}'
    }

    N1=$CG_ITERATIONS
    N2=$((2 * CG_ITERATIONS))
    echo "== instructions per call ($MPI; callgrind, 1 rank, (I(${N2}) - I(${N1})) / ${N1} inside bench_loop_LOOP) =="
    echo "   the data loops' MPI calls, LOOP:call, are callgrind's inclusive counts of bench_call_X"
    printf '%-20s %9s %9s %9s %9s %-8s %-12s %9s %-8s %-12s\n' \
        loop bare mpiwatch mw-off added target verdict added-off target verdict
    declare -A IPC ADDED
    row() { # name bare mpiwatch off
        local target calls
        target=$(target_of "$1")
        # The off target is per call: a data loop's row holds several.
        calls=$(calls_of "$1" | wc -w)
        [ "$calls" -gt 0 ] || calls=1
        awk -v l="$1" -v b="$2" -v m="$3" -v o="$4" \
            -v ton="$target" -v toff="$((BUDGET_OFF * calls))" 'BEGIN {
            a = sprintf("%.2f", m - b) + 0; ao = sprintf("%.2f", o - b) + 0   # verdict on the figure shown
            v = ton == "-" ? "(per call below)" : (a <= ton ? "PASS" : "ABOVE TARGET")
            printf "%-20s %9.2f %9.2f %9.2f %+9.2f %-8s %-12s %+9.2f %-8s %-12s\n", l, b, m, o,
                a, "<=" ton, v, ao, "<=" toff, (ao <= toff ? "PASS" : "ABOVE TARGET") }'
    }
    for l in "${CG_LOOPS[@]}"; do
        for v in "${VARIANTS[@]}"; do
            echo "# callgrind: $l $v" >&2
            i1=$(cg_count "$v" "$l" "$N1")
            i2=$(cg_count "$v" "$l" "$N2")
            IPC[$v]=$(awk -v a="$i1" -v b="$i2" -v n="$N1" 'BEGIN {printf "%.3f", (b - a) / n}')
            for c in $(calls_of "$l"); do
                c1=$(inclusive "$TMP/cg.$v.$l.$N1" "bench_call_$c")
                c2=$(inclusive "$TMP/cg.$v.$l.$N2" "bench_call_$c")
                IPC[$v:$c]=$(awk -v a="$c1" -v b="$c2" -v n="$N1" 'BEGIN {printf "%.3f", (b - a) / n}')
            done
        done
        row "$l" "${IPC[bare]}" "${IPC[mpiwatch]}" "${IPC[mpiwatch-off]}"
        for c in $(calls_of "$l"); do
            row "$l:$c" "${IPC[bare:$c]}" "${IPC[mpiwatch:$c]}" "${IPC[mpiwatch-off:$c]}"
            ADDED[$l:$c]=$(awk -v b="${IPC[bare:$c]}" -v m="${IPC[mpiwatch:$c]}" 'BEGIN {printf "%.2f", m - b}')
        done
    done
    # What a duplicated communicator adds, call by call, over MPI_COMM_WORLD.
    if [[ -n "${ADDED[send_recv:send]:-}" && -n "${ADDED[send_recv_dup:send]:-}" ]]; then
        echo "-- a duplicated communicator: added on send_recv_dup minus added on send_recv (target <= +$BUDGET_DUP_EXTRA) --"
        for c in $(calls_of send_recv); do
            awk -v c="$c" -v w="${ADDED[send_recv:$c]}" -v d="${ADDED[send_recv_dup:$c]}" -v t="$BUDGET_DUP_EXTRA" 'BEGIN {
                x = sprintf("%.2f", d - w) + 0
                printf "%-20s world %+9.2f  dup %+9.2f  dup-world %+7.2f  <=+%s  %s\n", c, w, d, x, t,
                    (x <= t ? "PASS" : "ABOVE TARGET") }'
        done
    fi
    echo
fi

# ---------------------------------------------------------------- context
echo "== reference figures of other tools (added per call; context, not measured here) =="
echo "   wrap.py count-and-time wrapper:  60-69 instructions, 55-60 ns"
echo "   mpiP, default (call-stack capture): ~3,600 instructions, ~3.5 us"
echo "   mpiP, without call-stack capture:    ~500 instructions, ~140 ns"
echo "   budgets for mpiwatch (bench/budgets.sh): profiling on <= $BUDGET_CHEAP instructions ($BUDGET_P2P for MPI_Isend/Irecv/Send/Recv," \
    "$BUDGET_ALLREDUCE for MPI_Allreduce, $BUDGET_SENDRECV for MPI_Sendrecv) and <= $TARGET_ON_NS ns;" \
    "profiling off <= $BUDGET_OFF instructions"
