/* The profile report written at MPI_Finalize. */
#ifndef MW_REPORT_H
#define MW_REPORT_H

#include "mw_compiler.h"
#include "mw_functions.h"
#include "mw_stats.h"

/* Job-wide statistics of one function, reduced over the ranks. */
typedef struct mw_fn_summary {
    uint64_t calls;          /* sum over ranks */
    double time;             /* seconds, sum over ranks */
    double min;              /* shortest single call, any rank */
    double max;              /* longest single call, any rank */
} mw_fn_summary;

typedef struct mw_job_summary {
    int ranks;
    double app_time_max;     /* seconds from MPI_Init to MPI_Finalize, slowest rank */
    double app_time_min;
    const char *program;
    const char *timer;
    mw_fn_summary fn[MW_FN_COUNT];
} mw_job_summary;

/* Reduce this rank's merged statistics onto rank 0 of the private
 * communicator; on rank 0 fill *job. Returns MPI_SUCCESS or an MPI error. */
MW_HIDDEN int mw_report_reduce(const mw_fn_stats *local, double app_time, mw_job_summary *job);

/* Write the JSON report into dir (atomically: a temporary file renamed).
 * Returns 0, or -1 after a warning. */
MW_HIDDEN int mw_report_write_json(const mw_job_summary *job, const char *dir);

#endif
