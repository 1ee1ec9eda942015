/* The rank x function matrix: for every function called on some rank, each
 * rank's calls, time and bytes. Rank 0 receives only the functions that
 * were called somewhere: a few rows per rank, not the whole table. */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/yielding_collectives.h"
#include "core/state.h"
#include "report/report.h"

#define N MW_FN_COUNT
#define FIELDS 4   /* calls, seconds, bytes sent, bytes received: as doubles */

int mw_report_matrix(const mw_fn_stats *local, mw_job_summary *job, MPI_Comm comm)
{
    static unsigned char used[N], used_all[N];
    int rc, rows = 0, world = mw_state.world_size;
    for (int i = 0; i < N; i++)
        used[i] = local[i].calls > 0;
    if ((rc = mw_allreduce(used, used_all, N, MPI_UNSIGNED_CHAR, MPI_MAX, comm)))
        return rc;
    for (int i = 0; i < N; i++)
        rows += used_all[i];
    double *mine = malloc((size_t)(rows ? rows : 1) * FIELDS * sizeof *mine);
    double *all = job ? malloc((size_t)world * (size_t)(rows ? rows : 1) * FIELDS * sizeof *all) : NULL;
    int *ids = job ? malloc((size_t)(rows ? rows : 1) * sizeof *ids) : NULL;
    if (mine == NULL || (job && (all == NULL || ids == NULL))) {
        free(mine);
        free(all);
        free(ids);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0, r = 0; i < N; i++) {
        if (!used_all[i])
            continue;
        if (ids)
            ids[r] = i;
        double *row = &mine[(size_t)r++ * FIELDS];
        row[0] = (double)local[i].calls;
        row[1] = mw_clock_seconds(local[i].ticks);
        row[2] = (double)local[i].sent;
        row[3] = (double)local[i].recv;
    }
    rc = mw_gather(mine, rows * FIELDS, MPI_DOUBLE, all, comm);
    free(mine);
    if (job && rc == MPI_SUCCESS) {
        job->matrix = all;
        job->matrix_fns = ids;
        job->matrix_rows = rows;
    } else {
        free(all);
        free(ids);
    }
    return rc;
}
