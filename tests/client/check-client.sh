#!/usr/bin/env bash
# The mpiwatch client end to end against fake ranks (fake_rank.c, no MPI),
# which serve the scripted streams of frames.c over TCP on 127.0.0.1:
# - a port file whose ranks all refuse: it looks stale, the client says so;
# - ranks that stay silent, stop after HELLO or drip a frame: lost after
#   --stall; escape sequences in a rank's names never reach the terminal;
# - 3 ranks in a port file that does not exist yet when the client starts,
#   one of them listening only 1 s after publishing: --json totals exact,
#   every hello/event/goodbye line there, exit 0; its --record replayed
#   gives the same lines;
# - standard input with other output mixed in (--stdin), the text view;
# - a rank that stops without GOODBYE, a rank that refuses the client (a
#   wrong token published), a rank never reached: lost, exit 1;
# - priority: a client that is idle (waiting for a port file) keeps its
#   parent's priority; one decoding a flood of events (a fake rank's flood
#   scenario) lowers it by 19 (--nice's default), by 7 with --nice 7, and
#   not at all with --nice 0; and by 19 when a crowded core gives it too
#   little CPU to count as busy by its CPU time (starved: pinned beside two
#   spinners at nice -15): the backlog it cannot decode counts;
# - calls in progress (INFLIGHT): 4 ranks, rank 1 in MPI_Recv from 3 tag 99
#   and the others in MPI_Barrier: with --stuck 2 the stuck summary (cycle
#   [1,3], rank 1 waited on); two ranks in MPI_Ssend to each other,
#   attached 5 s into the hang: the cycle (how soon each summary came is a
#   figure, never a verdict: see tests/lib/tap.sh); a rank that drops
#   keeps its last call and totals, in JSON and in the text view;
# - rates and the communication matrix: 3 ranks each sending two
#   SNAPSHOTs 0.5 s apart and their PAIRS rows: the rates lines and the
#   last matrix line exactly as the frames imply, a destination outside the
#   job left out; the text view's rate columns, --rank and --matrix panels;
#   20 ranks: the matrix summed in blocks;
# - usage errors exit 2 (--matrix-file, --merge and --dump with what they do not
#   take too), a bad port file names file:line, --merge of a folder without
#   partial profiles exits 1.
set -u
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
client="$top_builddir/mpiwatch"
fake="$top_builddir/tests/client/fake_rank"
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    keep_work
}
trap cleanup EXIT
# fake DIR RANK SIZE [options]: start a fake rank in the background.
fake() {
    local dir=$1 rank=$2 size=$3
    shift 3
    "$fake" "$rank" "$size" "$dir/ports" "$@" >"$dir/fake$rank.out" 2>"$dir/fake$rank.err" &
    pids+=($!)
    eval "fake_pid_$rank=$!"
}
# The totals of frames.c's script over ranks 0..2 (k = rank + 1 sums to 6).
totals3='{"type":"totals","ranks":3,"finished":3,"lost":[],"functions":{"MPI_Barrier":{"calls":6,"time":0.000001500,"bytes_sent":0,"bytes_recv":0},"MPI_Finalize":{"calls":3,"time":0.000000000,"bytes_sent":0,"bytes_recv":0},"MPI_Init":{"calls":3,"time":0.006000000,"bytes_sent":0,"bytes_recv":0},"MPI_Recv":{"calls":60,"time":0.000018000,"bytes_sent":0,"bytes_recv":480},"MPI_Send":{"calls":60,"time":0.000012000,"bytes_sent":480,"bytes_recv":0}},"events":{"received":18,"dropped":3,"unwatched":15}}'

# --- three ranks, late port file, one late listener, --json and --record
d="$work/three"; mkdir -p "$d"
timeout 60 "$client" --json --wait 20 --record "$d/rec" -f "$d/ports" >"$d/out" 2>"$d/err" &
cpid=$!
sleep 1
fake "$d" 0 3
fake "$d" 1 3 --listen-delay 1
fake "$d" 2 3
wait "$cpid"; rc=$?
for p in "$fake_pid_0" "$fake_pid_1" "$fake_pid_2"; do wait "$p" || fail "three" "a fake rank failed" "$d"/fake*.err; done
if [ "$rc" -ne 0 ]; then
    fail "three ranks" "exit $rc, not 0" "$d/err" "$d/out"
