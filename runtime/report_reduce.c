/* Job-wide statistics by reductions on the private communicator: rank 0
 * receives sums, minima and maxima, never every rank's whole table. */
#include <float.h>
#include <mpi.h>

#include "mw_clock.h"
#include "mw_report.h"
#include "mw_state.h"

int mw_report_reduce(const mw_fn_stats *local, double app_time, mw_job_summary *job)
{
    static uint64_t calls[MW_FN_COUNT], calls_sum[MW_FN_COUNT];
    static double time[MW_FN_COUNT], min[MW_FN_COUNT], max[MW_FN_COUNT];
    static double time_sum[MW_FN_COUNT], min_all[MW_FN_COUNT], max_all[MW_FN_COUNT];
    MPI_Comm comm = mw_state.comm;
    int rc;

    for (int i = 0; i < MW_FN_COUNT; i++) {
        calls[i] = local[i].calls;
        time[i] = mw_clock_seconds(local[i].ticks);
        max[i] = mw_clock_seconds(local[i].max_ticks);
        min[i] = local[i].calls ? mw_clock_seconds(~local[i].min_inv) : DBL_MAX;
    }
    double app[2] = {app_time, -app_time}, app_max[2];
    if ((rc = PMPI_Reduce(calls, calls_sum, MW_FN_COUNT, MPI_UINT64_T, MPI_SUM, 0, comm)) ||
        (rc = PMPI_Reduce(time, time_sum, MW_FN_COUNT, MPI_DOUBLE, MPI_SUM, 0, comm)) ||
        (rc = PMPI_Reduce(min, min_all, MW_FN_COUNT, MPI_DOUBLE, MPI_MIN, 0, comm)) ||
        (rc = PMPI_Reduce(max, max_all, MW_FN_COUNT, MPI_DOUBLE, MPI_MAX, 0, comm)) ||
        (rc = PMPI_Reduce(app, app_max, 2, MPI_DOUBLE, MPI_MAX, 0, comm)))
        return rc;
    if (mw_state.world_rank != 0)
        return MPI_SUCCESS;
    job->ranks = mw_state.world_size;
    job->app_time_max = app_max[0];
    job->app_time_min = -app_max[1];
    for (int i = 0; i < MW_FN_COUNT; i++) {
        job->fn[i].calls = calls_sum[i];
        job->fn[i].time = time_sum[i];
        job->fn[i].min = calls_sum[i] ? min_all[i] : 0.0;
        job->fn[i].max = max_all[i];
    }
    return MPI_SUCCESS;
}
