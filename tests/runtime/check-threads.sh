#!/usr/bin/env bash
# Threads: 4 threads per rank call MPI at once under MPI_THREAD_MULTIPLE
# (threads.c); the report's counts, bytes and pairs must be exact, summed
# over the threads and ranks (threads.expect), with the library linked in
# and preloaded. SKIP when the MPI does not provide MPI_THREAD_MULTIPLE.
name=threads
. "$(dirname "$0")/../lib/harness.sh"

build "$rt_dir/threads.c" "$work/threads" plain
build "$rt_dir/threads.c" "$work/threads-linked" linked

NP=2
for mode in linked preload; do
    case_name="threads np=$NP $mode"
    dir="$work/$mode"
    prog="$work/threads"
    [ "$mode" = linked ] && prog="$work/threads-linked"
    run "$dir" "$NP" "$mode" MPIWATCH_OUTDIR="$dir" -- "$prog"
    rc=$(rc_of "$dir")
    if grep -q '^SKIP' "$dir/stdout"; then
        skip "$case_name" "$(grep '^SKIP' "$dir/stdout" | head -n 1 | sed 's/^SKIP: //')"
    elif [ "$rc" -ne 0 ]; then
        fail "$case_name" "the program failed: $(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
    elif [ "$(cat "$dir/stdout")" != "errors 0" ]; then
        fail "$case_name" "the program's output is not 'errors 0'" "$dir/stdout" "$dir/stderr"
    else
        check_counts "$case_name" "$rt_dir/threads.expect" "$NP" "$dir"
    fi
done

finish
