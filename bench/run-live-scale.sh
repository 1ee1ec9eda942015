#!/usr/bin/env bash
# run-live-scale.sh: the live monitor at scale (issue 32): a job of many
# ranks in pretend nodes (MPIWATCH_NODE_SIZE) watched by `mpiwatch --json`
# through its node leaders. Prints the client's connections, the ranks it
# heard from, whether its totals equal the report's, how long a stuck rank
# had been stuck when the client named it, and the client's CPU time per
# second of watching and the bytes it received per second, beside the same
# figures of a smaller job.
#
# See bench/README.md. Exit status: 0 when every count is right, 1 when a
# count is wrong (connections, ranks reported, totals, the stuck rank not
# named), 2 on an error (bad arguments, build failure, a run failing).
set -euo pipefail

PROG=$(basename "$0")
HERE=$(cd "$(dirname "$0")" && pwd)

usage() {
    cat <<EOF
usage: $PROG --mpi openmpi|mpich --lib PATH/libmpiwatch.so --client PATH/mpiwatch [options]

Runs bench/live_scale.c on RANKS ranks with MPIWATCH_NODE_SIZE=K, watched from
MPI_Init on (MPIWATCH_WAIT) by '--json --no-events --stuck STUCK_AFTER'
through the node leaders: SECONDS of traffic, then rank RANKS/2+1 (not a
leader) waits HOLD seconds in an MPI_Recv from rank 0 while the others wait
in MPI_Barrier, then the job ends. First the same on --compare-ranks ranks.

Printed per job: the client's connections (sockets it holds while the rank is
stuck, and the port file's node endpoints; at most ceil(RANKS/K)), the ranks
it heard hello and goodbye from, whether its totals equal the job's JSON
report (tests/monitor/compare_totals.py), the seconds the stuck rank had been
in its MPI_Recv when the client first named it stuck (the client's own
measure, its 'seconds' field), and the client's CPU time (user + system) per
second of watching, from the job's "running" to the client's end, and the
bytes it received per second of watching (its --record file). Times are
printed, not judged; the counts decide the exit status.

options:
  --mpi openmpi|mpich    which MPI (uses mpicc.MPI and mpirun.MPI)
  --lib PATH             the libmpiwatch.so to preload (copied once at the start)
  --client PATH          the mpiwatch client built for the same MPI
  --ranks N              ranks of the job (default 512)
  --node-size K          MPIWATCH_NODE_SIZE (default 32)
  --compare-ranks N      ranks of the job run first for comparison (default 64; 0: none)
  --seconds S            seconds of traffic (default 10)
  --hold S               seconds the stuck rank waits (default 10)
  --stuck-after S        the client's --stuck (default 2)
  --stall S              the client's --stall (default 600: starved ranks are slow to speak)
  --limit S              time limit of each job and of the client's --wait (default 3600)
  --monitor-nice N       MPIWATCH_MONITOR_NICE of the job (0 to 19; default: unset, 19):
                         0 on a machine with far more ranks than cores, where threads
                         niced below 512 spinning ranks hardly run
  --client-nice N        the client's --nice (0 to 19; default its own, 19): 0 where
                         the client shares the cores with the ranks, as here and
                         never on a cluster's login node
  --waiters spin|sleep   how the other ranks wait while one is stuck: in MPI_Barrier
                         (spin, the default: MPI busy-waits), or in an MPI_Ibarrier
                         tested between 100 ms sleeps (sleep: the cores left to the
                         monitor, as with one rank per core on a cluster)
  --keep                 keep the temporary directory (outputs, reports)
  -h, --help             this text

Run jobs of 128 ranks or more under 'lowcpu' on a shared machine.
EOF
}

die() { echo "$PROG: error: $*" >&2; exit 2; }
need_value() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value"; }
is_count() { [[ "$1" =~ ^[1-9][0-9]*$ ]]; }

