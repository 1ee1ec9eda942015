/* The live monitor in the report: its transport and its event counters
 * (sent, dropped, unwatched; docs/protocol.md) summed over the ranks. */
#include <stdint.h>

#include "core/yielding_collectives.h"
#include "monitor/monitor.h"
#include "report/report.h"

int mw_report_monitor(mw_job_summary *job, MPI_Comm comm)
{
    const char *transport = NULL;
    mw_monitor_counts c = {0, 0, 0};
    uint64_t skipped = 0;
    int on = mw_monitor_active(&transport, &c, &skipped);
    /* ranks with the monitor, ranks using MPI ports, then the counters */
    uint64_t mine[6] = {(uint64_t)on, (uint64_t)(on && transport[0] == 'm'), c.sent, c.dropped,
                        c.unwatched, skipped};
    uint64_t all[6] = {0, 0, 0, 0, 0, 0};
    int rc = mw_reduce(mine, all, 6, MPI_UINT64_T, MPI_SUM, comm);
    if (rc != MPI_SUCCESS || job == NULL || all[0] == 0)
        return rc;
    job->monitor = all[1] == 0 ? "tcp" : all[1] == all[0] ? "mpi" : "tcp,mpi";
    job->monitor_sent = all[2];
    job->monitor_dropped = all[3];
    job->monitor_unwatched = all[4];
    job->monitor_skipped = all[5];
    return MPI_SUCCESS;
}
