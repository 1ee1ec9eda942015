/* The job's state as the viewer page reads it from /api/state (mpiwatch
 * --web): a JSON document in the report's schema (MW_REPORT_SCHEMA: ranks,
 * rank_times, functions, rank_functions, pairs), so that one page draws both,
 * plus a "live" object: the client's counts of ranks, the job-wide rates over
 * the last interval, and the calls in progress with whether they are stuck.
 * docs/client.md ("The live page") lists the keys. */
#ifndef MWC_WEB_STATE_H
#define MWC_WEB_STATE_H

#include <stddef.h>

#include "model.h"

/* The state at the client's time now (mwc_now()), elapsed seconds into the
 * watch; calls longer than stuck_s are stuck; recording: it comes from a
 * --replay ("live": {"recording": true}). malloc'd, NUL-terminated, *len
 * bytes; NULL when out of memory. */
char *mwc_web_state(const mwc_model *m, double now, double elapsed, double stuck_s, int recording,
                    size_t *len);

#endif
