/* A traced run's calls as the wait-state analysis takes them
 * (client/wait_states.h): read from the per-rank trace files
 * (client/trace_job.h), their times put on the clock shared by the ranks
 * (rank 0's, through the sync points: seconds from the trace's first call),
 * and the roots of rooted collectives found. */
#ifndef MWC_WAIT_INPUT_H
#define MWC_WAIT_INPUT_H

#include <stdint.h>

#include "trace_job.h"
#include "trace_read.h"
#include "wait_states.h"

typedef struct {
    mwc_trace_job job;         /* the files, and the one clock of the ranks */
    mwc_trace_rank *ranks;     /* job.ranks: by world rank; path NULL when missing */
    int nranks;
    mww_call **calls;          /* by rank: its calls for the analysis */
    mww_rank *view;            /* by rank: calls and count, for mww_analyze */
    int problems;              /* files damaged or unreadable (said on stderr) */
} mwc_wait_input;

/* Read the run's files (spec as for --perfetto: a folder, or the path up to
 * ".trace."). 0, or -1: nothing readable (said on stderr), or out of
 * memory when nranks is not 0. Free with mwc_wait_input_free either way. */
int mwc_wait_input_load(const char *spec, mwc_wait_input *j, int quiet);

void mwc_wait_input_free(mwc_wait_input *j);

/* One rank's calls for the analysis (*out malloc'd, r->ncalls of them, NULL
 * for none), on job's clock, each MPI_Irecv with its completion. Roots are
 * the trace's. 0, or -1 out of memory. */
int mwc_wait_rank_calls(const mwc_trace_job *job, const mwc_trace_rank *r, mww_call **out);

/* Load the run (as mwc_wait_input_load) and analyse it into *r, with each
 * wait state's details when asked (the timeline). 0, or 1 with the reason on
 * stderr and *j freed. Free r with mww_result_free, then j. */
int mwc_wait_load_analyze(const char *spec, int details, mwc_wait_input *j, mww_result *r,
                          int quiet);

/* Unless quiet, say on stderr what the input misses: ranks whose file was
 * not read, calls the ranks dropped. */
void mwc_wait_input_warn(const mwc_wait_input *j, int quiet);

#endif
