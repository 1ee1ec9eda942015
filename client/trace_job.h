/* A run's per-rank trace files, read together for the converters
 * (trace_perfetto.c, trace_otf2.c): one rank per file, and one time line
 * for all of them. */
#ifndef MWC_TRACE_JOB_H
#define MWC_TRACE_JOB_H

#include <stdint.h>

#include "trace_comms.h"
#include "trace_read.h"

typedef struct {
    mwc_trace_rank *ranks;     /* by world rank; path NULL when missing */
    int nranks;
    uint64_t base_ns;          /* the earliest origin */
    double shift_ns;           /* the earliest call's time from base_ns: time 0 */
    mwc_job_comm *comms;       /* the job's communicators: every call's comm indexes it */
    int ncomms;
} mwc_trace_job;

/* Read the run's files (spec as mwc_trace_find takes it) into j; the
 * number of files that were damaged or unreadable (said on stderr), or -1
 * when nothing is usable. Free with mwc_trace_job_free unless -1. */
int mwc_trace_job_read(const char *spec, mwc_trace_job *j, int quiet);

/* Ticks t of rank r's clock as nanoseconds from the job's time 0 (ranks put
 * on one line by the wall clock at their origins). */
double mwc_trace_job_ns(const mwc_trace_job *j, const mwc_trace_rank *r, uint64_t t);

/* The time of r's earliest call from base_ns (before shift_ns), or 0 when
 * none is earlier: the least of these over the ranks is shift_ns. */
double mwc_trace_job_earliest_ns(const mwc_trace_job *j, const mwc_trace_rank *r);

void mwc_trace_job_free(mwc_trace_job *j);

#endif
