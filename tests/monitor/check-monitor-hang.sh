#!/usr/bin/env bash
# Calls in progress (INFLIGHT frames, docs/protocol.md) of jobs that hang on
# purpose (hang.c), seen by the raw protocol client (raw_client.py), which
# attaches after the hang began and watches until every rank has shown its
# call in progress; then the test ends the job:
#
# - recv: 4 ranks; rank 1 in MPI_Recv from rank 3 with tag 99, the others in
#   MPI_Barrier on MPI_COMM_WORLD; the client attaches 5 s after the hang
#   began and sees rank 1's call (peer 3, tag 99, receives, entered at least
#   5 s before) and the barriers (collective, every rank, size 4);
# - ssend: 2 ranks each in MPI_Ssend to the other (peer, tag 7, sends);
# - split: the same receive on a communicator split from a duplicate of
#   MPI_COMM_WORLD in reverse order: the peer is shown as its world rank
#   (translated when the communicator was created), the barrier as one on
#   every rank;
# - client-*: the mpiwatch client on such jobs names the stuck calls, the
#   cycles and the ranks waited on (2, 4 and 64 ranks, attached at once or
#   late); client-web: its live page (--web, in headless
#   Chromium) shows the same cycle and waited-on rank as its JSON view.
name=monitor-hang
. "$(dirname "$0")/../lib/harness.sh"

mon_dir="$top_srcdir/tests/monitor"
build "$mon_dir/hang.c" "$work/hang" linked

# start_hang CASE NP PROGRAM MODE env|flag: start PROGRAM MODE on NP ranks in
# the background, with the monitor on (MPIWATCH_MONITOR=file:..., or the
# program's --port-in-file flag), and wait until every rank said it hangs and
# the port file is there. Sets job (end it with end_job); returns 1 after a
# FAIL when the job did not get there within 120 s.
start_hang() {
    local case=$1 np=$2 program=$3 mode=$4 how=$5 dir="$work/$1"
    mkdir -p "$dir/cwd"
    if [ "$how" = flag ]; then
        set -- -- "$program" "$mode" --port-in-file "$dir/cwd/ports"
    else
        set -- MPIWATCH_MONITOR="file:$dir/cwd/ports" -- "$program" "$mode"
    fi
    (cd "$dir/cwd" && MW_TIMEOUT=180 mw_launch "$np" "$@" \
        >"$dir/stdout" 2>"$dir/stderr" </dev/null) &
    job=$!
    for _ in $(seq 1200); do
        [ "$(grep -c 'hangs$' "$dir/stdout" 2>/dev/null)" -eq "$np" ] && [ -s "$dir/cwd/ports" ] &&
            return 0
        sleep 0.1
    done
    fail "$case: the job hangs" "not every rank got to its hang within 120 s" \
        "$dir/stdout" "$dir/stderr"
    end_job
    return 1
}

# end_job: end the job start_hang started (the launcher passes the signal on).
end_job() {
    pkill -TERM -P "$job" 2>/dev/null
    wait "$job" 2>/dev/null
}

# hang_case CASE NP MODE DELAY [PROGRAM [env|flag]]: run PROGRAM (default hang)
# MODE (start_hang), attach the raw client DELAY s after the hang began, watch
# until every rank has shown its call in progress (at most 60 s: a guard
# against a client that never gets them, not a deadline), end the job. Leaves $work/CASE/client.json; returns 1 (after a FAIL)
# when the job never hung or the client failed.
hang_case() {
    local case=$1 dir="$work/$1" rc=0
    start_hang "$case" "$2" "${5:-$work/hang}" "$3" "${6:-env}" || return 1
    sleep "$4"
    "$PYTHON" "$mon_dir/raw_client.py" "$dir/cwd/ports" --watch 60 --until-calls --timeout 90 \
        >"$dir/client.json" 2>"$dir/client.err" || rc=$?
    end_job
    if [ "$rc" -ne 0 ]; then
        fail "$case: client" "raw_client.py failed (status $rc)" "$dir/client.err"
        return 1
    fi
}

# expect CASE FILE PYTHON-CONDITIONS: each line of the conditions is a Python
# expression over `calls` ({rank: the rank's calls in progress}) and `d` (the
# client's output); the first false one fails CASE.
expect() {
    local case=$1 file=$2 conditions=$3 out
    if out=$("$PYTHON" - "$file" "$conditions" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
calls = {int(r): c for r, c in d.get("inflight", {}).items()}
def call(rank):
    return calls.get(rank, [{}])[0]
if d["errors"]:
    sys.exit(f"protocol errors: {d['errors']}")
for cond in sys.argv[2].strip().splitlines():
    if not eval(cond.strip()):
        sys.exit(f"not true: {cond.strip()}\ncalls in progress: {json.dumps(calls)}")
EOF
    ); then
        pass "$case"
    else
        fail "$case" "$out"
    fi
}

