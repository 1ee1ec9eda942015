/* The trace's sync points (docs/trace.md, "One clock"): this rank's clock
 * against rank 0's, measured by ping-pong on the private communicator.
 * Internal to trace/. */
#ifndef MW_TRACE_CLOCK_SYNC_H
#define MW_TRACE_CLOCK_SYNC_H

#include "core/compiler.h"
#include "mpiwatch_clock.h"

/* Collective over MPI_COMM_WORLD: every rank calls it, rank 0 answers each
 * other rank in turn. 0 with *out set; -1 when MPI failed. */
MW_HIDDEN int mw_trace_clock_sync(mwt_sync_point *out);

#endif
