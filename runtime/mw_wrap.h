/* The runtime API the generated wrappers call. Everything on the per-call
 * path is inline: a wrapper costs a level test, a guard, two clock reads and
 * a table update.
 *
 *     if (!mw_enter())                 -- not profiled: off, or a nested call
 *         return PMPI_X(...);
 *     mw_call call;
 *     mw_start(&call);                 -- time in
 *     ret = PMPI_X(...);
 *     mw_stop(&call);                  -- time out
 *     mw_exit(&call, MW_ID_MPI_X);     -- record, release the guard
 *
 * User hooks run between mw_enter and mw_start, and between mw_stop and
 * mw_exit: inside the guard (their MPI calls are not profiled) and outside
 * the timed span. */
#ifndef MW_WRAP_H
#define MW_WRAP_H

#include <mpi.h>

#include "mw_clock.h"
#include "mw_functions.h"
#include "mw_state.h"
#include "mw_stats.h"

typedef struct mw_call {
    uint64_t t_in;
    uint64_t t_out;
} mw_call;

static inline int mw_enter(void)
{
    if (MW_UNLIKELY(!mw_level) || mw_depth)
        return 0;
    mw_depth = 1;
    return 1;
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

/* Lifecycle, called by the MPI_Init/Init_thread, MPI_Finalize and
 * MPI_Pcontrol wrappers. */
MW_HIDDEN void mw_on_init(void);        /* after a successful PMPI_Init */
MW_HIDDEN void mw_on_finalize(void);    /* before PMPI_Finalize: builds the report */
MW_HIDDEN void mw_on_pcontrol(int level);

#endif
