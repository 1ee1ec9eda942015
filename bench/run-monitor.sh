#!/usr/bin/env bash
# run-monitor.sh: what watching a job live costs it. The 0-byte ping-pong of
# overhead.c, profiled by mpiwatch, with and without a monitor client
# attached, run interleaved in one invocation.
#
# See bench/README.md. Exit status: 0 when the benchmark ran (whatever the
# verdict), non-zero on an error (bad arguments, build failure, a run failing).
set -euo pipefail

PROG=$(basename "$0")
HERE=$(cd "$(dirname "$0")" && pwd)
SRC="$HERE/overhead.c"
TARGET_PERCENT=5

usage() {
    cat <<EOF
usage: $PROG --mpi openmpi|mpich --lib PATH/libmpiwatch.so --client PATH/mpiwatch [options]

Builds bench/overhead.c with mpicc.MPI and times its 0-byte MPI_Send/MPI_Recv
ping-pong on 2 ranks, in three variants run interleaved in the same invocation:
  bare          the program alone (for context)
  monitor-off   LD_PRELOAD=libmpiwatch.so, profiling on, no monitor
  monitor-on    the same, with MPIWATCH_MONITOR=file:PORTS (TCP) and the client
                '--json --no-events --port-file PORTS' attached from the first call
                (MPIWATCH_WAIT), receiving every event the ranks manage to send
The verdict compares monitor-on with monitor-off: the target is at most
$TARGET_PERCENT% more latency.

options:
  --mpi openmpi|mpich    which MPI (uses mpicc.MPI and mpirun.MPI)
  --lib PATH             the libmpiwatch.so to preload (copied once at the start)
  --client PATH          the mpiwatch client built for the same MPI
  --round-trips N        round trips per repetition (default 2000)
  --repetitions R        timed repetitions per run (default 21)
  --rounds R             interleaved rounds (default 31)
  --callgrind-iterations N  N for the instruction counts, I(2N)-I(N) (default 10000)
  --no-callgrind         skip the instruction counts
  --keep                 keep the temporary directory (runs' output, client output)
  -h, --help             this text

Figures: each run reports the minimum over its repetitions, in ns per round
trip (4 MPI calls on the critical path, so 4 events per round trip with the
monitor on). The verdict is the median over the rounds of monitor-on vs
monitor-off within the round: runs made one after the other, so a burst of
load on the machine moves both. For information, per variant, the minimum
over the rounds is printed too (one lucky run decides it, so on a shared
machine it swings by several percent between invocations), and every
round's ratio. The client's totals line says how many events it received
and how many the ranks dropped.

Then, unless --no-callgrind, the instructions per call under valgrind's
callgrind (noise-free; 1 rank, the client attached) of MPI_Comm_rank (an
event without traffic) and of a 0-byte MPI_Sendrecv to oneself (an event
with traffic: bytes, peer, tag, communicator): bare, monitor-off,
monitor-on (every event written to the ring) and monitor-full (the ring
always full: every event dropped and counted).

The client runs as a user would start it, so at its default --nice 19, and
each rank's monitor thread at MPIWATCH_MONITOR_NICE's default 19.

Fan-in (--fan-in RANKS): instead of the above, what watching RANKS ranks costs
the client. bench/spin.c (each rank computes and joins an MPI_Allreduce in a
loop) runs for --seconds S on RANKS ranks, watched by '--json --no-events'
from the first call, twice per round: every rank serving its own client
connection (per-rank), and node leaders with MPIWATCH_NODE_SIZE=K (leaders,
one connection per K ranks). Printed per run: the client's connections, its
CPU time (user + system) per second of watching, and the events it received.

  --fan-in RANKS         ranks of the fan-in runs (e.g. 32 or 64)
  --node-size K          MPIWATCH_NODE_SIZE of the leaders variant (default 16)
  --seconds S            how long each run computes (default 15)
  --fan-in-rounds R      rounds of the two variants, interleaved (default 2)
EOF
}

die() { echo "$PROG: error: $*" >&2; exit 2; }
need_value() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }
is_count() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }

