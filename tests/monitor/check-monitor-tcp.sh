#!/usr/bin/env bash
# The live monitor's TCP transport, seen by a raw client (raw_client.py,
# docs/protocol.md), with ring.c linked with libmpiwatch on 4 ranks and
# --port-in-file:
#
# - totals: MPIWATCH_WAIT holds MPI_Init until the client (started 2 s
#   late) has attached: rank 0 says it waits, the run takes at least 2 s,
#   the first SNAPSHOTs are empty; the final SNAPSHOTs summed over the
#   ranks equal the JSON report's functions (compare.py); every call has
#   its event; the port file is owner-only; the output is the bare run's;
#   each rank, in another call at every look, sent INFLIGHT frames at most
#   once a second (the interval), not at every 5 ms tick;
# - clock_gettime: the same comparison with MPIWATCH_TIMER=clock_gettime,
#   whose wrappers queue their events out of line (the other case's go
#   inline, with the TSC);
# - wrong-token: a client with a wrong token is refused by every rank,
#   which says so on stderr with the client's address; a right client then
#   gets everything;
# - flood: with 20 silent and 30 garbage connections per rank (flood.py) the
#   real client still gets every rank's HELLO (how soon is a figure, target
#   2 s), and refusals are rate-limited;
# - sleeper: a client that reads nothing for 28 s while busy.c runs leaves
#   each rank's RSS flat once its output's designed cap is reached; the
#   report counts the snapshots held back;
# - killed: a client that dies abruptly mid-run changes nothing: exit 0,
#   the bare run's output, and the report's counters still add up.
name=monitor-tcp
. "$(dirname "$0")/../lib/harness.sh"

NP=4
mon_dir="$top_srcdir/tests/monitor"
client="$mon_dir/raw_client.py"
build "$mon_dir/ring.c" "$work/ring-bare" plain
build "$mon_dir/ring.c" "$work/ring" linked
build "$mon_dir/busy.c" "$work/busy" linked

for args in "2000 0" "3000 1000"; do
    dir="$work/bare-${args// /-}"
    run "$dir" "$NP" bare -- "$work/ring-bare" $args
    if [ "$(rc_of "$dir")" -ne 0 ]; then
        fail "bare ring $args" "the program fails without mpiwatch: $(describe_rc "$(rc_of "$dir")")" \
            "$dir/stdout" "$dir/stderr"
        finish
    fi
done

# compare CASE DIR [--attached-from-start]: the client's view against the report.
compare() {
    local case=$1 dir=$2 report
    shift 2
    report=$(reports "$dir/cwd" 'mpiwatch-*.json')
    if [ "$(printf '%s\n' "$report" | grep -c .)" -ne 1 ]; then
        fail "$case: report" "expected one JSON report, found: ${report:-none}"
    elif "$PYTHON" "$mon_dir/compare.py" "$dir/client.json" "$dir/cwd/$report" "$@" \
            >"$dir/compare.log" 2>&1; then
        pass "$case: the final snapshots equal the report"
    else
        fail "$case: snapshots and report" "they differ" "$dir/compare.log" "$dir/client.err"
    fi
}

# ---------------------------------------------------------------- totals
dir="$work/totals"
mkdir -p "$dir/cwd"
("$PYTHON" "$client" "$dir/cwd/ports" --delay 2 --timeout 50 >"$dir/client.json" 2>"$dir/client.err") &
cpid=$!
start=$(date +%s.%N)
keep_copy "$dir/cwd/ports" "$dir/ports.seen"
run "$dir" "$NP" linked MPIWATCH_WAIT=30 -- "$work/ring" 2000 0 --port-in-file "$dir/cwd/ports"
end=$(date +%s.%N)
wait "$cpid" "$keep_pid"
if same_output totals "$dir" "$work/bare-2000-0"; then
    compare totals "$dir" --attached-from-start
    waits=$(grep -c 'waiting up to 30 s for a monitor client' "$dir/stderr" || true)
    if [ "$waits" -eq 1 ]; then
        pass "totals: rank 0 says once that it waits"
    else
        fail "totals: waiting line" "$waits lines say that the job waits, expected 1" "$dir/stderr"
    fi
    if "$PYTHON" -c "import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) >= 2 else 1)" \
            "$start" "$end"; then
        pass "totals: MPIWATCH_WAIT held the job until the client came"
    else
        fail "totals: MPIWATCH_WAIT" "the job took less than the client's 2 s delay"
    fi
    # At most one INFLIGHT an interval (1 s) from the first to the last, and
    # the first and last ones besides.
    if "$PYTHON" - "$dir/client.json" >"$dir/inflight.log" 2>&1 <<'PY'
