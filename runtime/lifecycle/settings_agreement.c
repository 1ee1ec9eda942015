/* The settings every rank must share (lifecycle/settings_agreement.h). The
 * trace and the live monitor make collective calls at MPI_Init and
 * MPI_Finalize when they are on; a job whose ranks were started with
 * different MPIWATCH_* values (an MPMD launch giving one program
 * MPIWATCH_TRACE=1 and not the other) would hang there. So, before any of
 * them starts, one allreduce finds whether every rank agrees; a setting
 * they do not agree on is turned off on every rank, and rank 0 says so. */
#include <mpi.h>

#include "core/state.h"
#include "core/warn.h"
#include "lifecycle/settings_agreement.h"
#include "monitor/monitor.h"

enum { S_TRACE, S_PUBLISH, S_NODE_SIZE, S_COUNT };

static const char *const setting_names[S_COUNT] = {
    "MPIWATCH_TRACE", "MPIWATCH_MONITOR", "MPIWATCH_NODE_SIZE"};

void mw_settings_agree(void)
{
    int mine[S_COUNT] = {mw_state.config.trace, mw_monitor_opts.publish,
                         mw_monitor_opts.node_size};
    int both[2 * S_COUNT], least[2 * S_COUNT];   /* the least of v and of -v: min and max */
    for (int i = 0; i < S_COUNT; i++) {
        both[i] = mine[i];
        both[S_COUNT + i] = -mine[i];
    }
    if (PMPI_Allreduce(both, least, 2 * S_COUNT, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) {
        mw_warn("rank %d: the ranks' settings could not be compared; the trace and the live "
                "monitor are off", mw_state.world_rank);
        least[0] = 0;
        least[S_COUNT] = -1;   /* as if they differed */
        least[1] = 0;
        least[S_COUNT + 1] = -1;
        least[2] = 0;
        least[S_COUNT + 2] = -1;
    }
    for (int i = 0; i < S_COUNT; i++) {
        if (least[i] == -least[S_COUNT + i])
            continue;   /* every rank has the same value */
        if (mw_state.world_rank == 0)
            mw_warn("%s differs between the ranks (started with different environments?): off "
                    "on every rank, since it needs them all", setting_names[i]);
        if (i == S_TRACE)
            mw_state.config.trace = 0;
        else if (i == S_PUBLISH)
            mw_monitor_opts.publish = MW_PUBLISH_OFF;
        else
            mw_monitor_opts.node_size = 0;
    }
}