MPI= LIB= CLIENT= ROUND_TRIPS=2000 REPETITIONS=21 ROUNDS=31 KEEP=0 DO_CALLGRIND=1 CG_ITERATIONS=10000
FAN_IN= NODE_SIZE=16 SECONDS_F=15 FAN_IN_ROUNDS=2
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --mpi) need_value "$@"; MPI=$2; shift 2 ;;
        --lib) need_value "$@"; LIB=$2; shift 2 ;;
        --client) need_value "$@"; CLIENT=$2; shift 2 ;;
        --round-trips) need_value "$@"; is_count "$2" || die "--round-trips wants a positive integer, got '$2'"; ROUND_TRIPS=$2; shift 2 ;;
        --repetitions) need_value "$@"; is_count "$2" || die "--repetitions wants a positive integer, got '$2'"; REPETITIONS=$2; shift 2 ;;
        --rounds) need_value "$@"; is_count "$2" || die "--rounds wants a positive integer, got '$2'"; ROUNDS=$2; shift 2 ;;
        --callgrind-iterations) need_value "$@"; is_count "$2" || die "--callgrind-iterations wants a positive integer, got '$2'"; CG_ITERATIONS=$2; shift 2 ;;
        --no-callgrind) DO_CALLGRIND=0; shift ;;
        --fan-in) need_value "$@"; is_count "$2" || die "--fan-in wants a positive number of ranks, got '$2'"; FAN_IN=$2; shift 2 ;;
        --node-size) need_value "$@"; is_count "$2" || die "--node-size wants a positive integer, got '$2'"; NODE_SIZE=$2; shift 2 ;;
        --seconds) need_value "$@"; is_count "$2" || die "--seconds wants a positive integer, got '$2'"; SECONDS_F=$2; shift 2 ;;
        --fan-in-rounds) need_value "$@"; is_count "$2" || die "--fan-in-rounds wants a positive integer, got '$2'"; FAN_IN_ROUNDS=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "$MPI" == openmpi || "$MPI" == mpich ]] || die "--mpi openmpi|mpich is required (see --help)"
[[ -f "$LIB" ]] || die "--lib: no library at '${LIB:-}' (see --help)"
[[ -x "$CLIENT" ]] || die "--client: no executable at '${CLIENT:-}' (see --help)"
. "$HERE/common.sh"
need_mpi_tools

bench_workdir monitor-bench
cp -L "$LIB" "$TMP/libmpiwatch.so"
PRELOAD=$TMP/libmpiwatch.so
unset LD_PRELOAD MPIWATCH_LEVEL MPIWATCH_MONITOR MPIWATCH_WAIT 2>/dev/null || true
mkdir -p "$TMP/reports"
export MPIWATCH_OUTDIR=$TMP/reports

BIN=$TMP/overhead
"$MPICC" -std=c11 -O2 -Wall -Wextra -o "$BIN" "$SRC" >"$TMP/build.log" 2>&1 ||
    { cat "$TMP/build.log" >&2; die "building $SRC with $MPICC failed"; }

# launch OUT ENV... : run PROGRAM on NP ranks with the given variables (by
# default the ping-pong on 2 ranks).
NP=2
PROGRAM=("$BIN" --loops pingpong --pingpong-iterations "$ROUND_TRIPS" --repetitions "$REPETITIONS")
launch() {
    local out=$1
    shift
    local -a cmd
    if [[ $MPI == openmpi ]]; then
        cmd=("$MPIRUN" --oversubscribe -np "$NP" -x MPIWATCH_OUTDIR)
        for e in "$@"; do cmd+=(-x "$e"); done
    else
        cmd=("$MPIRUN" -n "$NP" -genv MPIWATCH_OUTDIR "$MPIWATCH_OUTDIR")
        for e in "$@"; do cmd+=(-genv "${e%%=*}" "${e#*=}"); done
    fi
    cmd+=("${PROGRAM[@]}")
    "${cmd[@]}" >"$out" 2>"$out.err" ||
        { tail -n 20 "$out" "$out.err" >&2; die "run failed: ${cmd[*]}"; }
}

run_variant() { # variant round -> ns per round trip
    local v=$1 r=$2 out=$TMP/$1.$2.out
    case "$v" in
        bare) launch "$out" ;;
        monitor-off) launch "$out" LD_PRELOAD="$PRELOAD" ;;
        monitor-on)
            local ports=$TMP/ports.$r.txt
            "$CLIENT" --json --no-events --port-file "$ports" --wait 60 >"$TMP/client.$r.jsonl" \
                2>"$TMP/client.$r.err" &
            local client=$!
            launch "$out" LD_PRELOAD="$PRELOAD" MPIWATCH_MONITOR="file:$ports" MPIWATCH_WAIT=60
            wait "$client" || { cat "$TMP/client.$r.err" >&2; die "the client failed in round $r"; }
            grep -q '"type": *"totals"' "$TMP/client.$r.jsonl" ||
                die "the client printed no totals in round $r (see --keep)"
            ;;
    esac
    sed -n 's/^loop=pingpong .*ns_per_iter=\([0-9.]*\).*/\1/p' "$out" | head -n1 | grep . ||
        die "the $v run printed no ping-pong figure"
}