RECEIVES=2 SENDS=1 COLLECTIVE=4 WORLD=8

if hang_case recv 4 recv 5; then
    expect "recv: rank 1 in MPI_Recv from 3, tag 99, for 5 s and more" "$work/recv/client.json" "
        call(1).get('function') == 'MPI_Recv'
        call(1)['peer'] == 3 and call(1)['tag'] == 99 and call(1)['root'] == -1
        call(1)['flags'] & $RECEIVES and call(1)['comm_size'] == 4
        call(1)['seconds'] >= 5"
    expect "recv: the other ranks in MPI_Barrier on every rank" "$work/recv/client.json" "
        all(call(r).get('function') == 'MPI_Barrier' for r in (0, 2, 3))
        all(call(r)['flags'] & ($COLLECTIVE | $WORLD) == $COLLECTIVE | $WORLD for r in (0, 2, 3))
        all(call(r)['comm_size'] == 4 and call(r)['peer'] == -1 for r in (0, 2, 3))"
fi

if hang_case ssend 2 ssend 1; then
    expect "ssend: both ranks in MPI_Ssend to each other" "$work/ssend/client.json" "
        call(0).get('function') == 'MPI_Ssend' and call(1).get('function') == 'MPI_Ssend'
        call(0)['peer'] == 1 and call(1)['peer'] == 0
        call(0)['tag'] == 7 and call(0)['flags'] & $SENDS"
fi

FORTRAN_OK=0
if [ -n "${MPIFC:-}" ] && [ -f "${LIBMPIWATCH_F:-}" ] &&
        $MPIFC -o "$work/hangf" "$mon_dir/hang.f90" -L"$libdir" -lmpiwatch_f -lmpiwatch \
            "-Wl,-rpath,$libdir" >"$work/hangf.log" 2>&1; then
    FORTRAN_OK=1
fi
if [ "$FORTRAN_OK" -eq 0 ]; then
    skip "fortran" "no Fortran library or MPIFC could not build hang.f90"
elif hang_case fortran 4 recv 1 "$work/hangf" flag; then
    expect "fortran: MPI_RECV and MPI_BARRIER shown in progress (the function only)" \
        "$work/fortran/client.json" "
        call(1).get('function') == 'MPI_Recv' and call(1)['seconds'] >= 1
        call(1)['peer'] == -1 and call(1)['tag'] == -1 and call(1)['comm'] == -1
        all(call(r).get('function') == 'MPI_Barrier' for r in (0, 2, 3))"
fi

if hang_case split 4 slow 1; then
    expect "split: the peer as a world rank on a reordered communicator" "$work/split/client.json" "
        call(1).get('function') == 'MPI_Recv' and call(1)['peer'] == 3
        call(1)['comm'] != 0 and call(1)['comm_size'] == 4
        all(call(r).get('function') == 'MPI_Barrier' for r in (0, 2, 3))
        all(call(r)['flags'] & $WORLD for r in (0, 2, 3))"
fi

# client_case CASE NP MODE DELAY LIMIT CONDITIONS: hang MODE on NP ranks, attach
# mpiwatch DELAY s after the hang began, and wait up to LIMIT s for a "stuck"
# line for which every condition holds (Python expressions over `s`, the
# stuck line, and `inflight`, {rank: its in-progress line}); then end the job
# and the client. Passes with the time it took, or fails.
client_case() {
    local case=$1 delay=$4 limit=$5 conditions=$6 dir="$work/$1" cl out
    start_hang "$case" "$2" "$work/hang" "$3" flag || return
    sleep "$delay"
    "$client" -f "$dir/cwd/ports" --json --no-events --stuck 2 >"$dir/client.out" 2>"$dir/client.err" &
    cl=$!
    if out=$("$PYTHON" "$mon_dir/await_stuck.py" "$dir/client.out" "$limit" "$conditions" 2>&1); then
        pass "$case: named after $out s (limit $limit s)"
    else
        fail "$case" "$out" "$dir/client.err"
    fi
    kill "$cl" 2>/dev/null
    wait "$cl" 2>/dev/null
    end_job
}

