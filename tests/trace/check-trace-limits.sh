#!/usr/bin/env bash
# The trace's user limits (docs/trace.md, "Using it"), on 4 ranks, decoded by
# tests/trace/trace_check.py (independent of the client):
# - functions: MPIWATCH_TRACE_FUNCTIONS=MPI_Send,MPI_Recv on examples/ring.c
#   leaves the bare run's output; the files hold those two functions only,
#   each with exactly the report's calls, and say the limit; the Perfetto
#   conversion has as many flows as the report's messages and the limit as
#   each process's label; the OTF2 conversion exits 0 (when built with OTF2);
# - exclusion: MPIWATCH_TRACE_FUNCTIONS=-collective,-MPI_Comm_rank: every other
#   function with exactly the report's calls, none of those;
# - window: tests/trace/delays.c barrier 50 (10 iterations of 50 ms or more):
#   MPIWATCH_TRACE_WINDOW=0.2: keeps only calls entered 0.2 s or more after
#   MPI_Init, some but not all; 0.1:0.3 only calls inside it;
# - bad values: MPIWATCH_TRACE_WINDOW=30:10 and MPIWATCH_TRACE_FUNCTIONS=MPI_Sned
#   each get one warning naming the value, the bare run's output, and a trace
#   without that limit (every call, the file saying no limit).
name=trace-limits
. "$(dirname "$0")/../lib/harness.sh"

NP=4
check="$top_srcdir/tests/trace/trace_check.py"
need_client
build "$top_srcdir/examples/ring.c" "$work/ring" plain
build "$top_srcdir/tests/trace/delays.c" "$work/delays" plain

run "$work/bare" "$NP" bare -- "$work/ring"
if [ "$(rc_of "$work/bare")" -ne 0 ]; then
    fail "bare ring" "the program fails without mpiwatch: $(describe_rc "$(rc_of "$work/bare")")" \
        "$work/bare/stdout" "$work/bare/stderr"
    finish
fi

# traced DIR: sets files (DIR/cwd's trace files) and report (its JSON report);
# 1 unless the run ended with status 0 and left one file per rank.
traced() {
    local t
    files=()
    for t in $(cd "$1/cwd" && ls | grep '\.trace\.[0-9]*$'); do files+=("$1/cwd/$t"); done
    report="$1/cwd/$(reports "$1/cwd" 'mpiwatch-*.json' | head -n 1)"
    if [ "$(rc_of "$1")" -ne 0 ] || [ "${#files[@]}" -ne "$NP" ]; then
        fail "$(basename "$1"): run" "$(describe_rc "$(rc_of "$1")"), ${#files[@]} trace files" \
            "$1/stdout" "$1/stderr"
        return 1
    fi
}

# warned_once CASE DIR TEXT: exactly one line of DIR/stderr has TEXT.
warned_once() {
    local n
    n=$(grep -cF -- "$3" "$2/stderr")
    if [ "$n" -eq 1 ]; then
        pass "$1: one warning"
    else
        fail "$1: warning" "$n lines with \"$3\"" "$2/stderr"
    fi
}

# --- functions: MPI_Send and MPI_Recv only
run "$work/only" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_FUNCTIONS=MPI_Send,MPI_Recv \
    MPIWATCH_FORMATS=json -- "$work/ring"
same_output "functions: output and status" "$work/only" "$work/bare"
if traced "$work/only"; then
    checked "functions: MPI_Send and MPI_Recv only" "$PYTHON" "$check" limited "$report" \
        "MPIWATCH_TRACE_FUNCTIONS=MPI_Send,MPI_Recv" "" MPI_Send,MPI_Recv "${files[@]}"
    checked "functions: perfetto converted" "$client" --trace "$work/only/cwd" \
        --perfetto "$work/only.json"
    checked "functions: perfetto flows" "$PYTHON" "$check" perfetto "$work/only.json" "$NP" \
        "$report"
    labels=$(grep -c '"process_labels".*MPIWATCH_TRACE_FUNCTIONS=MPI_Send,MPI_Recv' \
        "$work/only.json")
    if [ "$labels" -eq "$NP" ]; then
        pass "functions: every Perfetto process is labelled with the limit"
    else
        fail "functions: labels" "$labels processes of $NP are labelled with the limit"
    fi
    if [ "$MW_HAVE_OTF2" = yes ]; then
        checked "functions: otf2 converted" "$client" --trace "$work/only/cwd" --otf2 \
            "$work/only.otf2"
    else
        skip "functions: otf2 converted" "this mpiwatch is built without OTF2"
    fi
fi

# --- exclusion: no collective, no MPI_Comm_rank
run "$work/without" "$NP" preload MPIWATCH_TRACE=1 \
    MPIWATCH_TRACE_FUNCTIONS=-collective,-MPI_Comm_rank MPIWATCH_FORMATS=json -- "$work/ring"
same_output "exclusion: output and status" "$work/without" "$work/bare"
if traced "$work/without"; then
    checked "exclusion: every other function" "$PYTHON" "$check" limited "$report" \
        "MPIWATCH_TRACE_FUNCTIONS=-collective,-MPI_Comm_rank" "" -collective,-MPI_Comm_rank \
        "${files[@]}"
fi

# --- window
for window in 0.2: 0.1:0.3; do
    dir="$work/window-$window"
    run "$dir" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_WINDOW="$window" \
        MPIWATCH_FORMATS=json -- "$work/delays" barrier 50
    if traced "$dir"; then
        checked "window $window: calls inside it only" "$PYTHON" "$check" limited "$report" \
            "MPIWATCH_TRACE_WINDOW=$window" "$window" "" "${files[@]}"
        checked "window $window: perfetto converted" "$client" --trace "$dir/cwd" \
            --perfetto "$dir.json"
    fi
done

# --- bad values: warned once, the limit not applied
for bad in MPIWATCH_TRACE_WINDOW=30:10 MPIWATCH_TRACE_FUNCTIONS=MPI_Sned; do
    var=${bad%%=*}
    dir="$work/bad-$var"
    run "$dir" "$NP" preload MPIWATCH_TRACE=1 "$bad" MPIWATCH_FORMATS=json -- "$work/ring"
    same_output "bad $var: output and status" "$dir" "$work/bare"
    warned_once "bad $var" "$dir" "$var='${bad#*=}'"
    if traced "$dir"; then
        checked "bad $var: every call, no limit said" "$PYTHON" "$check" limited "$report" \
            "" "" "" "${files[@]}"
    fi
done
finish