# ---------------------------------------------------------------- fan-in
# fan_in_run VARIANT ROUND: one watched spin run; prints the client's
# connections, CPU seconds per second of watching, and events received.
fan_in_run() {
    local v=$1 r=$2 ports=$TMP/fanin.$1.$2.ports out=$TMP/fanin.$1.$2
    local -a envs=(LD_PRELOAD="$PRELOAD" MPIWATCH_MONITOR="file:$ports" MPIWATCH_WAIT=120)
    [[ $v == leaders ]] && envs+=(MPIWATCH_NODE_SIZE="$NODE_SIZE")
    python3 -c 'import resource, subprocess, sys, time
t = time.monotonic()
rc = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1] + ".jsonl", "w"),
                    stderr=open(sys.argv[1] + ".err", "w")).returncode
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1] + ".cpu", "w").write("%d %.3f %.3f\n" % (rc, u.ru_utime + u.ru_stime, time.monotonic() - t))' \
        "$out.client" "$CLIENT" --json --no-events --port-file "$ports" --wait 120 &
    local client=$!
    (for _ in $(seq 1200); do [[ -s $ports ]] && cp "$ports" "$out.seen" && exit 0; sleep 0.1; done) &
    local copier=$!
    launch "$out" "${envs[@]}"
    wait "$client" "$copier" || true
    local rc cpu wall
    read -r rc cpu wall <"$out.client.cpu"
    [[ $rc == 0 ]] || { cat "$out.client.err" >&2; die "the client failed ($v, round $r)"; }
    local conns events
    conns=$(grep -c '^mpiwatch-endpoint [0-9]* [0-9]* [0-9]* \(tcp\|node\) ' "$out.seen")
    events=$(python3 -c 'import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "totals":
        print(o["events"]["received"])' "$out.client.jsonl")
    awk -v v="$v" -v r="$r" -v c="$conns" -v cpu="$cpu" -v wall="$wall" -v e="$events" 'BEGIN {
        printf "%-9s %5d %11d %9.3f %9.2f %14.4f %12d\n", v, r, c, cpu, wall, cpu / wall, e }'
}

if [[ -n $FAN_IN ]]; then
    SPIN=$TMP/spin
    "$MPICC" -std=c11 -O2 -o "$SPIN" "$HERE/spin.c" >"$TMP/build-spin.log" 2>&1 ||
        { cat "$TMP/build-spin.log" >&2; die "building spin.c with $MPICC failed"; }
    NP=$FAN_IN
    PROGRAM=("$SPIN" "$TMP/no-such-file" "$SECONDS_F")
    echo "# mpiwatch monitor fan-in: spin.c on $FAN_IN ranks for $SECONDS_F s, watched by the client"
    echo "# mpi:    $MPI; library: $LIB; client: $CLIENT; leaders: MPIWATCH_NODE_SIZE=$NODE_SIZE"
    echo "# date:   $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) cores"
    printf '%-9s %5s %11s %9s %9s %14s %12s\n' variant round connections "cpu s" "wall s" \
        "cpu s per s" events
    for ((r = 1; r <= FAN_IN_ROUNDS; r++)); do
        for v in per-rank leaders; do
            echo "# fan-in round $r/$FAN_IN_ROUNDS: $v" >&2
            fan_in_run "$v" "$r"
        done
    done
    exit 0
fi

echo "# mpiwatch monitor benchmark: 0-byte ping-pong, 2 ranks"
echo "# mpi:    $MPI; library: $LIB; client: $CLIENT"
echo "# date:   $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) cores"
echo "# timing: $ROUND_TRIPS round trips x $REPETITIONS repetitions per run, $ROUNDS interleaved rounds"
VARIANTS=(bare monitor-off monitor-on)
declare -A BEST ROUND
PAIRED=()
for ((r = 0; r < ROUNDS; r++)); do
    for ((k = 0; k < 3; k++)); do
        v=${VARIANTS[$(((r + k) % 3))]}
        echo "# round $((r + 1))/$ROUNDS: $v" >&2
        ns=$(run_variant "$v" "$r")
        if [[ -z "${BEST[$v]:-}" ]] || awk -v a="$ns" -v b="${BEST[$v]}" 'BEGIN {exit !(a < b)}'; then
            BEST[$v]=$ns
        fi
        ROUND[$v]=$ns
    done
    PAIRED+=("$(awk -v on="${ROUND[monitor-on]}" -v off="${ROUND[monitor-off]}" \
                'BEGIN {printf "%.3f", (on - off) / off * 100}')")
done
PAIRED_MEDIAN=$(printf '%s\n' "${PAIRED[@]}" | sort -g |
                awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}')

