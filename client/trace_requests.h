/* Requests of a rank's trace matched to their completions (docs/trace.md,
 * "Requests"). The files name a request by the handle the MPI gave it; a
 * handle is reused once its request completed, and an MPI may even give
 * several outstanding requests one handle (Open MPI's to MPI_PROC_NULL). A
 * completion belongs to the latest start of its handle that had left
 * before the completing call entered, on the rank's one clock, whichever
 * thread made either. */
#ifndef MWC_TRACE_REQUESTS_H
#define MWC_TRACE_REQUESTS_H

#include "trace_read.h"

/* Name r's requests by ids unique in the rank (the starting call's index
 * + 1) in place of handles, in its calls and completions; drop completions
 * of requests no recorded call started (before the trace, or by a call the
 * trace does not follow); keep a status's source, tag and bytes for
 * receives only, a receive's source being its start's when its status gave
 * none. 0, or -1 out of memory (r unchanged). */
int mwc_trace_match_requests(mwc_trace_rank *r);

#endif