elif [ "$(tail -n 1 "$d/out")" != "$totals3" ]; then
    fail "three ranks" "the totals line differs:
    got  $(tail -n 1 "$d/out")
    want $totals3"
elif [ "$(grep -c '"type":"event"' "$d/out")" -ne 18 ] || [ "$(grep -c '"type":"hello"' "$d/out")" -ne 3 ] \
    || [ "$(grep -c '"type":"goodbye"' "$d/out")" -ne 3 ] || [ "$(grep -c '"type":"level"' "$d/out")" -ne 6 ] \
    || [ "$(grep -c '"type":"snapshot"' "$d/out")" -ne 6 ] || grep -q '"type":"lost"' "$d/out"; then
    fail "three ranks" "wrong numbers of lines per type" "$d/out"
elif ! grep -q '"type":"event","rank":1,"function":"MPI_Send","thread":0,"t_in":0.000001000,"t_out":0.000001400,"peer":2,"tag":7,"comm":0,"bytes_sent":16,"bytes_recv":0}' "$d/out"; then
    fail "three ranks" "rank 1's MPI_Send event is not as sent" "$d/out"
else
    pass "three ranks: late port file, late listener, exact JSON totals"
fi
"$client" --json --replay "$d/rec" >"$d/replay" 2>"$d/replay.err"; rc=$?
if [ "$rc" -ne 0 ] || ! cmp -s "$d/out" "$d/replay"; then
    fail "record/replay" "exit $rc, or the replay's lines differ from the live ones" "$d/replay.err" "$d/replay"
else
    pass "record/replay: the same JSON lines"
fi
"$client" --json --no-events --replay "$d/rec" >"$d/noev" 2>&1
if grep -q '"type":"event"' "$d/noev" || [ "$(tail -n 1 "$d/noev")" != "$totals3" ]; then
    fail "--no-events" "event lines present or totals differ" "$d/noev"
else
    pass "--no-events"
fi
head -c 2000 "$d/rec" >"$d/rec.cut"
"$client" --json --replay "$d/rec.cut" >"$d/cut.out" 2>"$d/cut.err"; rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "rec.cut: byte [0-9]*: the recording ends in the middle" "$d/cut.err"; then
    fail "cut recording" "exit $rc, or no clear message" "$d/cut.err"
else
    pass "cut recording: exit 1 with its offset"
fi

# --- standard input, with the program's own output mixed in; text view
d="$work/stdin"; mkdir -p "$d"
fake "$d" 0 2
fake "$d" 1 2
for i in 1 2 3 4 5 6 7 8 9 10; do
    [ "$( { tr -d '\0' <"$d/ports"; } 2>/dev/null | grep -c endpoint)" -eq 2 ] && break
    sleep 0.2
done
{ echo "the program starts"; tr -d '\0' <"$d/ports"; echo "the program ends"; } \
    | timeout 30 "$client" --stdin --wait 10 >"$d/out" 2>"$d/err"; rc=$?
if [ "$rc" -ne 0 ]; then
    fail "stdin" "exit $rc" "$d/err" "$d/out"
elif ! grep -q "^the program starts$" "$d/err" || ! grep -q "^the program ends$" "$d/err"; then
    fail "stdin" "the program's lines were not passed on to stderr" "$d/err"
elif ! grep -q "final summary" "$d/out" || ! grep -Eq "^MPI_Send +30 " "$d/out" \
    || ! grep -Eq "^1 +finished +fakehost" "$d/out"; then
    fail "stdin" "the text summary lacks the totals" "$d/out"
else
    pass "stdin and the text view"
fi

# --- lost ranks: no GOODBYE, refused (wrong token published), never reached
d="$work/lost"; mkdir -p "$d"
fake "$d" 0 3
fake "$d" 1 3 --scenario lost
fake "$d" 2 3 --publish-token ffffffffffffffffffffffffffffffff
timeout 60 "$client" --json --wait 10 -f "$d/ports" >"$d/out" 2>"$d/err"; rc=$?
wait "$fake_pid_2"; frc=$?
last=$(tail -n 1 "$d/out")
if [ "$rc" -ne 1 ]; then
    fail "lost" "exit $rc, not 1" "$d/err" "$d/out"
