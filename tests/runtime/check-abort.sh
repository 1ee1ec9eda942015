#!/usr/bin/env bash
# MPI_Abort: rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) while rank 0 waits in
# MPI_Recv (abort.c). Under mpiwatch (linked in, and preloaded) the job must
# end within the time limit with the bare run's non-zero status, and write
# no job report: only ranks' partial profiles (rank 1's written by MPI_Abort
# itself; the others' on rank 1's request, which MPI_Abort's wrapper leaves
# beside them before it waits for their files (MPICH's Hydra SIGKILLs them
# once rank 1 is gone), and on the launcher's signals (Open MPI's); a
# SIGKILL during one leaves its hidden temporary file), which `mpiwatch
# --merge` combines into a report of both ranks, rank 1's taken at
# MPI_Abort with its error code, each rank's one MPI_Barrier counted.
name=abort
. "$(dirname "$0")/../lib/harness.sh"

NP=2
export MW_TIMEOUT=${MW_ABORT_TIMEOUT:-30}
build "$rt_dir/abort.c" "$work/abort-bare" plain
build "$rt_dir/abort.c" "$work/abort" linked

run "$work/bare" "$NP" bare -- "$work/abort-bare"
bare_rc=$(rc_of "$work/bare")
if [ "$bare_rc" -eq 0 ] || [ "$bare_rc" -eq 124 ]; then
    fail "bare abort" "without mpiwatch the job should end with a non-zero status: $(describe_rc "$bare_rc")" \
        "$work/bare/stdout" "$work/bare/stderr"
    finish
fi
pass "bare abort: $(describe_rc "$bare_rc")"

# The peers answer within the default 2 s on an idle machine; ranks spinning
# in MPI_Barrier beside other suites may need longer (the aborting rank's
# wait ends as soon as every peer's file is there).
peers_wait=MPIWATCH_DUMP_PEERS_WAIT=10
for mode in linked preload; do
    dir="$work/$mode"
    prog="$work/abort"
    [ "$mode" = preload ] && prog="$work/abort-bare"
    run "$dir" "$NP" "$mode" MPIWATCH_OUTDIR="$dir/cwd" "$peers_wait" -- "$prog"
    rc=$(rc_of "$dir")
    if [ "$rc" -eq 124 ]; then
        fail "abort $mode" "the job hangs: $(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
    elif [ "$rc" -ne "$bare_rc" ]; then
        fail "abort $mode" "$(describe_rc "$rc"), the bare run's was $bare_rc" "$dir/stdout" "$dir/stderr"
    elif grep -q 'not aborted' "$dir/stdout"; then
        fail "abort $mode" "a rank went on after MPI_Abort" "$dir/stdout"
    elif ls -A "$dir/cwd" | grep -qv -- '-rank[0-9]*-partial\.\(json\|txt\)\(\.[0-9]*\.tmp\)\?$'; then
        fail "abort $mode" "files other than partial profiles were written: $(ls -A "$dir/cwd" | tr '\n' ' ')"
    else
        pass "abort $mode: $(describe_rc "$rc") as bare, no job report"
    fi
    expect=0,1
    check_merged "abort $mode: merged report of ranks $expect, rank 1's taken at MPI_Abort" \
        "$dir/cwd" "$NP" --ranks "$expect" --rank-reason 1 "MPI_Abort (error code 3)" \
        --calls MPI_Barrier "$(printf '%s\n' "$expect" | tr , '\n' | grep -c .)" "$NP"
done

# The same in Fortran (abort.f90, on 4 ranks: the two others wait in
# MPI_BARRIER), libmpiwatch_f preloaded: every rank merged, rank 1's taken
# at MPI_ABORT.
if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
    skip "fortran abort" "this build has no libmpiwatch_f"
elif ! $MPIFC -o "$work/abort_f" "$rt_dir/abort.f90" >"$work/fc.log" 2>&1; then
    fail "fortran abort: build" "$MPIFC failed" "$work/fc.log"
else
    run "$work/f-bare" 4 bare -- "$work/abort_f"
    dir="$work/f-preload"
    run "$dir" 4 bare LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" MPIWATCH_OUTDIR="$dir/cwd" \
        "$peers_wait" -- "$work/abort_f"
    if [ "$(rc_of "$dir")" -ne "$(rc_of "$work/f-bare")" ] || [ "$(rc_of "$dir")" -eq 124 ]; then
        fail "fortran abort: status" "$(describe_rc "$(rc_of "$dir")"), the bare run's was \
$(rc_of "$work/f-bare")" "$dir/stdout" "$dir/stderr"
    else
        pass "fortran abort: $(describe_rc "$(rc_of "$dir")") as bare"
    fi
    check_merged "fortran abort: merged report of ranks 0-3, rank 1's taken at MPI_ABORT" \
        "$dir/cwd" 4 --ranks 0,1,2,3 --rank-reason 1 "MPI_Abort (error code 3)"
fi

finish
