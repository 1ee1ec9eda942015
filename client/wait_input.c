/* A trace's calls for the wait-state analysis (client/wait_input.h). */
#include "wait_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wait_functions.h"

/* A rooted collective's root, where the trace says it. */
static int root_of(const mwc_trace_call *c)
{
    return c->root;
}

/* A rooted call: its communicator and place among the rank's rooted calls
 * on it, the instance the analysis will match it to. */
typedef struct {
    int comm;
    long seq;
    mww_call *call;
} rooted_call;

static int by_instance(const void *pa, const void *pb)
{
    const rooted_call *x = pa, *y = pb;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A rooted collective whose record has no root (kind 5 is noted where
 * the generator knows the call's root, root_of): the one rank that sends
 * in a broadcast or scatter, the one that receives in a reduce or gather;
 * the other calls of the instance (the same place on the same
 * communicator) learn it from the root's. */
static int infer_roots(mwc_wait_input *j)
{
    rooted_call *v = NULL;
    size_t n = 0, cap = 0;
    int comms[64];             /* a rank's communicators, and its rooted calls on each */
    long counts[64];
    for (int k = 0; k < j->nranks; k++) {
        int ncomms = 0;
        for (size_t i = 0; i < j->ranks[k].ncalls; i++) {
            mww_call *c = &j->calls[k][i];
            const mwc_trace_call *t = &j->ranks[k].calls[i];
            int role = mww_root_role(c->function);
            if (role == 0)
                continue;
            if (c->root < 0 && t->traffic &&
                ((role == MWW_ROOT_SENDER && t->sent > 0) ||
                 (role == MWW_ROOT_RECEIVER && t->recv > 0)))
                c->root = k;
            int at = 0;
            while (at < ncomms && comms[at] != c->comm)
                at++;
            if (at == ncomms && ncomms < 64) {
                comms[ncomms] = c->comm;
                counts[ncomms++] = 0;
            }
            if (at == 64)
                continue;   /* a 65th communicator: its calls' roots stay unknown */
            long seq = counts[at]++;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 256;
                rooted_call *more = realloc(v, nc * sizeof *more);
                if (more == NULL) {
                    free(v);
                    return -1;
                }
                v = more;
                cap = nc;
            }
            v[n++] = (rooted_call){c->comm, seq, c};
        }
    }
    qsort(v, n, sizeof *v, by_instance);
    for (size_t i = 0; i < n;) {
        size_t end = i;
        int root = -1;
        while (end < n && v[end].comm == v[i].comm && v[end].seq == v[i].seq)
            root = v[end++].call->root >= 0 ? v[end - 1].call->root : root;
        for (; i < end; i++)
            if (v[i].call->root < 0)
                v[i].call->root = root;
    }
    free(v);
    return 0;
}

/* A non-blocking receive that the trace saw completed: the call that
 * completed it, and its message's source and tag from the status (an
 * MPI_ANY_SOURCE one's real source), else its arguments'. */
static void completed_receive(mww_call *c, size_t completer, const mwc_trace_done *d)
{
    c->completed_by = completer + 1;
    if (d->source >= 0 && d->tag >= 0) {
        c->peer = d->source;
        c->tag = d->tag;
    }
}

/* Each MPI_Test* that completed a request after polls that found nothing
 * (the same function and site, just before it on its thread: a polling
 * loop, its polls folded into records of several): the first of them,
 * from which it waited (mww_call.polls). 0, or -1 out of memory. */
static int polling_loops(const mwc_trace_rank *r, mww_call *calls)
{
    size_t *prev;
    if (mww_previous_calls(&(mww_rank){calls, r->ncalls, NULL}, &prev) != 0)
        return -1;
    for (size_t i = 0; i < r->ncalls; i++) {
        if (r->calls[i].ndone == 0 || mww_fn_blocking_completion(calls[i].function) ||
            mww_fn_send_receive(calls[i].function))   /* its done is its own receive */
            continue;
        size_t first = 0;
        for (size_t j = prev[i]; j != 0 && r->calls[j - 1].ndone == 0 &&
                                 r->calls[j - 1].fn == r->calls[i].fn &&
                                 calls[j - 1].site == calls[i].site;
             j = prev[j - 1])
            first = j;
        calls[i].polls = first;
    }
    free(prev);
    return 0;
}

int mwc_wait_rank_calls(const mwc_trace_job *job, const mwc_trace_rank *r, mww_call **out)
{
    *out = NULL;
    if (r->ncalls == 0)
        return 0;
    size_t *completer = NULL, *done_of = NULL;
    mww_call *calls = malloc(r->ncalls * sizeof *calls);
    if (calls == NULL || mwc_trace_completions(r, &completer, &done_of) != 0) {
        free(calls);
        return -1;
    }
    for (size_t i = 0; i < r->ncalls; i++) {
        const mwc_trace_call *t = &r->calls[i];
        calls[i] = (mww_call){r->names[t->fn],
                              mwc_trace_job_ns(job, r, t->t_in) / 1e9,
                              mwc_trace_job_ns(job, r, t->t_out) / 1e9,
                              t->traffic ? t->peer : -1,
                              t->traffic ? t->tag : -1,
                              t->traffic ? t->comm : -1,
                              root_of(t),
                              t->sent,
                              t->site,
                              t->thread,
                              0,
                              0,
                              -1,
                              -1};
        const mwc_trace_done *own = mwc_trace_own_receive(r, t);
        if (own != NULL && own->source >= 0 && own->tag >= 0) {
            calls[i].recv_peer = own->source;
            calls[i].recv_tag = own->tag;
        }
        if (completer[i] != SIZE_MAX && mww_fn_nonblocking_receive(r->names[t->fn]))
            completed_receive(&calls[i], completer[i], &r->done[done_of[i]]);
        else if (completer[i] != SIZE_MAX && mww_fn_nonblocking_send(r->names[t->fn]))
            calls[i].completed_by = completer[i] + 1;   /* a send's status says nothing */
    }
    free(completer);
    free(done_of);
    if (polling_loops(r, calls) != 0) {
        free(calls);
        return -1;
    }
    *out = calls;
    return 0;
}

int mwc_wait_input_load(const char *spec, mwc_wait_input *j, int quiet)
{
    memset(j, 0, sizeof *j);
    int problems = mwc_trace_job_read(spec, &j->job, quiet);
    if (problems < 0)
        return -1;
    j->ranks = j->job.ranks;
    j->nranks = j->job.nranks;
    j->problems = problems;
    j->calls = calloc((size_t)j->nranks, sizeof *j->calls);
    j->view = calloc((size_t)j->nranks, sizeof *j->view);
    if (j->calls == NULL || j->view == NULL)
        return -1;
    for (int k = 0; k < j->nranks; k++) {
        if (mwc_wait_rank_calls(&j->job, &j->ranks[k], &j->calls[k]) != 0)
            return -1;
        j->view[k] = (mww_rank){j->calls[k], j->ranks[k].ncalls, NULL};
    }
    return infer_roots(j);
}

void mwc_wait_input_warn(const mwc_wait_input *j, int quiet)
{
    uint64_t dropped = 0;
    int files = 0;
    for (int k = 0; k < j->nranks; k++) {
        dropped += j->ranks[k].dropped;
        files += j->ranks[k].path != NULL;
    }
    if (!quiet && files < j->nranks)
        fprintf(stderr, "mpiwatch: only %d of %d ranks' files were read: waits involving the "
                        "others are not seen\n", files, j->nranks);
    if (!quiet && dropped)
        fprintf(stderr, "mpiwatch: the ranks dropped %llu calls (MPIWATCH_TRACE_BUFFER reached): "
                        "messages and collectives around the holes may be matched wrongly\n",
                (unsigned long long)dropped);
}

void mwc_wait_input_free(mwc_wait_input *j)
{
    for (int k = 0; j->calls != NULL && k < j->nranks; k++)
        free(j->calls[k]);
    if (j->ranks != NULL)
        mwc_trace_job_free(&j->job);
    free(j->calls);
    free(j->view);
}

int mwc_wait_load_analyze(const char *spec, int details, mwc_wait_input *j, mww_result *r,
                          int quiet)
{
    if (mwc_wait_input_load(spec, j, quiet) != 0) {
        if (j->nranks != 0)
            fprintf(stderr, "mpiwatch: out of memory reading the trace\n");
        mwc_wait_input_free(j);
        return 1;
    }
    mww_options opt = {.rendezvous_bytes = MWW_RENDEZVOUS_BYTES_DEFAULT, .details = details};
    if (mww_analyze(j->view, j->nranks, &opt, r) != 0) {
        fprintf(stderr, "mpiwatch: out of memory analysing the trace\n");
        mwc_wait_input_free(j);
        return 1;
    }
    return 0;
}