import json, sys
frames = json.load(open(sys.argv[1]))["inflight_frames"]
bad = {r: f for r, f in frames.items() if f[0] > f[1] / 1.0 + 3}
print("INFLIGHT frames, seconds from first to last, per rank:", frames)
sys.exit(1 if bad or len(frames) != 4 else 0)
PY
    then
        pass "totals: each rank sent INFLIGHT frames at most once an interval"
    else
        fail "totals: INFLIGHT frames" "more than one an interval, or a rank sent none" \
            "$dir/inflight.log"
    fi
    mode=$(stat -c %a "$dir/ports.seen" 2>/dev/null)
    lines=$(grep -c '^mpiwatch-endpoint 1 [0-9]* 4 tcp ' "$dir/ports.seen" 2>/dev/null)
    if [ "$mode" = 600 ] && [ "$lines" -eq "$NP" ]; then
        pass "totals: the port file had $NP lines and mode 600"
    else
        fail "totals: port file" "mode ${mode:-none}, $lines endpoint lines" "$dir/ports.seen"
    fi
    if [ -e "$dir/cwd/ports" ]; then
        fail "totals: port file removed" "the port file outlived the job" "$dir/cwd/ports"
    else
        pass "totals: rank 0 removed the port file at MPI_Finalize"
    fi
fi

# ---------------------------------------------------------------- clock_gettime
dir="$work/clock_gettime"
mkdir -p "$dir/cwd"
("$PYTHON" "$client" "$dir/cwd/ports" --timeout 50 >"$dir/client.json" 2>"$dir/client.err") &
cpid=$!
run "$dir" "$NP" linked MPIWATCH_WAIT=30 MPIWATCH_TIMER=clock_gettime -- "$work/ring" 2000 0 \
    --port-in-file "$dir/cwd/ports"
wait "$cpid"
if same_output clock_gettime "$dir" "$work/bare-2000-0"; then
    compare clock_gettime "$dir" --attached-from-start
fi

# ---------------------------------------------------------------- wrong token
dir="$work/wrong-token"
mkdir -p "$dir/cwd"
( "$PYTHON" "$client" "$dir/cwd/ports" --token 00000000000000000000000000000000 --timeout 20 \
      >"$dir/bad.json" 2>"$dir/bad.err"
  "$PYTHON" "$client" "$dir/cwd/ports" --timeout 50 >"$dir/client.json" 2>"$dir/client.err" ) &
cpid=$!
run "$dir" "$NP" linked MPIWATCH_WAIT=30 -- "$work/ring" 2000 0 --port-in-file "$dir/cwd/ports"
wait "$cpid"
if same_output wrong-token "$dir" "$work/bare-2000-0"; then
    refused=$("$PYTHON" -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['refused'], d['attached'])" \
              "$dir/bad.json" 2>/dev/null)
    logged=$(grep -c 'refused the client at .*:[0-9]*: wrong token' "$dir/stderr" || true)
    if [ "$refused" = "$NP 0" ] && [ "$logged" -eq "$NP" ]; then
        pass "wrong-token: every rank refused the client and said so with its address"
    else
        fail "wrong-token: refused" "client saw '$refused' (refused attached), $logged warnings" \
            "$dir/bad.json" "$dir/stderr"
    fi
    compare wrong-token "$dir"
fi

