/* A run's trace files read together (client/trace_job.h). */
#include "trace_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ticks of r's clock as nanoseconds of r's own line: its wall clock at its
 * origin, then its ticks. The wall clocks' difference is taken in integers:
 * nanoseconds since the epoch do not fit a double's 53 bits exactly. */
static double own_ns(const mwc_trace_job *j, const mwc_trace_rank *r, double t)
{
    return (double)(int64_t)(r->wall_ns - j->base_ns) +
           (t - (double)r->origin) / r->per_second * 1e9;
}

double mwc_trace_job_ns(const mwc_trace_job *j, const mwc_trace_rank *r, uint64_t t)
{
    const mwc_trace_rank *zero = j->nranks > 0 ? &j->ranks[0] : NULL;
    if (zero == NULL || zero->path == NULL || r->nsync == 0 || r == zero)
        return own_ns(j, r, (double)t) - j->shift_ns;
    /* On rank 0's clock, through r's sync points (mpiwatch_clock.h). */
    double on_zero = mwt_clock_map(t, r->sync[0], r->nsync > 1 ? &r->sync[1] : NULL,
                                   zero->per_second / r->per_second);
    return own_ns(j, zero, on_zero) - j->shift_ns;
}

int mwc_trace_job_read(const char *spec, mwc_trace_job *j, int quiet)
{
    char err[4800];
    char **paths = NULL;
    int n = mwc_trace_find(spec, &paths, err, sizeof err), problems = 0;
    if (n < 0) {
        fprintf(stderr, "mpiwatch: %s\n", err);
        return -1;
    }
    memset(j, 0, sizeof *j);
    for (int i = 0; i < n; i++) {
        mwc_trace_rank r;
        if (mwc_trace_read_file(paths[i], &r, err, sizeof err) != 0) {
            fprintf(stderr, "mpiwatch: %s\n", err);
            problems++;
        } else if (j->nranks != 0 && r.ranks != j->nranks) {
            fprintf(stderr, "mpiwatch: %s is a trace of %d ranks, the others of %d; skipped\n",
                    paths[i], r.ranks, j->nranks);
            problems++;
        } else {
            if (j->ranks == NULL && (j->ranks = calloc((size_t)r.ranks, sizeof *j->ranks)) != NULL)
                j->nranks = r.ranks;
            if (j->ranks == NULL || j->ranks[r.rank].path != NULL) {
                fprintf(stderr, "mpiwatch: %s: %s\n", paths[i],
                        j->ranks == NULL ? "out of memory" : "a second file for its rank; skipped");
                problems++;
            } else {
                if (err[0] != '\0') {
                    fprintf(stderr, "mpiwatch: %s\n", err);
                    problems++;
                } else if (r.truncated && !quiet) {
                    fprintf(stderr, "mpiwatch: %s ends inside a chunk (the job was stopped while "
                                    "writing it); its whole chunks are converted\n", paths[i]);
                }
                j->ranks[r.rank] = r;
                continue;
            }
        }
        mwc_trace_rank_free(&r);
    }
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    if (j->nranks == 0)
        return -1;
    if (mwc_trace_unify_comms(j->ranks, j->nranks, &j->comms, &j->ncomms) != 0) {
        fprintf(stderr, "mpiwatch: out of memory for the trace's communicators\n");
        mwc_trace_job_free(j);
        return -1;
    }
    j->base_ns = UINT64_MAX;
    for (int k = 0; k < j->nranks; k++)
        if (j->ranks[k].path != NULL && j->ranks[k].wall_ns < j->base_ns)
            j->base_ns = j->ranks[k].wall_ns;
    double earliest = 0;
    for (int k = 0; k < j->nranks; k++) {
        double t = mwc_trace_job_earliest_ns(j, &j->ranks[k]);
        earliest = t < earliest ? t : earliest;
    }
    j->shift_ns = earliest;
    return problems;
}

double mwc_trace_job_earliest_ns(const mwc_trace_job *j, const mwc_trace_rank *r)
{
    double earliest = 0;   /* MPI_Init begins before the origin: no negative times */
    for (size_t i = 0; i < r->ncalls; i++) {
        double t = mwc_trace_job_ns(j, r, r->calls[i].t_in) + j->shift_ns;
        earliest = t < earliest ? t : earliest;
    }
    return earliest;
}

void mwc_trace_job_free(mwc_trace_job *j)
{
    for (int k = 0; k < j->nranks; k++)
        mwc_trace_rank_free(&j->ranks[k]);
    free(j->ranks);
    free(j->comms);
    memset(j, 0, sizeof *j);
}
