/* The wait states of the job at MPI_Finalize: each rank's own analysis
 * (report/wait_finalize.h) merged onto rank 0, its sites named there, and
 * kept for the report's section "Waiting, and what caused it"
 * (report/wait_section.h). */
#ifndef MW_REPORT_WAIT_MERGE_H
#define MW_REPORT_WAIT_MERGE_H

#include <mpi.h>

#include "core/compiler.h"

struct mw_job_summary;

/* When the trace was on: analyse on every rank of comm, merge onto rank 0
 * (job on rank 0, NULL elsewhere), which keeps the result in job->waits.
 * Collective; MPI_SUCCESS, or an MPI error code. */
MW_HIDDEN int mw_report_waits(struct mw_job_summary *job, MPI_Comm comm);

#endif