# ---------------------------------------------------------------- a flood
# 20 silent and 30 garbage connections to every rank before the real client:
# handshakes run side by side, so every rank's HELLO still comes (the slowest
# is a figure, target 2 s: how soon depends on how busy the machine is); the
# refusals are named three times per rank, then counted in a summary line.
dir="$work/flood"
mkdir -p "$dir/cwd"
("$PYTHON" "$mon_dir/flood.py" "$dir/cwd/ports" --silent 20 --garbage 30 --timeout 50 \
     >"$dir/flood.json" 2>"$dir/flood.err") &
cpid=$!
run "$dir" "$NP" linked MPIWATCH_WAIT=30 -- "$work/ring" 2000 0 --port-in-file "$dir/cwd/ports"
wait "$cpid"
if same_output flood "$dir" "$work/bare-2000-0"; then
    slowest=$("$PYTHON" -c "import json,sys; h=json.load(open(sys.argv[1]))['hello_s']; print('none' if None in h else max(h))" \
              "$dir/flood.json" 2>/dev/null)
    figure monitor.flood_slowest_hello_s "${slowest:-none}" s "<=2"
    if [ -n "$slowest" ] && [ "$slowest" != none ]; then
        pass "flood: with 50 hostile connections per rank, every rank's HELLO came (slowest after ${slowest} s)"
    else
        fail "flood: HELLO" "the slowest HELLO: ${slowest:-no result}" "$dir/flood.json" "$dir/flood.err"
    fi
    named=$(grep -c 'monitor: refused the client at' "$dir/stderr" || true)
    summary=$(grep -c 'monitor: refused [0-9]* more connection' "$dir/stderr" || true)
    if [ "$named" -le $((3 * NP)) ] && [ "$summary" -ge 1 ] && [ "$summary" -le $((3 * NP)) ]; then
        pass "flood: $named refusals named, the rest counted in $summary summary lines"
    else
        fail "flood: log" "$named named refusals (at most $((3 * NP))) and $summary summaries" "$dir/stderr"
    fi
fi

# ---------------------------------------------------------------- a sleeping client
# A client that attaches and then reads nothing for 28 s (stopped with
# Ctrl-Z, or a pager nobody scrolls), snapshots every 10 ms, while busy.c
# makes millions of calls of 20 functions a second: each rank's memory stays
# bounded, the report counts the snapshots held back, and the client then
# gets the rest of the stream and the GOODBYE.
# Memory: a rank's unsent output may grow to its designed cap (MW_OUT_CAP in
# runtime/monitor/sender.c, 4 MiB), and its thread's event ring fills (16384
# events of 64 bytes, 1 MiB); then both stay there. How soon depends on how
# busy the machine is: quiet, both are full about a second after the attach
# (RSS then flat for the rest of the run, Open MPI and MPICH alike); under
# load the first samples can even come before the MPI's own first
# allocations. So RSS is sampled every second from the port file's
# completion on for 26 s, and the verdict is the bound that holds at any
# load: over the last 10 s a rank grows by less than 512 kB (a leak of a
# snapshot's size every 10 ms would grow by megabytes there), while the
# report shows that the cap was reached (snapshots held back). The growth
# over all samples is a figure: the cap and the ring, plus what the MPI
# allocates after the port file.
dir="$work/sleeper"
mkdir -p "$dir/cwd"
("$PYTHON" "$mon_dir/flood.py" "$dir/cwd/ports" --silent 0 --no-read 28 --timeout 90 \
     >"$dir/flood.json" 2>"$dir/flood.err") &
cpid=$!
# ranks: this job's busy processes (another suite may run its own busy).
ranks() {
    for p in $(pgrep -f "$work/busy"); do
        [ "$(readlink "/proc/$p/exe")" = "$work/busy" ] && echo "$p"
    done
}
(for _ in $(seq 1200); do
     [ "$(grep -c . "$dir/cwd/ports" 2>/dev/null)" = "$NP" ] && [ -n "$(ranks)" ] && break
     sleep 0.1
 done
 for i in $(seq -w 0 26); do
     for p in $(ranks); do echo "$p $(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null)"; done \
         | awk 'NF == 2' | sort >"$dir/rss-$i"
     sleep 1
 done) &
