/* The runtime API the generated wrappers call. Everything on the per-call
 * path is inline: a wrapper costs a level test, a guard, two clock reads and
 * a table update.
 *
 * A wrapper is split in two so that with profiling off it is a test and a
 * jump (no stack frame): MPI_X tests mw_profiling() and tail-calls PMPI_X
 * or its profiled body, which does
 *
 *     if (!mw_enter_guard())           -- a nested call: not counted again
 *         return PMPI_X(...);
 *     mw_call call;
 *     mw_start(&call);                 -- time in
 *     ret = PMPI_X(...);
 *     mw_stop(&call);                  -- time out
 *     mw_exit(&call, MW_ID_MPI_X);     -- record, release the guard
 *
 * Functions that move data note what they moved between mw_stop and the
 * exit (mw_note_* in mw_traffic.h) and leave with mw_exit_xfer, which also
 * records the bytes. Functions that free a handle call mw_handles_forget()
 * first, whether or not the call is profiled, so no cache outlives it.
 *
 * User hooks run between mw_enter_guard and mw_start, and between mw_stop and
 * mw_exit: inside the guard (their MPI calls are not profiled) and outside
 * the timed span. */
#ifndef MW_WRAP_H
#define MW_WRAP_H

#include <mpi.h>

#include "mw_clock.h"
#include "mw_functions.h"
#include "mw_state.h"
#include "mw_handles.h"
#include "mw_stats.h"
#include "mw_traffic.h"

/* Is profiling on (MPI_Pcontrol, MPIWATCH_LEVEL)? The one test a wrapper
 * makes before deciding to profile at all. */
static inline int mw_profiling(void)
{
    /* Any thread may call MPI_Pcontrol: a relaxed atomic load (a plain load
     * on x86) keeps that free of data races. */
    return MW_LIKELY(__atomic_load_n(&mw_level, __ATOMIC_RELAXED) != 0);
}

/* The re-entry guard: 0 for a call made from inside another profiled MPI
 * call (by the MPI itself, or a Fortran shim), which is not counted again. */
static inline int mw_enter_guard(void)
{
    if (mw_depth)
        return 0;
    mw_depth = 1;
    return 1;
}

/* Both tests at once, for wrappers that are not split in two. */
static inline int mw_enter(void)
{
    return mw_profiling() && mw_enter_guard();
}

static inline void mw_start(mw_call *call)
{
    call->t_in = mw_now();
}

static inline void mw_stop(mw_call *call)
{
    call->t_out = mw_now();
}

static inline void mw_exit(const mw_call *call, int id)
{
    mw_stats_add(id, call->t_out - call->t_in);
    mw_depth = 0;
}

static inline void mw_exit_xfer(const mw_call *call, int id)
{
    mw_stats_add(id, call->t_out - call->t_in);
    mw_account(id, call);
    mw_depth = 0;
}

/* Lifecycle, called by the MPI_Init/Init_thread, MPI_Finalize and
 * MPI_Pcontrol wrappers. */
MW_HIDDEN void mw_on_init(void);        /* after a successful PMPI_Init */
MW_HIDDEN void mw_on_finalize(void);    /* before PMPI_Finalize: builds the report */
MW_HIDDEN void mw_on_pcontrol(int level);

#endif
