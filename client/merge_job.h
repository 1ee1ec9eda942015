/* Ranks' partial profiles of one job combined into the job report's summary
 * (runtime/report/report.h), the same figures MPI_Finalize's reductions make
 * (runtime/report/reduce.c), for the runtime's own writers. */
#ifndef MWC_MERGE_JOB_H
#define MWC_MERGE_JOB_H

#include "merge_read.h"

typedef struct {
    mw_job_summary job;
    mw_merge_facts facts;
    int *ids;                /* job.rank_ids */
    int *missing;
    mw_merged_rank *ranks;
} mwc_merged;

/* Combine n profiles of one job (distinct ranks, sorted by rank, n >= 1)
 * into *m; the profiles must outlive it. */
void mwc_merge_job(const mwc_partial *const *p, int n, mwc_merged *m);
void mwc_merged_free(mwc_merged *m);

#endif
