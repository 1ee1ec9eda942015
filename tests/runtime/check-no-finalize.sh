#!/usr/bin/env bash
# A program that returns from main without calling MPI_Finalize
# (no_finalize.c). With mpiwatch (linked in, and preloaded) stderr must carry
# mpiwatch's warning "... without calling MPI_Finalize ...", no job report
# may be written but every rank leaves its partial profile (a JSON file of
# the report schema, reason "exit without MPI_Finalize", and its text twin),
# which `mpiwatch --merge` combines into a report of every rank, and the output and exit status must be the bare run's: the MPI
# may itself complain and fail the job (Open MPI's mpirun exits 1 here,
# MPICH's 0), and mpiwatch must change neither. A time limit catches hangs.
# A run whose status or output differs is tried again (MPICH's launcher
# races with ranks that exit without MPI_Finalize); three in a row fail.
name=no-finalize
. "$(dirname "$0")/../lib/harness.sh"

NP=2
export MW_TIMEOUT=${MW_ABORT_TIMEOUT:-30}
build "$rt_dir/no_finalize.c" "$work/no_finalize-bare" plain
build "$rt_dir/no_finalize.c" "$work/no_finalize" linked

# MPICH's launcher may kill a rank still exiting when the other has exited
# without MPI_Finalize (SIGHUP, status 1), bare or not, more often on a
# loaded machine: each run is tried up to three times in all, until GOOD
# holds, so that only a lasting change fails.
# run_tried DIR MODE GOOD ARGS...: run ARGS on $NP ranks in DIR (as `run`
# does) until the function GOOD, given DIR, returns 0, three times at most.
run_tried() {
    local dir=$1 mode=$2 good=$3 attempt
    shift 3
    for attempt in 1 2 3; do
        rm -rf "$dir"
        run "$dir" "$NP" "$mode" "$@"
        "$good" "$dir" && return 0
    done
    return 0
}
# The bare run prints rank 0's line and does not hang.
bare_good() {
    [ "$(rc_of "$1")" -ne 124 ] && [ "$(cat "$1/stdout")" = "done" ]
}
# A run with mpiwatch ends as the bare run did, with its output.
as_bare() {
    [ "$(rc_of "$1")" -eq "$bare_rc" ] && cmp -s "$1/stdout" "$work/bare/stdout"
}

# check_partials MODE DIR: one partial profile per rank in DIR (JSON of the
# report schema, for its rank, taken at exit, with its text twin).
check_partials() {
    local mode=$1 dir=$2 rank f problems=""
    for rank in $(seq 0 $((NP - 1))); do
        f=$(ls "$dir"/mpiwatch-no_finalize*-"$NP"r-*-rank"$rank"-partial.json 2>/dev/null)
        if [ "$(printf '%s\n' "$f" | grep -c .)" -ne 1 ]; then
            problems="$problems rank $rank has $(printf '%s\n' "$f" | grep -c .) partial JSON files;"
            continue
        fi
        [ -f "${f%.json}.txt" ] || problems="$problems no ${f%.json}.txt;"
        out=$("$PYTHON" "$top_srcdir/tests/lib/report_schema.py" "$f" 2>&1) ||
            problems="$problems $out;"
        "$PYTHON" - "$f" "$rank" <<'PY' || problems="$problems $f: not rank $rank's, taken at exit;"
import json, sys
p = json.load(open(sys.argv[1])).get("partial", {})
sys.exit(0 if p.get("rank") == int(sys.argv[2]) and p.get("reason") == "exit without MPI_Finalize" else 1)
PY
    done
    if [ -n "$problems" ]; then
        fail "no-finalize $mode: partial profiles" "$problems" "$dir/stderr"
    else
        pass "no-finalize $mode: a partial profile per rank"
    fi
}

run_tried "$work/bare" bare bare_good -- "$work/no_finalize-bare"
bare_rc=$(rc_of "$work/bare")
if [ "$bare_rc" -eq 124 ]; then
    fail "bare no-finalize" "the bare job hangs: $(describe_rc "$bare_rc")" "$work/bare/stdout" "$work/bare/stderr"
    finish
fi
if [ "$(cat "$work/bare/stdout")" != "done" ]; then
    fail "bare no-finalize" "the bare job does not print 'done'" "$work/bare/stdout" "$work/bare/stderr"
    finish
fi

for mode in linked preload; do
    dir="$work/$mode"
    prog="$work/no_finalize"
    [ "$mode" = preload ] && prog="$work/no_finalize-bare"
    run_tried "$dir" "$mode" as_bare MPIWATCH_OUTDIR="$dir/cwd" -- "$prog"
    rc=$(rc_of "$dir")
    if [ "$rc" -ne "$bare_rc" ]; then
        fail "no-finalize $mode: status" "$(describe_rc "$rc"), the bare run's was $bare_rc" \
            "$dir/stdout" "$dir/stderr"
    elif ! cmp -s "$dir/stdout" "$work/bare/stdout"; then
        fail "no-finalize $mode: output" "the output differs from the bare run's" "$dir/stdout"
    else
        pass "no-finalize $mode: status $rc and output as bare"
    fi
    if grep 'mpiwatch:' "$dir/stderr" | grep -q 'without calling MPI_Finalize'; then
        pass "no-finalize $mode: warning on stderr"
    else
        fail "no-finalize $mode: warning" "no mpiwatch line on stderr says 'without calling MPI_Finalize'" \
            "$dir/stderr"
    fi
    others=$(ls -A "$dir/cwd" | grep -v -- '-rank[0-9]*-partial\.\(json\|txt\)$')
    if [ -n "$others" ]; then
        fail "no-finalize $mode: no job report" "files were written: $(echo $others)"
    else
        pass "no-finalize $mode: no job report"
    fi
    check_partials "$mode" "$dir/cwd"
    # Every rank made one MPI_Barrier before returning from main.
    check_merged "no-finalize $mode: the merged report has every rank" "$dir/cwd" "$NP" \
        --reason "exit without MPI_Finalize" --calls MPI_Barrier "$NP" "$NP"
done

finish