MPI= LIB= CLIENT= RANKS=512 NODE_SIZE=32 COMPARE=64 SECONDS_T=10 HOLD=10 STUCK_AFTER=2
LIMIT=3600 STALL=600 KEEP=0 DO_CALLGRIND=0 MONITOR_NICE= WAITERS=spin CLIENT_NICE=
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --mpi) need_value "$@"; MPI=$2; shift 2 ;;
        --lib) need_value "$@"; LIB=$2; shift 2 ;;
        --client) need_value "$@"; CLIENT=$2; shift 2 ;;
        --ranks) need_value "$@"; is_count "$2" && (($2 >= 4)) || die "--ranks wants at least 4, got '$2'"; RANKS=$2; shift 2 ;;
        --node-size) need_value "$@"; is_count "$2" || die "--node-size wants a positive integer, got '$2'"; NODE_SIZE=$2; shift 2 ;;
        --compare-ranks) need_value "$@"; [[ $2 == 0 ]] || { is_count "$2" && (($2 >= 4)); } ||
                             die "--compare-ranks wants 0 or at least 4, got '$2'"; COMPARE=$2; shift 2 ;;
        --seconds) need_value "$@"; is_count "$2" || die "--seconds wants a positive integer, got '$2'"; SECONDS_T=$2; shift 2 ;;
        --hold) need_value "$@"; is_count "$2" || die "--hold wants a positive integer, got '$2'"; HOLD=$2; shift 2 ;;
        --stuck-after) need_value "$@"; is_count "$2" || die "--stuck-after wants a positive integer, got '$2'"; STUCK_AFTER=$2; shift 2 ;;
        --stall) need_value "$@"; is_count "$2" || die "--stall wants a positive integer, got '$2'"; STALL=$2; shift 2 ;;
        --limit) need_value "$@"; is_count "$2" || die "--limit wants a positive integer, got '$2'"; LIMIT=$2; shift 2 ;;
        --monitor-nice) need_value "$@"; [[ "$2" =~ ^[0-9]+$ ]] && (($2 <= 19)) ||
                            die "--monitor-nice wants 0 to 19, got '$2'"; MONITOR_NICE=$2; shift 2 ;;
        --client-nice) need_value "$@"; [[ "$2" =~ ^[0-9]+$ ]] && (($2 <= 19)) ||
                           die "--client-nice wants 0 to 19, got '$2'"; CLIENT_NICE=$2; shift 2 ;;
        --waiters) need_value "$@"; [[ "$2" == spin || "$2" == sleep ]] ||
                       die "--waiters wants spin or sleep, got '$2'"; WAITERS=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "$MPI" == openmpi || "$MPI" == mpich ]] || die "--mpi openmpi|mpich is required (see --help)"
[[ -f "$LIB" ]] || die "--lib: no library at '${LIB:-}' (see --help)"
[[ -x "$CLIENT" ]] || die "--client: no executable at '${CLIENT:-}' (see --help)"
((HOLD > STUCK_AFTER)) || die "--hold ($HOLD) must be longer than --stuck-after ($STUCK_AFTER)"
. "$HERE/common.sh"
need_mpi_tools

bench_workdir live-scale
cp -L "$LIB" "$TMP/libmpiwatch.so"
unset LD_PRELOAD MPIWATCH_LEVEL MPIWATCH_MONITOR MPIWATCH_WAIT MPIWATCH_NODE_SIZE \
    MPIWATCH_MONITOR_NICE 2>/dev/null || true
PROGRAM=$TMP/live_scale
"$MPICC" -std=c11 -O2 -Wall -Wextra -o "$PROGRAM" "$HERE/live_scale.c" >"$TMP/build.log" 2>&1 ||
    { cat "$TMP/build.log" >&2; die "building live_scale.c with $MPICC failed"; }
TICK=$(getconf CLK_TCK)

# cpu_seconds PID: the user + system CPU time of a live process (utime and
# stime, the 12th and 13th fields after the command name in /proc/PID/stat).
cpu_seconds() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || die "the client (pid $1) ended before the job ran"
    awk -v t="$TICK" '{printf "%.3f", ($12 + $13) / t}' <<<"${stat##*) }"
}