spid=$!
run "$dir" "$NP" linked MPIWATCH_WAIT=30 MPIWATCH_MONITOR_INTERVAL=0.01 -- "$work/busy" 30 \
    --port-in-file "$dir/cwd/ports"
wait "$cpid" "$spid"
if [ "$(rc_of "$dir")" -ne 0 ] || ! grep -q "^busy: done on $NP ranks$" "$dir/stdout"; then
    fail "sleeper: run" "$(describe_rc "$(rc_of "$dir")")" "$dir/stdout" "$dir/stderr"
else
    # rank PID: kB at each sample; growth in all samples, and in the last 10.
    set -- $(cat "$dir"/rss-* | awk '
        { kb[$1, n[$1]++] = $2 }
        END {
            for (p in n) {
                ranks++; lo = kb[p, 0]; hi = lo
                for (i = 1; i < n[p]; i++) if (kb[p, i] > hi) hi = kb[p, i]
                if (hi - lo > all) all = hi - lo
                k = n[p] > 11 ? n[p] - 11 : 0; lo = kb[p, k]; hi = lo
                for (i = k + 1; i < n[p]; i++) if (kb[p, i] > hi) hi = kb[p, i]
                if (hi - lo > last) last = hi - lo
                if (n[p] < 12) short++
            }
            print ranks + 0, all + 0, last + 0, short + 0
        }')
    ranks=$1 all=$2 last=$3 short=$4
    figure monitor.sleeper_rss_growth_kB "$all" kB "<5120"
    if [ "$ranks" -eq "$NP" ] && [ "$short" -eq 0 ] && [ "$last" -lt 512 ]; then
        pass "sleeper: with the client asleep 28 s, rank RSS flat over the last 10 s (+$last kB; +$all kB in all, the output's cap and the event ring being 5120 kB)"
    else
        fail "sleeper: memory" "on $ranks ranks ($short sampled less than 12 times), RSS grew by up to $last kB in the last 10 s (expected < 512; $all kB in all)" \
            "$dir"/rss-00 "$dir"/rss-16 "$dir"/rss-26
    fi
    report=$(reports "$dir/cwd" 'mpiwatch-*.json')
    skipped=$(json_get "$dir/cwd/$report" monitor snapshots_skipped 2>/dev/null)
    bytes=$("$PYTHON" -c "import json,sys; print(min(json.load(open(sys.argv[1]))['bytes']))" "$dir/flood.json" 2>/dev/null)
    if [ "${skipped:-0}" -gt 0 ] && [ "${bytes:-0}" -gt 0 ]; then
        pass "sleeper: the report counts $skipped snapshots held back; the client then got every stream"
    else
        fail "sleeper: counts" "snapshots_skipped '${skipped:-none}', the least bytes a rank sent '${bytes:-none}'" \
            "$dir/cwd/$report" "$dir/flood.json"
    fi
fi

# ---------------------------------------------------------------- killed client
dir="$work/killed"
mkdir -p "$dir/cwd"
("$PYTHON" "$client" "$dir/cwd/ports" --exit-after 2000 --timeout 50 >"$dir/client.json" \
     2>"$dir/client.err"; echo $? >"$dir/client.rc") &
cpid=$!
run "$dir" "$NP" linked MPIWATCH_WAIT=30 -- "$work/ring" 3000 1000 --port-in-file "$dir/cwd/ports"
wait "$cpid"
if [ "$(cat "$dir/client.rc")" != 3 ]; then
    fail "killed: client" "the client did not die mid-run (status $(cat "$dir/client.rc"))" "$dir/client.err"
elif same_output killed "$dir" "$work/bare-3000-1000"; then
    report=$(reports "$dir/cwd" 'mpiwatch-*.json')
    if "$PYTHON" - "$dir/cwd/$report" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
m = r["monitor"]
calls = sum(f["calls"] for f in r["functions"].values())
sys.exit(0 if m["events_sent"] + m["events_dropped"] + m["events_unwatched"] == calls else 1)
PY
    then
        pass "killed: the report's monitor counters add up to the calls"
    else
        fail "killed: counters" "sent + dropped + unwatched is not the number of calls" "$dir/cwd/$report"
    fi
fi

finish
