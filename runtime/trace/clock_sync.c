/* The trace's sync points (trace/clock_sync.h). Rank 0 answers every other
 * rank's pings in turn with its clock; each rank keeps the round with the
 * shortest round trip (mpiwatch_clock.h). Ranks of the private duplicate
 * of MPI_COMM_WORLD are world ranks. */
#include <mpi.h>

#include "core/clock.h"
#include "core/state.h"
#include "trace/clock_sync.h"

#define MW_SYNC_ROUNDS 12
#define MW_SYNC_TAG 29

int mw_trace_clock_sync(mwt_sync_point *out)
{
    MPI_Comm comm = mw_private_comm();
    uint64_t t;
    if (comm == MPI_COMM_NULL)
        return -1;
    if (mw_state.world_rank == 0) {
        for (int r = 1; r < mw_state.world_size; r++)
            for (int k = 0; k < MW_SYNC_ROUNDS; k++) {
                if (PMPI_Recv(&t, 1, MPI_UINT64_T, r, MW_SYNC_TAG, comm, MPI_STATUS_IGNORE) !=
                    MPI_SUCCESS)
                    return -1;
                t = mw_now();
                if (PMPI_Send(&t, 1, MPI_UINT64_T, r, MW_SYNC_TAG, comm) != MPI_SUCCESS)
                    return -1;
            }
        t = mw_now();
        *out = (mwt_sync_point){t, t};
        return 0;
    }
    mwt_clock_round rounds[MW_SYNC_ROUNDS];
    for (int k = 0; k < MW_SYNC_ROUNDS; k++) {
        rounds[k].sent = mw_now();
        if (PMPI_Send(&rounds[k].sent, 1, MPI_UINT64_T, 0, MW_SYNC_TAG, comm) != MPI_SUCCESS ||
            PMPI_Recv(&rounds[k].peer, 1, MPI_UINT64_T, 0, MW_SYNC_TAG, comm,
                      MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        rounds[k].back = mw_now();
    }
    *out = mwt_clock_sync_point(rounds, MW_SYNC_ROUNDS);
    return 0;
}