# start_client DIR ARGS...: the client in the background; DIR/client.pid is
# its pid, and at its end DIR/client.end holds its status, its CPU time in
# all and the time it ended (the epoch's seconds, as date +%s.%N).
start_client() {
    local dir=$1
    shift
    python3 -c 'import resource, subprocess, sys, time
p = subprocess.Popen(sys.argv[2:], stdout=open(sys.argv[1] + "/client.jsonl", "w"),
                     stderr=open(sys.argv[1] + "/client.err", "w"))
open(sys.argv[1] + "/client.pid", "w").write("%d\n" % p.pid)
rc = p.wait()
u = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1] + "/client.end", "w").write("%d %.3f %.3f\n" % (rc, u.ru_utime + u.ru_stime, time.time()))' \
        "$dir" "$CLIENT" "$@" &
    WRAPPER=$!
    for _ in $(seq 100); do [[ -s $dir/client.pid ]] && break; sleep 0.1; done
    [[ -s $dir/client.pid ]] || die "the client did not start"
}

BAD=0
# watch_job NP: one watched job; prints its row of figures; counts wrong set BAD.
watch_job() {
    local np=$1 dir=$TMP/np$1 stuck=$(($1 / 2 + 1))
    local nodes=$(((np + NODE_SIZE - 1) / NODE_SIZE))
    mkdir -p "$dir/out"
    local -a envs=(LD_PRELOAD="$TMP/libmpiwatch.so" MPIWATCH_OUTDIR="$dir/out"
                   MPIWATCH_MONITOR="file:$dir/ports" MPIWATCH_WAIT="$LIMIT"
                   MPIWATCH_NODE_SIZE="$NODE_SIZE")
    [[ -z $MONITOR_NICE ]] || envs+=(MPIWATCH_MONITOR_NICE="$MONITOR_NICE")
    local -a cmd
    if [[ $MPI == openmpi ]]; then
        cmd=(mpirun.openmpi --oversubscribe -np "$np")
        for e in "${envs[@]}"; do cmd+=(-x "$e"); done
    else
        cmd=(mpirun.mpich -n "$np")
        for e in "${envs[@]}"; do cmd+=(-genv "${e%%=*}" "${e#*=}"); done
    fi
    # --stall: on an oversubscribed machine a leader's ranks can go minutes
    # without the CPU to send their HELLO (the default 60 s lost all 512).
    start_client "$dir" --json --no-events --quiet --stuck "$STUCK_AFTER" --wait "$LIMIT" \
        --stall "$STALL" ${CLIENT_NICE:+--nice "$CLIENT_NICE"} --port-file "$dir/ports" \
        --record "$dir/client.rec"
    local client
    client=$(cat "$dir/client.pid")
    local t0=$SECONDS
    timeout "$LIMIT" "${cmd[@]}" "$PROGRAM" "$SECONDS_T" "$HOLD" "$stuck" "$WAITERS" \
        >"$dir/stdout" 2>"$dir/stderr" &
    local job=$!
    # Follow the job's markers: the client's CPU time at "running" (and at
    # its end), its sockets once the rank is stuck (the leaders all serving).
    local cpu0= wall0= sockets=
    while kill -0 "$job" 2>/dev/null; do
        if [[ -z $cpu0 ]] && grep -qs '^live_scale: running' "$dir/stdout"; then
            cpu0=$(cpu_seconds "$client"); wall0=$(date +%s.%N)
            echo "# $np ranks: running after $((SECONDS - t0)) s" >&2
        fi
        if [[ -z $sockets ]] && grep -qs "^live_scale: rank $stuck stuck" "$dir/stdout"; then
            sleep 1
            sockets=$(find "/proc/$client/fd" -lname 'socket:*' 2>/dev/null | wc -l)
            cp "$dir/ports" "$dir/ports.seen" 2>/dev/null || true   # the job removes it at its end
        fi
        sleep 0.2
    done
    local rc=0
    wait "$job" || rc=$?
    wait "$WRAPPER" || true
    local crc cpu1 wall1
    read -r crc cpu1 wall1 <"$dir/client.end" || die "the client's wrapper failed"
    if ((rc != 0)); then
        tail -n 20 "$dir/stderr" >&2
        die "the $np-rank job failed (status $rc; 124: its --limit of $LIMIT s) after $((SECONDS - t0)) s"
    fi
    [[ -n $cpu0 ]] || die "the $np-rank job did not print that it runs (see --keep)"
    local report
    report=$(ls "$dir"/out/mpiwatch-*.json 2>/dev/null | head -n 1)
    [[ -n $report ]] || die "the $np-rank job wrote no JSON report"
    local endpoints totals named
    endpoints=$(grep -c '^mpiwatch-endpoint [0-9]* [0-9]* [0-9]* node ' "$dir/ports.seen" 2>/dev/null || true)
    if python3 "$HERE/../tests/monitor/compare_totals.py" "$dir/client.jsonl" "$report" \
            --ranks "$np" >"$dir/compare.log" 2>&1; then
        totals=equal
    else
        totals=DIFFER; BAD=1
        sed "s/^/# $np ranks: /" "$dir/compare.log" | head -n 20 >&2
    fi
    read -r heard named < <(python3 - "$dir/client.jsonl" "$stuck" <<'PY'
import json, sys
hello, named = set(), "never"
for line in open(sys.argv[1], encoding="utf-8"):
    d = json.loads(line)
    if d.get("type") == "hello":
        hello.add(d["rank"])
    elif (d.get("type") == "inflight" and d["rank"] == int(sys.argv[2]) and d["stuck"]
          and d["function"] == "MPI_Recv" and d["peer"] == 0 and named == "never"):
        named = "%.3f" % d["seconds"]
print(len(hello), named)
PY
)
    ((crc == 0)) || { BAD=1; echo "# $np ranks: the client ended with status $crc" >&2; tail -n 5 "$dir/client.err" >&2; }
    ((${sockets:-0} >= 1 && sockets <= nodes && endpoints == nodes)) || BAD=1
    ((heard == np)) || BAD=1
    [[ $named != never ]] || BAD=1
    local received
    received=$(stat -c %s "$dir/client.rec" 2>/dev/null || echo 0)
    awk -v np="$np" -v k="$NODE_SIZE" -v s="${sockets:-?}" -v e="$endpoints" -v n="$nodes" \
        -v rb="$received" \
        -v h="$heard" -v t="$totals" -v st="$stuck" -v nm="$named" -v c0="$cpu0" -v c1="$cpu1" \
        -v w0="$wall0" -v w1="$wall1" 'BEGIN {
        printf "%6d %5d %8s/%-4d %9d %6d %8s %6d %10s %9.1f %11.4f %10.1f\n", np, k, s, n, e, h, t,
               st, nm, w1 - w0, (c1 - c0) / (w1 - w0), rb / 1024 / (w1 - w0) }'
}

echo "# mpiwatch live monitor at scale: live_scale.c, node leaders of $NODE_SIZE ranks"
echo "# mpi: $MPI; library: $LIB; client: $CLIENT"
echo "# $SECONDS_T s of traffic, then a rank stuck $HOLD s (client --stuck $STUCK_AFTER), the others waiting ($WAITERS)${MONITOR_NICE:+; MPIWATCH_MONITOR_NICE=$MONITOR_NICE}${CLIENT_NICE:+; client --nice $CLIENT_NICE}"
echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%6s %5s %13s %9s %6s %8s %6s %10s %9s %11s %10s\n' ranks K "sockets/max" endpoints heard \
    totals stuck "named at s" "watched s" "cpu s per s" "kB/s in"
((COMPARE > 0)) && watch_job "$COMPARE"
watch_job "$RANKS"
if ((BAD)); then
    echo "$PROG: a count is wrong (see above)" >&2
    exit 1
fi