# Events the client received and the ranks dropped, over all rounds.
read -r received dropped < <(cat "$TMP"/client.*.jsonl | python3 -c '
import json, sys
rec = drop = 0
for line in sys.stdin:
    o = json.loads(line)
    if o.get("type") == "totals":
        rec += o["events"]["received"]; drop += o["events"]["dropped"]
print(rec, drop)')

awk -v b="${BEST[bare]}" -v off="${BEST[monitor-off]}" -v on="${BEST[monitor-on]}" \
    -v t="$TARGET_PERCENT" -v rec="$received" -v drop="$dropped" -v paired="$PAIRED_MEDIAN" \
    -v rounds="$(printf '%+.1f%% ' "${PAIRED[@]}")" 'BEGIN {
    printf "%-12s %18s\n", "variant", "best ns/round trip"
    printf "%-12s %18.1f\n", "bare", b
    printf "%-12s %18.1f\n", "monitor-off", off
    printf "%-12s %18.1f\n", "monitor-on", on
    printf "best monitor-on vs best monitor-off: %+.1f%%\n", (on - off) / off * 100
    printf "per round, monitor-on vs monitor-off (in order): %s\n", rounds
    printf "median over the rounds: %+.1f%% (target <= %d%%): %s\n", paired, t,
           paired <= t ? "PASS" : "ABOVE TARGET"
    printf "events: %d received by the client, %d dropped by the ranks (all rounds)\n", rec, drop
}'

# ---------------------------------------------------------------- callgrind
[[ $DO_CALLGRIND -eq 1 ]] || exit 0

# cg_count VARIANT LOOP N: instructions inside bench_loop_LOOP for N calls.
cg_count() {
    local variant=$1 loop=$2 n=$3 file=$TMP/cg.$1.$2.$3 client=
    local -a envs=()
    case "$variant" in
        bare) ;;
        monitor-off) envs=(LD_PRELOAD="$PRELOAD") ;;
        monitor-on|monitor-full)
            local buffer=16777216
            [[ $variant == monitor-full ]] && buffer=16
            rm -f "$file.ports"
            "$CLIENT" --json --no-events -q --port-file "$file.ports" --wait 120 >"$file.client" 2>&1 &
            client=$!
            envs=(LD_PRELOAD="$PRELOAD" MPIWATCH_MONITOR="file:$file.ports" MPIWATCH_WAIT=120
                  MPIWATCH_MONITOR_BUFFER=$buffer)
            ;;
    esac
    # A singleton: both MPIs initialise without mpirun.
    if ! env ${envs[@]+"${envs[@]}"} valgrind --tool=callgrind \
            --toggle-collect="bench_loop_$loop" --callgrind-out-file="$file" \
            "$BIN" --callgrind "$loop" --iterations "$n" >"$file.log" 2>&1; then
        tail -n 30 "$file.log" >&2
        die "callgrind run ($variant, $loop, $n calls) failed"
    fi
    if [[ -n $client ]]; then
        wait "$client" || { cat "$file.client" >&2; die "the client failed in the callgrind run ($variant, $loop)"; }
    fi
    local total
    total=$(callgrind_total "$file")
    [[ -n "$total" && "$total" -gt 0 ]] || die "callgrind collected nothing ($variant, $loop; see --keep)"
    echo "$total"
}

for loop in comm_rank sendrecv_self; do
    echo
    echo "== instructions per call, $loop (callgrind, 1 rank, (I($((2 * CG_ITERATIONS))) - I($CG_ITERATIONS)) / $CG_ITERATIONS) =="
    printf '%-13s %12s %9s %15s\n' variant instructions "vs bare" "vs monitor-off"
    declare -A IPC=()
    for v in bare monitor-off monitor-on monitor-full; do
        echo "# callgrind: $loop $v" >&2
        i1=$(cg_count "$v" "$loop" "$CG_ITERATIONS")
        i2=$(cg_count "$v" "$loop" $((2 * CG_ITERATIONS)))
        IPC[$v]=$(awk -v a="$i1" -v b="$i2" -v n="$CG_ITERATIONS" 'BEGIN {printf "%.1f", (b - a) / n}')
        awk -v v="$v" -v i="${IPC[$v]}" -v bare="${IPC[bare]}" -v off="${IPC[monitor-off]:-}" 'BEGIN {
            printf "%-13s %12.1f %9s %15s\n", v, i, v == "bare" ? "" : sprintf("%+.1f", i - bare),
                   v ~ /^monitor-(on|full)$/ ? sprintf("%+.1f", i - off) : ""
        }'
    done
done