client="$top_builddir/mpiwatch"
client_case client-recv 4 recv 0 30 "
    inflight[1]['function'] == 'MPI_Recv' and inflight[1]['peer'] == 3 and inflight[1]['tag'] == 99
    inflight[1]['stuck']
    [1, 3] in s['cycles']
    {'rank': 1, 'waiters': [0, 2, 3]} in s['waited_on']"
client_case client-ssend 2 ssend 0 30 "
    [0, 1] in s['cycles']
    inflight[0]['function'] == 'MPI_Ssend' and inflight[0]['peer'] == 1"
client_case client-late 4 recv 5 30 "
    inflight[1]['function'] == 'MPI_Recv' and inflight[1]['peer'] == 3 and inflight[1]['seconds'] >= 5
    [1, 3] in s['cycles']"
client_case client-64 64 recv 0 60 "
    inflight[1]['function'] == 'MPI_Recv' and inflight[1]['peer'] == 3
    any(w['rank'] == 1 and len(w['waiters']) == 63 for w in s['waited_on'])"


# The live page says who waits for whom as the terminal and the JSON view do
# (the model's one wait-for graph): rank 1 in MPI_Recv from 3 against a
# barrier, watched with --web; headless Chromium waits until the page shows
# the cycle [1,3], which must be the one in the stuck line that the same
# client printed; its count of ranks waiting to attach stays a number
# (0). /api/state, with the wait-for graph in it, passes the report schema
# check (tests/lib/report_schema.py --live: no key twice, among the rest).
web_case() {
    local case=client-web dir="$work/client-web" url cl chrome why
    chrome=$(browser)
    why=$(web_missing "$client")
    if [ -n "$why" ]; then skip "$case" "${why#mpiwatch: }"; return; fi
    if [ -z "$chrome" ]; then skip "$case" "no chromium: install it (tools/install-deps.sh)"; return; fi
    start_hang "$case" 4 "$work/hang" recv flag || return
    "$client" -f "$dir/cwd/ports" --json --no-events --stuck 2 --web 127.0.0.1:0 \
        >"$dir/client.out" 2>"$dir/client.err" &
    cl=$!
    if ! url=$("$PYTHON" "$top_srcdir/tests/client/web_probe.py" url "$dir/client.err" 60); then
        fail "$case" "the client named no URL" "$dir/client.err"
    else
        local sel="document.getElementById('mw-live-section')"
        "$PYTHON" "$top_srcdir/tests/client/cdp_page.py" "$chrome" "$url" "$dir/page.dom" \
            --until "($sel.getAttribute('data-mw-cycles') || '') !== ''" --seconds 60 2>"$dir/page.log"
        local cycles waited json_cycles
        cycles=$(grep -o 'data-mw-cycles="[^"]*"' "$dir/page.dom" | head -n 1 | cut -d'"' -f2)
        waited=$(grep -o 'data-mw-waited-on="[^"]*"' "$dir/page.dom" | head -n 1 | cut -d'"' -f2)
        json_cycles=$(grep '"type":"stuck"' "$dir/client.out" | tail -n 1 |
            "$PYTHON" -c 'import json, sys; print(";".join(" ".join(map(str, c)) for c in json.loads(sys.stdin.read())["cycles"]))' 2>/dev/null)
        if [ "$cycles" = "1 3" ] && [ "$json_cycles" = "$cycles" ] && [[ ";$waited;" == *";1:0 2 3;"* ]] &&
           grep -q 'Deadlock: ranks 1, 3 wait for each other.' "$dir/page.dom" &&
           grep -q ' 0 waiting; ' "$dir/page.dom" && [ ! -s "$dir/page.dom.err" ]; then
            pass "$case: the live page shows the deadlock [1,3] and rank 1 waited for by 0, 2, 3, as the JSON view's stuck line; 0 ranks waiting to attach"
        else
            fail "$case" "the page's cycles '$cycles' (the JSON view's '$json_cycles'), waited on '$waited', ranks waiting to attach: '$(grep -o '[-0-9]* waiting; ' "$dir/page.dom" | head -n 1)'" \
                "$dir/page.log" "$dir/page.dom.err" "$dir/client.err"
        fi
        local said
        if said=$("$PYTHON" "$top_srcdir/tests/client/web_probe.py" schema "$url" "$dir/state.json" 2>&1) &&
           [[ "$said" == *"who waits for whom"* ]]; then
            pass "$case: /api/state with the wait-for graph is in the report schema ($said)"
        else
            fail "$case: /api/state" "$said" "$dir/state.json"
        fi
    fi
    kill "$cl" 2>/dev/null
    wait "$cl" 2>/dev/null
    end_job
}
web_case

finish
