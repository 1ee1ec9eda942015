#!/usr/bin/env bash
# Partial profiles at a job's unplanned end (docs/partial-reports.md), on 4
# ranks, beyond check-partial's time limit: each case runs bare and with
# mpiwatch, and the status must be the bare run's; every rank that can
# leave a partial profile leaves one, and `mpiwatch --merge` makes the job
# report of them:
# - SLURM-like escalation: TERM to the launcher after 5 s, KILL 2 s later
#   (forever.c); calls between what rank 0 printed 3 s in and what it made;
# - a batch system's warning: USR1 to every rank 3 s in, TERM 2 s later,
#   KILL 2 s after that (forever.c), the same bounds;
# - a Fortran program (forever.f90, use mpi) under the escalation and under
#   USR1 then TERM, and one dying of SIGSEGV (segv.f90);
# - a rank dying of SIGSEGV (segv.c) after 100 MPI_Allreduce calls: the
#   launcher ends the others, whose profiles are merged (rank 1 missing).
#   MPICH's Hydra SIGKILLs them once rank 1 is gone: they write on rank 1's
#   request (docs/partial-reports.md, "Peers of an ending rank").
name=partial-end
. "$(dirname "$0")/../lib/harness.sh"

NP=4
build "$rt_dir/forever.c" "$work/forever" plain
build "$rt_dir/segv.c" "$work/segv" plain

# left DIR: the ranks with a partial JSON file in DIR, as "0,1,...".
left() {
    ls "$1" | sed -n 's/.*-rank\([0-9]*\)-partial\.json$/\1/p' | sort -n | paste -sd, -
}

# end_job CASE MODE HOW PROGRAM [VAR=VALUE...]: run PROGRAM on NP ranks in
# $work/CASE-MODE (MODE bare, or preload: libmpiwatch, with VAR=VALUE...)
# and end it as HOW says: escalate (TERM to the launcher at 5 s, KILL at
# 7 s), usr1 (USR1 to the ranks at 3 s, TERM at 5 s, KILL at 7 s) or crash
# (it ends itself). Leaves rank 0's count at 3 s in DIR/early.
end_job() {
    local case=$1 mode=$2 how=$3 prog=$4 dir="$work/$1-$2" pid pids early
    shift 4
    local limit=5 kill_after=2
    [ "$how" = escalate ] || limit=40
    [ "$mode" = preload ] && set -- "$@" MPIWATCH_OUTDIR="$dir/cwd"
    [ "$mode" = bare ] && set --
    MW_TIMEOUT=$limit MW_KILL_AFTER=$kill_after run "$dir" "$NP" bare "$@" -- "$prog" &
    pid=$!
    sleep 3
    early=$(last_count "$dir/stdout")
    pids=$(ranks_of "$pid" "$(basename "$prog" | cut -c1-15)")
    if [ "$how" = usr1 ]; then
        kill -USR1 $pids 2>/dev/null
        sleep 2
        kill -TERM $pids 2>/dev/null
        sleep 2
        kill -KILL $pids 2>/dev/null
    fi
    wait "$pid"
    kill -KILL $pids 2>/dev/null   # none should be left; a rank orphaned would spin
    echo "$early" >"$dir/early"
}

# ended CASE HOW PROGRAM EXPECT LOW HIGH [VAR=VALUE...]: end_job bare and with
# mpiwatch; the status as bare; the partial profiles of the ranks EXPECT
# ("all", or a list "0,2,3") merged, MPI_Allreduce calls
# between LOW and HIGH ("printed": NP times rank 0's count at 3 s, less one,
# and NP times its last count plus 101).
ended() {
    local case=$1 how=$2 prog=$3 expect=$4 low=$5 high=$6 dir="$work/$1-preload"
    shift 6
    end_job "$case" bare "$how" "$prog"
    end_job "$case" preload "$how" "$prog" "$@"
    local bare_rc rc
    bare_rc=$(rc_of "$work/$case-bare")
    rc=$(rc_of "$dir")
    if [ "$rc" -ne "$bare_rc" ]; then
        fail "$case: status" "status $rc, the bare run's was $bare_rc" "$dir/stdout" "$dir/stderr"
    else
        pass "$case: status $rc as bare"
    fi
    if [ "$low" = printed ]; then
        low=$((NP * ($(cat "$dir/early") - 1)))
        high=$((NP * ($(last_count "$dir/stdout") + 101)))
    fi
    [ "$expect" = all ] && expect=$(seq -s, 0 $((NP - 1)))
    note "$case: partial profiles of ranks $(left "$dir/cwd")"
    check_merged "$case: merged report of ranks $expect, MPI_Allreduce calls within [$low, $high]" \
        "$dir/cwd" "$NP" --ranks "$expect" --calls MPI_Allreduce "$low" "$high"
}

ended escalate escalate "$work/forever" all printed - LD_PRELOAD="$LIBMPIWATCH"
ended usr1-then-term usr1 "$work/forever" all printed - LD_PRELOAD="$LIBMPIWATCH"

# Rank 1 dies of SIGSEGV: no profile of its own (its state cannot be
# trusted), but it asks the others for theirs before it dies, and Open MPI
# signals them before it kills them.
# The peers answer within the default 2 s on an idle machine; 4 ranks
# spinning in MPI_Barrier on 2 cores beside other suites may need longer
# (the wait ends as soon as every peer's file is there).
peers_wait=MPIWATCH_DUMP_PEERS_WAIT=10
# Rank 1 leaving its 100th MPI_Allreduce does not mean the others have left
# theirs: a peer still waiting in it has counted 99 (a call is counted when it
# ends), so the three peers made 297 to 300 (seen: 299, MPICH under load).
segv_least=$((3 * 99))
ended segv crash "$work/segv" 0,2,3 "$segv_least" $((100 * NP)) LD_PRELOAD="$LIBMPIWATCH" "$peers_wait"

if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
    skip "fortran escalate" "this build has no libmpiwatch_f"
else
    if ! $MPIFC -o "$work/forever_f" "$rt_dir/forever.f90" >"$work/fc.log" 2>&1; then
        fail "fortran escalate: build" "$MPIFC failed" "$work/fc.log"
    else
        ended fortran-escalate escalate "$work/forever_f" all printed - \
            LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F"
        ended fortran-usr1-then-term usr1 "$work/forever_f" all printed - \
            LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F"
    fi
    if ! $MPIFC -o "$work/segv_f" "$rt_dir/segv.f90" >"$work/fc-segv.log" 2>&1; then
        fail "fortran segv: build" "$MPIFC failed" "$work/fc-segv.log"
    else
        ended fortran-segv crash "$work/segv_f" 0,2,3 "$segv_least" $((100 * NP)) \
            LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" "$peers_wait"
    fi
fi

finish
