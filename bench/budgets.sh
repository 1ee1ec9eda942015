# budgets.sh: how many instructions mpiwatch may add to one MPI call, over
# the bare MPI (callgrind's counts; docs/design.md, "Budgets"). The one
# definition, sourced by bench/run-overhead.sh, bench/run-fortran-overhead.sh
# and the test suite's guard, tests/runtime/check-cost.sh. POSIX sh.

# A call that moves no data (MPI_Comm_rank, MPI_Test, MPI_Iprobe, MPI_Waitall),
# call sites included: 34 for MPI_Comm_rank, 36 for the others on both MPIs
# (bench/README.md); the runtime-overhead issue allowed 30 plus 10 for sites.
BUDGET_CHEAP=36
# Calls that move data (the data-path issue): MPI_Isend, MPI_Irecv, MPI_Send
# and MPI_Recv (54 to 58 today), on any communicator; MPI_Sendrecv (86);
# MPI_Allreduce (52).
BUDGET_P2P=60
BUDGET_SENDRECV=100
BUDGET_ALLREDUCE=70
# Any call with profiling off (MPIWATCH_LEVEL=0 or MPI_Pcontrol(0)): 1 today.
BUDGET_OFF=5
# A Fortran entry point, per call, above the C wrapper's budget for the same
# call (the Fortran-parity issue: 1 to 15 above the C wrapper today).
BUDGET_FORTRAN_EXTRA=15
# A call on a duplicated communicator, above the same call on MPI_COMM_WORLD
# (run-overhead.sh's send_recv_dup; 0 today).
BUDGET_DUP_EXTRA=8
# What the guard lets a figure exceed its budget by: counts are exact for one
# build, but another compiler or MPI release may move a few instructions.
BUDGET_TOLERANCE=2

# budget_of CALL: the budget of one call, named as bench/overhead.c's loops
# and bench_call_CALL functions name them; status 1 for an unknown name.
budget_of() {
    case $1 in
        comm_rank | test_null | iprobe | waitall) echo "$BUDGET_CHEAP" ;;
        isend | irecv | send | recv) echo "$BUDGET_P2P" ;;
        sendrecv_self) echo "$BUDGET_SENDRECV" ;;
        allreduce) echo "$BUDGET_ALLREDUCE" ;;
        *) return 1 ;;
    esac
}

# calls_per_iteration LOOP: the MPI calls one iteration of the loop LOOP of
# bench/overhead.c (or its twin in bench/overhead_f.f90) makes, by the names
# budget_of knows; status 1 for an unknown loop.
calls_per_iteration() {
    case $1 in
        comm_rank | test_null | iprobe | sendrecv_self | allreduce) echo "$1" ;;
        isend_irecv) echo "irecv isend waitall" ;;
        send_recv | send_recv_dup) echo "irecv send isend recv waitall" ;;
        *) return 1 ;;
    esac
}

# fortran_budget_of LOOP: the budget of one iteration of overhead_f.f90's
# loop LOOP, profiling on: its calls' C budgets plus BUDGET_FORTRAN_EXTRA each.
fortran_budget_of() {
    _bud_calls=$(calls_per_iteration "$1") || return 1
    _bud_sum=0
    for _bud_c in $_bud_calls; do
        _bud_sum=$((_bud_sum + $(budget_of "$_bud_c") + BUDGET_FORTRAN_EXTRA))
    done
    echo "$_bud_sum"
}
# What tracing (MPIWATCH_TRACE=1) may add to a call over profiling alone:
# issue 29's target, judged by bench/run-trace-cost.sh (met by the cheap calls,
# sends, receives, reductions to all and their non-blocking starts; not by
# the completions, MPI_Test and MPI_Waitall, nor MPI_Sendrecv).
BUDGET_TRACE=40
# The guard's budgets for it (tests/runtime/check-cost.sh), at what tracing
# adds today on Open MPI, with margin (docs/trace.md, "Cost"): the traced
# body (templates/wrapper/generic.c.j2, trace/recorder.h) stores each record
# raw, fixed-width (trace/raw.h), and the writer thread encodes the varints
# (trace/transcode.c, 155 instructions a call there, off the call path); it
# adds MPI_Comm_rank 30.7 (0.7 of it a new chunk every 2,000 calls);
# MPI_Send, MPI_Recv and MPI_Allreduce 33, 36 and 31.6, counted and recorded
# on their call site's memo (trace/memo_record.h), held to the target itself;
# MPI_Isend and MPI_Irecv 38 (on the memo too, the request named by its
# handle, which the readers match: no table), held to the target;
# MPI_Iprobe 39 (a poll that found nothing, where the last ones were made, is
# one more in their fold, inline; within 40, with a margin for the run's
# noise); MPI_Test 154 (its completion notes);
# MPI_Sendrecv 225 (its receive half is a second record, with the status's
# source, tag and MPI_Get_count); MPI_Waitall of two requests 392 (the
# handles, MPI_Get_count of each status). MPICH 4.0: the same but for
# MPI_Isend and MPI_Irecv 39, MPI_Test 157, MPI_Sendrecv 232 and
# MPI_Waitall 470, within these budgets.
BUDGET_TRACE_PLAIN=40
BUDGET_TRACE_CHEAP=45
BUDGET_TRACE_TEST=180
BUDGET_TRACE_BLOCKING=$BUDGET_TRACE
BUDGET_TRACE_SENDRECV=290
BUDGET_TRACE_WAITALL=530

# trace_budget_of CALL: the guard's budget for what tracing adds to CALL
# over profiling; status 1 for an unknown name.
trace_budget_of() {
    case $1 in
        comm_rank) echo "$BUDGET_TRACE_PLAIN" ;;
        iprobe) echo "$BUDGET_TRACE_CHEAP" ;;
        test_null) echo "$BUDGET_TRACE_TEST" ;;
        send | recv | allreduce | isend | irecv) echo "$BUDGET_TRACE_BLOCKING" ;;
        sendrecv_self) echo "$BUDGET_TRACE_SENDRECV" ;;
        waitall) echo "$BUDGET_TRACE_WAITALL" ;;
        *) return 1 ;;
    esac
}
