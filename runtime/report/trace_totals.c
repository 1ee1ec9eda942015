/* The trace in the report: calls recorded and dropped, bytes written, and
 * the ranks that traced, summed over the ranks (docs/trace.md). */
#include <stdint.h>

#include "core/yielding_collectives.h"
#include "report/report.h"
#include "trace/trace.h"

int mw_report_trace(mw_job_summary *job, MPI_Comm comm)
{
    mw_trace_totals t;
    int on = mw_trace_read_totals(&t);
    uint64_t mine[4] = {(uint64_t)on, t.events, t.dropped, t.bytes};
    uint64_t all[4] = {0, 0, 0, 0};
    int rc = mw_reduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, comm);
    if (rc != MPI_SUCCESS || job == NULL || all[0] == 0)
        return rc;
    job->trace_ranks = (int)all[0];
    job->trace_events = all[1];
    job->trace_dropped = all[2];
    job->trace_bytes = all[3];
    return MPI_SUCCESS;
}