elif [ "$frc" -ne 3 ]; then
    fail "lost" "the refusing rank did not see a wrong token (exit $frc)" "$d/fake2.err"
elif ! grep -q '{"type":"lost","rank":1,"endpoint":"tcp://127.0.0.1:[0-9]*","reason":"the rank closed the connection, without GOODBYE"}' "$d/out" \
    || ! grep -q '{"type":"lost","rank":2,.*"reason":"the rank closed the connection before HELLO' "$d/out"; then
    fail "lost" "the lost lines are not as expected" "$d/out"
elif ! echo "$last" | grep -q '^{"type":"totals","ranks":3,"finished":1,"lost":\[1,2\],.*"MPI_Send":{"calls":11,'; then
    fail "lost" "totals: $last"
else
    pass "lost ranks: no GOODBYE and refused, exit 1"
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
timeout 30 "$client" --json --wait 1 "tcp://127.0.0.1:$port/0123456789abcdef0123456789abcdef" >"$d/none" 2>&1; rc=$?
if [ "$rc" -ne 1 ] || ! grep -q '"type":"lost","rank":null,.*"reason":"not reached within 1 s (--wait): Connection refused"' "$d/none"; then
    fail "never reached" "exit $rc" "$d/none"
else
    pass "a rank never reached: lost after --wait, exit 1"
fi
# Broken ranks: one stays silent after the token, one stops after HELLO, one
# drips a frame a byte every 0.5 s. With --stall 2 each is lost within a few
# seconds, naming why, and the client ends (exit 1). How soon is a figure
# (target: 10 s), not a verdict: the 30 s guard only catches a hang.
d="$work/stall"; mkdir -p "$d"
for r in 0 1 2; do
    scenario=$(echo silent mute drip | cut -d' ' -f$((r + 1)))
    "$fake" "$r" 3 "$d/ports" --scenario "$scenario" >"$d/fake$r.out" 2>&1 &
    pids+=($!)
done
start=$(date +%s.%N)
timeout 30 "$client" --json --wait 10 --stall 2 -f "$d/ports" >"$d/out" 2>"$d/err"; rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
figure client.stall_lost_s "$took" s "<=10"
if [ "$rc" -eq 1 ] &&
   grep -q '"type":"lost","rank":0,.*"reason":"no HELLO within 2 s of connecting (--stall)"' "$d/out" &&
   grep -q '"type":"lost","rank":1,.*"reason":"no frame for 2 s (--stall)"' "$d/out" &&
   grep -q '"type":"lost","rank":2,.*"reason":"a frame stayed unfinished for 2 s (--stall)"' "$d/out"; then
    pass "stalled ranks (silent, mute after HELLO, dripping): lost after --stall 2 in ${took} s, exit 1"
else
    fail "stalled ranks" "exit $rc after ${took} s; the lost lines are not as expected" "$d/out" "$d/err"
fi

# A rank whose HELLO carries terminal escape sequences in its host, program
# and function names: the text view prints them made harmless ('?').
d="$work/evil"; mkdir -p "$d"
"$fake" 0 1 "$d/ports" --scenario evil >"$d/fake.out" 2>&1 &
pids+=($!)
timeout 30 "$client" --wait 10 -f "$d/ports" >"$d/out" 2>"$d/err"; rc=$?
controls=$(cat "$d/out" "$d/err" | LC_ALL=C tr -d '\n -~' | wc -c)
if [ "$rc" -eq 0 ] && [ "$controls" -eq 0 ] &&
   grep -q '^mpiwatch: ?\[2J?\[Hprog?31m' "$d/out" && grep -q '^MPI_?\[2JSend ' "$d/out" &&
   grep -q '?]0;pwned?host' "$d/out"; then
    pass "escape sequences from the wire reach the terminal as '?'"
else
    fail "escape sequences" "exit $rc, $controls control bytes in the output" "$d/out" "$d/err"
fi

# A port file left by a job that ended: every rank refuses; the client says
# the file looks stale, with its age.
printf 'mpiwatch-endpoint 1 0 2 tcp 127.0.0.1 %s 0123456789abcdef0123456789abcdef\nmpiwatch-endpoint 1 1 2 tcp 127.0.0.1 %s 0123456789abcdef0123456789abcdef\n' \
    "$port" "$port" >"$d/stale-ports"
