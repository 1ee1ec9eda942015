#!/usr/bin/env bash
# Calls in progress (INFLIGHT frames, docs/protocol.md) of jobs that hang on
# purpose (hang.c), seen by the raw protocol client (raw_client.py), which
# attaches after the hang began and watches for a few seconds; then the test
# ends the job:
#
# - recv: 4 ranks; rank 1 in MPI_Recv from rank 3 with tag 99, the others in
#   MPI_Barrier on MPI_COMM_WORLD; the client attaches 5 s after the hang
#   began and sees rank 1's call (peer 3, tag 99, receives, entered at least
#   5 s before) and the barriers (collective, every rank, size 4);
# - ssend: 2 ranks each in MPI_Ssend to the other (peer, tag 7, sends);
# - split: the same receive on a communicator split from a duplicate of
#   MPI_COMM_WORLD in reverse order: the peer is shown as its world rank
#   (translated when the communicator was created), the barrier as one on
#   every rank.
name=monitor-hang
. "$top_srcdir/tests/runtime/common.sh"

mon_dir="$top_srcdir/tests/monitor"
build "$mon_dir/hang.c" "$work/hang" linked

# hang_case CASE NP MODE DELAY: run hang MODE on NP ranks with the monitor on,
# attach the raw client DELAY s after every rank said it hangs, watch 3 s,
# end the job. Leaves $work/CASE/client.json; returns 1 (after a FAIL) when
# the job never hung or the client failed.
hang_case() {
    local case=$1 np=$2 mode=$3 delay=$4 dir="$work/$1" job i
    mkdir -p "$dir/cwd"
    (cd "$dir/cwd" && MW_TIMEOUT=90 mw_launch "$np" -- "$work/hang" "$mode" \
        --port-in-file "$dir/cwd/ports" >"$dir/stdout" 2>"$dir/stderr" </dev/null) &
    job=$!
    for i in $(seq 600); do
        [ "$(grep -c 'hangs$' "$dir/stdout" 2>/dev/null)" -eq "$np" ] && [ -s "$dir/cwd/ports" ] && break
        sleep 0.1
    done
    if [ "$(grep -c 'hangs$' "$dir/stdout" 2>/dev/null)" -ne "$np" ]; then
        fail "$case: the job hangs" "not every rank got to its hang within 60 s" \
            "$dir/stdout" "$dir/stderr"
        pkill -TERM -P "$job" 2>/dev/null; wait "$job" 2>/dev/null
        return 1
    fi
    sleep "$delay"
    "$PYTHON" "$mon_dir/raw_client.py" "$dir/cwd/ports" --watch 3 --timeout 30 \
        >"$dir/client.json" 2>"$dir/client.err"
    local rc=$?
    pkill -TERM -P "$job" 2>/dev/null
    wait "$job" 2>/dev/null
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

if hang_case split 4 slow 1; then
    expect "split: the peer as a world rank on a reordered communicator" "$work/split/client.json" "
        call(1).get('function') == 'MPI_Recv' and call(1)['peer'] == 3
        call(1)['comm'] != 0 and call(1)['comm_size'] == 4
        all(call(r).get('function') == 'MPI_Barrier' for r in (0, 2, 3))
        all(call(r)['flags'] & $WORLD for r in (0, 2, 3))"
fi

finish