touch -d '-3 minutes' "$d/stale-ports"
timeout 30 "$client" --json --wait 1 -f "$d/stale-ports" >"$d/stale" 2>"$d/stale.err"; rc=$?
if [ "$rc" -eq 1 ] && grep -q "^mpiwatch: every rank refused the connection: the port file $d/stale-ports looks stale (written 3 minutes ago)" "$d/stale.err"; then
    pass "a stale port file: every rank refused, the client says the file looks stale and its age"
else
    fail "stale port file" "exit $rc, no 'looks stale (written 3 minutes ago)' line" "$d/stale.err"
fi

# --- priority: cheap while idle, lowered once busy (client/priority.h)
d="$work/nice"; mkdir -p "$d"
# nice_case WANT idle|flood [OPTIONS]: the client's nice value 2.5 s into a
# watch of nothing (a port file that never comes) or of a flooding fake rank;
# a value to be lowered to is waited for while the client runs (a loaded
# machine may start the flood late; 30 s guard only against a hang).
# starved: the client pinned to CPU 0 beside two spinners at nice -15 there
# (it gets about 2% of that core, less than the 5% that counts as busy) and
# the flooding fake rank on CPU 1: only the backlog the client cannot decode
# says that it is busy (client/priority.h).
nice_case() {
    local want=$1 what=$2 pid got end=$((SECONDS + 30)) pin="" spinners=() cpu0 wall0 share
    shift 2
    rm -f "$d/ports"
    if [ "$what" = starved ]; then
        pin="taskset -c 0"
        for _ in 1 2; do
            nice -n -15 taskset -c 0 sh -c 'while :; do :; done' &
            spinners+=($!)
            pids+=($!)
        done
        taskset -c 1 "$fake" 0 1 "$d/ports" --scenario flood --hold 10 >"$d/fake0.out" 2>"$d/fake0.err" &
        fake_pid_0=$!
        pids+=($!)
    fi
    [ "$what" = flood ] && fake "$d" 0 1 --scenario flood --hold 10
    $pin "$client" "$@" --json --wait 30 -f "$d/$( [ "$what" = idle ] && echo never || echo ports)" \
        >/dev/null 2>"$d/err" &
    pid=$!
    wall0=$(date +%s.%N)
    pids+=("$pid")
    sleep 2.5
    got=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f17)
    while [ "$want" != "$base" ] && [ "$got" != "$want" ] && [ "$SECONDS" -lt "$end" ] &&
          kill -0 "$pid" 2>/dev/null; do
        sleep 0.2
        got=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f17)
    done
    local gone=""
    kill -0 "$pid" 2>/dev/null || gone=" (the client had ended by itself)"
    share=$(awk -v w0="$wall0" -v w1="$(date +%s.%N)" -v hz="$(getconf CLK_TCK)" \
                '{ printf "%.1f", 100 * ($13 + $14) / hz / (w1 - w0) }' \
                <(sed 's/.*) /x /' "/proc/$pid/stat" 2>/dev/null))
    [ ${#spinners[@]} -gt 0 ] && kill "${spinners[@]}" 2>/dev/null
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    local rc=$? frc=""
    if [ "$what" != idle ]; then
        wait "$fake_pid_0" 2>/dev/null
        frc=", the fake rank's $?"
    fi
    if [ "$got" = "$want" ]; then
        pass "priority $what ${*:-(default)}: nice $want${share:+ (the client used $share% of a core)}"
    else
        fail "priority $what ${*:-(default)}" \
            "nice '${got:-unknown}', expected $want$gone; client status $rc$frc" \
            "$d/err" "$d/fake0.err"
    fi
}
base=$(nice)
nice_case "$base" idle
nice_case $((base + 19 > 19 ? 19 : base + 19)) flood
nice_case "$base" flood --nice 0
nice_case $((base + 7 > 19 ? 19 : base + 7)) flood --nice 7
if [ "$base" -ge 19 ] || ! nice -n -15 true 2>/dev/null || ! taskset -c 1 true 2>/dev/null; then
    skip "priority starved" "needs two CPUs, a nice value below 19 and the right to lower it (root)"
else
    nice_case $((base + 19 > 19 ? 19 : base + 19)) starved
fi

# --- calls in progress and stuck ranks (INFLIGHT frames, --stuck)
# stamp T0: each line of standard input, prefixed with the seconds since T0
# (date +%s.%N, taken before the client starts).
stamp() {
    python3 -u -c 'import sys, time
t0 = float(sys.argv[1])
for l in sys.stdin:
    sys.stdout.write("%.2f %s" % (time.time() - t0, l))' "$1"
}
# first_at FILE PATTERN: the time stamp of the first line matching PATTERN, or none.
first_at() {
    local t
    t=$(grep -F -m 1 -- "$2" "$1" | cut -d' ' -f1)
    echo "${t:-none}"
}
world4="-1 -1 12 -1 0 4"    # a collective (4) on a world communicator (8) of 4 ranks
# (a) Rank 1 blocks in MPI_Recv from 3, tag 99, while 0, 2 and 3 wait in
# MPI_Barrier; the hang starts as the client attaches. With --stuck 2 the
# summary names the cycle [1,3] and rank 1 waited on by the barrier (how
# soon is a figure, target 3 s: the ranks' frames carry their own clocks, so
# the verdict does not depend on how busy the machine is). The ranks then end
# (GOODBYE): no call is left in progress.
d="$work/stuck"; mkdir -p "$d"
for r in 0 2 3; do fake "$d" "$r" 4 --scenario inflight --call "MPI_Barrier $world4" --call-age 0 --hold 4; done
fake "$d" 1 4 --scenario inflight --call "MPI_Recv 3 99 2 -1 0 4" --call-age 0 --hold 4
t0=$(date +%s.%N)
timeout 30 "$client" --json --stuck 2 --wait 10 -f "$d/ports" 2>"$d/err" | stamp "$t0" >"$d/out"
rc=${PIPESTATUS[0]}
summary='{"type":"stuck","after":2,"ranks":[0,1,2,3],"cycles":[[1,3]],"waited_on":[{"rank":1,"waiters":[0,2,3]},{"rank":3,"waiters":[1]}],"edges":[[0,1],[1,3],[2,1],[3,1]],"edges_total":4}'
recv='{"type":"inflight","rank":1,"status":"attached","thread":0,"function":"MPI_Recv","peer":3,"tag":99,"root":null,"comm":0,"comm_size":4,"seconds":'
t=$(first_at "$d/out" "$summary")
figure client.stuck_summary_s "$t" s "<=3"
if [ "$rc" -ne 0 ]; then
    fail "stuck: recv and barrier" "exit $rc, not 0" "$d/err" "$d/out"
elif ! grep -qF -- "$recv" "$d/out" || ! grep -F -- "$recv" "$d/out" | grep -q '"stuck":true}$'; then
    fail "stuck: recv and barrier" "no stuck inflight line for rank 1's MPI_Recv from 3, tag 99" "$d/out"
elif [ "$t" = none ]; then
    fail "stuck: recv and barrier" "no stuck summary naming the cycle [1,3] and rank 1 waited on" "$d/out"
elif [ "$(tail -n 1 "$d/out" | cut -d' ' -f2- | cut -c1-17)" != '{"type":"totals",' ] \
    || tail -n 2 "$d/out" | grep -q '"type":"inflight"'; then
    fail "stuck: recv and barrier" "calls still shown after GOODBYE, or the totals are not last" "$d/out"
else
    pass "stuck: MPI_Recv from 3 tag 99 against a barrier: cycle [1,3], rank 1 waited on, after $t s (--stuck 2)"
fi
# (b) + (c) Two ranks in MPI_Ssend to each other, attached 5 s after the
# hang began: the cycle [0,1] at once (a figure, target 1.5 s).
d="$work/ssend"; mkdir -p "$d"
fake "$d" 0 2 --scenario inflight --call "MPI_Ssend 1 5 1 -1 0 2" --call-age 5 --hold 2.5
fake "$d" 1 2 --scenario inflight --call "MPI_Ssend 0 5 1 -1 0 2" --call-age 5 --hold 2.5
t0=$(date +%s.%N)
timeout 30 "$client" --json --stuck 2 --wait 10 -f "$d/ports" 2>"$d/err" | stamp "$t0" >"$d/out"
rc=${PIPESTATUS[0]}
summary='{"type":"stuck","after":2,"ranks":[0,1],"cycles":[[0,1]],"waited_on":[{"rank":0,"waiters":[1]},{"rank":1,"waiters":[0]}],"edges":[[0,1],[1,0]],"edges_total":2}'
t=$(first_at "$d/out" "$summary")
figure client.stuck_cycle_s "$t" s "<=1.5"
if [ "$rc" -ne 0 ] || [ "$t" = none ] \
    || ! grep -qF '{"type":"inflight","rank":0,"status":"attached","thread":0,"function":"MPI_Ssend","peer":1,"tag":5,' "$d/out"; then
    fail "stuck: ssend cycle" "exit $rc, or no stuck summary naming the cycle [0,1]" "$d/out" "$d/err"
else
    pass "stuck: two ranks in MPI_Ssend to each other, attached 5 s late: cycle [0,1] after $t s"
fi
# A rank whose connection drops keeps its last totals and call in progress:
# JSON (an inflight line with "status":"lost" before the totals) and the
# text view's final summary.
d="$work/dropped"; mkdir -p "$d"
fake "$d" 0 2 --scenario inflight-lost --call "MPI_Recv 1 7 2 -1 0 2" --call-age 0 --hold 1.5
fake "$d" 1 2 --scenario inflight --call "MPI_Barrier -1 -1 12 -1 0 2" --call-age 0 --hold 1
timeout 30 "$client" --json --stuck 1 --wait 10 -f "$d/ports" >"$d/out" 2>"$d/err"; rc=$?
lost_line=$(grep -n '"type":"lost","rank":0,' "$d/out" | cut -d: -f1)
call_line=$(grep -n '{"type":"inflight","rank":0,"status":"lost","thread":0,"function":"MPI_Recv","peer":1,"tag":7,' "$d/out" | tail -n 1 | cut -d: -f1)
if [ "$rc" -ne 1 ] || [ -z "$lost_line" ] || [ -z "$call_line" ] || [ "$call_line" -le "$lost_line" ] \
    || ! tail -n 1 "$d/out" | grep -q '^{"type":"totals","ranks":2,"finished":1,"lost":\[0\],"functions":{"MPI_Init":{"calls":2,'; then
    fail "dropped rank, JSON" "exit $rc; no inflight line with status lost after the lost line" "$d/out"
else
    pass "a dropped rank keeps its last call in progress and totals (JSON)"
fi
d="$work/dropped-tty"; mkdir -p "$d"
fake "$d" 0 2 --scenario inflight-lost --call "MPI_Recv 1 7 2 -1 0 2" --call-age 3 --hold 1.5
fake "$d" 1 2 --scenario inflight --call "MPI_Barrier -1 -1 12 -1 0 2" --call-age 0 --hold 1
timeout 30 "$client" --stuck 2 --wait 10 -f "$d/ports" >"$d/out" 2>"$d/err"; rc=$?
if [ "$rc" -eq 1 ] && grep -Eq '^0 +lost +fakehost +0\.001000 +1 +- +- +- +- +0 +0  MPI_Recv from 1 tag 7, [0-9.]+ s STUCK$' "$d/out" \
    && grep -q 'the rank closed the connection, without GOODBYE' "$d/out" \
    && grep -q '^WAITING: 1 rank(s) in a call for over 2 s: 0$' "$d/out" \
    && grep -q '^  rank 1 is waited for by 1: 0$' "$d/out"; then
    pass "a dropped rank keeps its last call, totals and the waiting panel (text view)"
else
    fail "dropped rank, text view" "exit $rc; the final summary lacks rank 0's call or the panel" "$d/out"
fi

# --- rates over the last interval and the communication matrix (PAIRS)
# fake_rank.c's rates_script(): rank r (k = r + 1) makes, in the 0.5 s
# between its snapshots, 100k MPI_Send calls/s (time share 0.1k, 16000k
# bytes/s) and 50k MPI_Recv calls/s (0.2, 16000k bytes/s); its row: 9000k
# bytes in 60k messages to r + 1, 3 empty messages to r + 2, and a rank
# outside the job (ignored).
d="$work/rates"; mkdir -p "$d"
for r in 0 1 2; do fake "$d" "$r" 3 --scenario rates; done
timeout 30 "$client" --json --no-events --wait 10 -f "$d/ports" >"$d/out" 2>"$d/err"; rc=$?
rates_line() { # RANK K FIRST SECOND: the expected rates line of rank RANK
    local k=$2
    printf '{"type":"rates","rank":%d,"interval":0.500000000,"calls_per_s":%d.000,"mpi_share":0.%d00000,"sent_per_s":%d.000,"recv_per_s":%d.000,"functions":[%s,%s]}' \
        "$1" $((150 * k)) $((k + 2)) $((16000 * k)) $((16000 * k)) "$3" "$4"
}
send_fn() { printf '{"function":"MPI_Send","calls_per_s":%d.000,"time_share":0.%d00000,"sent_per_s":%d.000,"recv_per_s":0.000}' $((100 * $1)) "$1" $((16000 * $1)); }
recv_fn() { printf '{"function":"MPI_Recv","calls_per_s":%d.000,"time_share":0.200000,"sent_per_s":0.000,"recv_per_s":%d.000}' $((50 * $1)) $((16000 * $1)); }
matrix='{"type":"matrix","ranks":3,"pairs":[[0,1,9000,60],[0,2,0,3],[1,0,0,3],[1,2,18000,120],[2,0,27000,180],[2,1,0,3]],"pairs_total":6}'
ok=1
for want in "$(rates_line 0 1 "$(recv_fn 1)" "$(send_fn 1)")" "$(rates_line 1 2 "$(send_fn 2)" "$(recv_fn 2)")" \
            "$(rates_line 2 3 "$(send_fn 3)" "$(recv_fn 3)")"; do
    grep -qxF -- "$want" "$d/out" || { ok=0; echo "    missing: $want"; }
done
if [ "$rc" -ne 0 ] || [ "$ok" -ne 1 ]; then
    fail "rates" "exit $rc, or the rates lines are not as the frames imply" "$d/out" "$d/err"
elif [ "$(grep -c '"type":"rates"' "$d/out")" -ne 3 ] || [ "$(tail -n 2 "$d/out" | head -n 1)" != "$matrix" ] \
    || ! grep -q '"type":"matrix"' <(head -n -2 "$d/out"); then
    fail "matrix" "not 3 rates lines, or the matrix lines are not as the frames imply:
    want $matrix before the totals, and one while the ranks run" "$d/out"
else
    pass "rates per rank and function, and the matrix, exactly as the frames imply (JSON)"
fi
# The text view: rate columns, the --rank panel and the matrix, in the
# final summary (standard output is not a terminal).
d="$work/rates-tty"; mkdir -p "$d"
for r in 0 1 2; do fake "$d" "$r" 3 --scenario rates; done
timeout 30 "$client" --rank 2 --matrix --wait 10 -f "$d/ports" >"$d/out" 2>"$d/err"; rc=$?
if [ "$rc" -eq 0 ] && grep -Eq '^1 +finished +fakehost +[0-9.]+ +[0-9]+ +300\.0 +40\.0% +31\.2 KiB/s +31\.2 KiB/s ' "$d/out" \
    && grep -q '^RANK 2 (finished) by function, over its last 0.5 s: 450.0 calls/s, MPI 50.0%, sent 46.9 KiB/s, received 46.9 KiB/s$' "$d/out" \
    && grep -Eq '^MPI_Send +300\.0 +30\.0% +46\.9 KiB/s +0 B/s +180 +0\.180000 +26\.4 KiB +0 B$' "$d/out" \
    && grep -q '^MATRIX: bytes sent so far, from the row.s rank to the column.s$' "$d/out" \
    && grep -Eq '^FROM.TO +0 +1 +2$' "$d/out" && grep -Eq '^1 +\. +\. +17\.6K$' "$d/out"; then
    pass "the text view's rate columns, --rank and --matrix panels"
else
    fail "rates, text view" "exit $rc; the rate columns or the panels are not as expected" "$d/out" "$d/err"
fi
# 20 ranks do not fit the summary's 132 columns: blocks of 2.
d="$work/blocks"; mkdir -p "$d"
for r in $(seq 0 19); do fake "$d" "$r" 20 --scenario rates; done
timeout 60 "$client" --matrix --wait 20 -f "$d/ports" >"$d/out" 2>"$d/err"; rc=$?
if [ "$rc" -eq 0 ] && grep -q '^MATRIX: .*20 ranks do not fit: summed in blocks of 2 ' "$d/out" \
    && grep -Eq '^FROM.TO +0 +2 +4 .* 18$' "$d/out" && grep -Eq '^0-1 +8\.8K +17\.6K +\. ' "$d/out" \
    && grep -Eq '^18-19 +176K +\. .* 167K$' "$d/out"; then
    pass "20 ranks: the matrix summed in blocks of 2"
else
    fail "matrix blocks" "exit $rc; no matrix in blocks of 2" "$d/out" "$d/err"
fi

# --- usage errors and bad input
d="$work/usage"; mkdir -p "$d"
check_rc() { # CASE WANT-RC PATTERN -- ARGS
    local case=$1 want=$2 pat=$3 rc
    shift 4
    timeout 30 "$client" "$@" >"$d/out" 2>&1 </dev/null; rc=$?
    if [ "$rc" -ne "$want" ] || ! grep -q -- "$pat" "$d/out"; then
        fail "$case" "exit $rc (want $want), or no \"$pat\"" "$d/out"
    else
        pass "$case"
    fi
}
check_rc "no endpoints" 2 "give the endpoints" --
check_rc "bad option" 2 "unknown option --bogus" -- --bogus
check_rc "two sources" 2 "only one of" -- --stdin -f x
check_rc "bad url" 2 "argument 1:.*TOKEN is not 32" -- tcp://h:1/xyz
check_rc "bad wait" 2 "--wait abc" -- --wait abc -f x
check_rc "bad stuck" 2 "--stuck 0: give a number of seconds above 0" -- --stuck 0 -f x
check_rc "bad stuck value" 2 "--stuck 2s: give a number of seconds above 0" -- --stuck 2s -f x
check_rc "bad nice" 2 "--nice 20: give a whole number from 0 to 19" -- --nice 20 -f x
check_rc "bad rank" 2 "--rank -1: give a rank, a whole number from 0" -- --rank -1 -f x
check_rc "bad rank value" 2 "--rank 1x: give a rank, a whole number from 0" -- --rank 1x -f x
check_rc "rank and json" 2 "--rank goes with the terminal view" -- --json --rank 1 -f x
check_rc "matrix and json" 2 "--matrix goes with the terminal view" -- --matrix --json -f x
check_rc "matrix-file and json" 2 "--matrix-file prints a file.s pairs: no other option" -- --matrix-file x --json
check_rc "merge and another option" 2 "--merge DIR writes a report: no other option" -- --merge x --json
check_rc "dump without endpoints" 2 "--dump needs the endpoints" -- --dump
check_rc "dump and another option" 2 "--dump asks for partial profiles: no other option" -- --dump --json -f x
if [ "$MW_HAVE_JANSSON" = yes ]; then
    check_rc "merge of a missing folder" 1 "$d/nothing" -- --merge "$d/nothing"
    check_rc "merge of a folder without partial profiles" 1 "no partial profile" -- --merge "$d"
else
    check_rc "merge without libjansson" 1 "install libjansson-dev" -- --merge "$d"
fi
check_rc "help" 0 "usage: mpiwatch" -- --help
check_rc "help lists the panels" 0 "--matrix  *add a panel with the communication matrix" -- --help
printf 'mpiwatch-endpoint 1 0 2 tcp h 1 0123456789abcdef0123456789abcdef\nmpiwatch-endpoint 1 1 2 tcp h 99999 0123456789abcdef0123456789abcdef\n' >"$d/bad-ports"
check_rc "bad port file" 1 "bad-ports:2: PORT \"99999\"" -- --wait 5 -f "$d/bad-ports"
check_rc "missing port file" 1 "does not exist after 0.5 s" -- --wait 0.5 -f "$d/nothing"
check_rc "not a recording" 1 "not an mpiwatch recording" -- --replay "$d/bad-ports"

finish
