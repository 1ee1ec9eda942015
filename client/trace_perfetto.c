/* Trace files to Chrome trace-event JSON (client/trace_perfetto.h). */
#include "trace_perfetto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_job.h"
#include "trace_read.h"
#include "mpiwatch_trace.h"
#include "view_json.h"
#include "array_room.h"
#include "wait_functions.h"

/* A message's end: a send or a receive, on its channel (comm, source,
 * destination, tag). */
typedef struct {
    int comm, src, dst, tag;
    int rank;                  /* the rank whose call it is */
    size_t call;               /* index in that rank's calls: where the arrow is drawn
                                * (a non-blocking receive's: the call that completed it) */
    uint64_t t_in;             /* for the order of one rank's calls (a receive's: when it
                                * was posted) */
} message_end;


/* Another call that may receive on a communicator (a persistent receive, a
 * matched receive): a destination's messages on that
 * communicator are then not matched by order alone. Non-blocking receives
 * are matched here, through the call that completed them. */
static int other_receive(const char *name)
{
    return mww_fn_other_receive(name) && !mww_fn_nonblocking_receive(name);
}

static double micros(const mwc_trace_job *j, const mwc_trace_rank *r, uint64_t t)
{
    return mwc_trace_job_ns(j, r, t) / 1e3;
}

/* Where a flow arrow starts: just inside the start of the send, so that it
 * is bound to the send's slice and not to a call that ended at the same
 * nanosecond (the file's time unit is coarser than a short call's gaps). */
static double departure(const mwc_trace_job *j, const mwc_trace_rank *r, const mwc_trace_call *c)
{
    double start = micros(j, r, c->t_in), end = micros(j, r, c->t_out);
    return start + 0.001 < end ? start + 0.001 : start;
}

/* Where a flow arrow ends: just inside the end of the receive that took
 * the message, so the arrow points at the moment it was received. */
static double arrival(const mwc_trace_job *j, const mwc_trace_rank *r, const mwc_trace_call *c)
{
    double start = micros(j, r, c->t_in), end = micros(j, r, c->t_out);
    return end - 0.001 > start ? end - 0.001 : start;
}

/* Whether sel takes rank k's call c. */
static int taken(const mwc_trace_job *j, int k, const mwc_trace_call *c,
                 const mwc_timeline_select *sel)
{
    const mwc_trace_rank *r = &j->ranks[k];
    return mwc_select_rank(sel, k) &&
           mwc_select_span(sel, mwc_trace_job_ns(j, r, c->t_in) / 1e9,
                           mwc_trace_job_ns(j, r, c->t_out) / 1e9);
}

static void json_string(FILE *out, const char *s)
{
    mwc_json_string(out, s, strlen(s));
}

static int by_channel(const void *a, const void *b)
{
    const message_end *x = a, *y = b;
    int k[5] = {x->comm - y->comm, x->src - y->src, x->dst - y->dst, x->tag - y->tag, 0};
    for (int i = 0; i < 4; i++)
        if (k[i] != 0)
            return k[i] < 0 ? -1 : 1;
    return x->t_in < y->t_in ? -1 : x->t_in > y->t_in;
}

/* (rank, comm) pairs whose receives cannot be matched by order alone. */
typedef struct {
    int *rank, *comm;
    size_t n;
} unsafe_set;

static int is_unsafe(const unsafe_set *u, int rank, int comm)
{
    for (size_t i = 0; i < u->n; i++)
        if (u->rank[i] == rank && u->comm[i] == comm)
            return 1;
    return 0;
}

static void mark_unsafe(unsafe_set *u, int rank, int comm)
{
    if (is_unsafe(u, rank, comm))
        return;
    int *r = realloc(u->rank, (u->n + 1) * sizeof *r);
    if (r != NULL)
        u->rank = r;
    int *c = realloc(u->comm, (u->n + 1) * sizeof *c);
    if (c != NULL)
        u->comm = c;
    if (r != NULL && c != NULL) {
        u->rank[u->n] = rank;
        u->comm[u->n++] = comm;
    }
}

static int push_end(message_end **v, size_t *n, size_t *cap, message_end e)
{
    message_end *room = mwc_array_room(*v, *n, cap, sizeof *room, 1024);
    if (room == NULL)
        return -1;
    *v = room;
    (*v)[(*n)++] = e;
    return 0;
}

/* The flow arrows: the k-th send on a channel to the k-th receive on it
 * (MPI's non-overtaking order). Returns the number written, -1 out of memory. */
static long write_flows(FILE *out, const mwc_trace_job *j, const mwc_timeline_select *sel,
                        int *first)
{
    message_end *s = NULL, *r = NULL;
    size_t ns = 0, nr = 0, cs = 0, cr = 0;
    unsafe_set unsafe = {NULL, NULL, 0};
    long flows = 0;
    for (int k = 0; k < j->nranks; k++) {
        const mwc_trace_rank *t = &j->ranks[k];
        size_t *completer = NULL, *done_of = NULL;
        if (t->path != NULL && mwc_trace_completions(t, &completer, &done_of) != 0)
            goto oom;
        for (size_t i = 0; t->path != NULL && i < t->ncalls; i++) {
            const mwc_trace_call *c = &t->calls[i];
            const char *name = t->names[c->fn];
            if (!c->traffic)
                continue;
            message_end e = {c->comm, k, c->peer, c->tag, k, i, c->t_in};
            if (mww_fn_send_receive(name)) {
                /* both halves in one call: the send, and the receive its
                 * own-receive record says */
                const mwc_trace_done *own = mwc_trace_own_receive(t, c);
                if (c->peer >= 0 && c->tag >= 0 && push_end(&s, &ns, &cs, e) != 0)
                    goto oom;
                if (own == NULL || own->source < 0 || own->tag < 0)
                    mark_unsafe(&unsafe, k, c->comm);
                else if (push_end(&r, &nr, &cr,
                                  (message_end){c->comm, own->source, k, own->tag, k, i, c->t_in}) != 0)
                    goto oom;
            } else if (mww_fn_send(name) && c->peer >= 0 && c->tag >= 0) {
                if (push_end(&s, &ns, &cs, e) != 0)
                    goto oom;
            } else if (mww_fn_blocking_receive(name)) {
                if (c->peer < 0 || c->tag < 0) {
                    mark_unsafe(&unsafe, k, c->comm);
                    continue;
                }
                e.src = c->peer;
                e.dst = k;
                if (push_end(&r, &nr, &cr, e) != 0)
                    goto oom;
            } else if (mww_fn_nonblocking_receive(name)) {
                /* Its source and tag are its completion's status's, when known. */
                size_t by = completer[i];
                if (by == SIZE_MAX) {
                    mark_unsafe(&unsafe, k, c->comm);
                    continue;
                }
                const mwc_trace_done *d = &t->done[done_of[i]];
                e.src = d->source >= 0 ? d->source : c->peer;
                e.tag = d->source >= 0 ? d->tag : c->tag;
                e.dst = k;
                e.call = by;
                if (e.src < 0 || e.tag < 0) {
                    mark_unsafe(&unsafe, k, c->comm);
                    continue;
                }
                if (push_end(&r, &nr, &cr, e) != 0)
                    goto oom;
            } else if (other_receive(name)) {
                mark_unsafe(&unsafe, k, c->comm);
            }
        }
        free(completer);
        free(done_of);
    }
    qsort(s, ns, sizeof *s, by_channel);
    qsort(r, nr, sizeof *r, by_channel);
    for (size_t a = 0, b = 0; a < ns && b < nr;) {
        int cmp = by_channel(&(message_end){s[a].comm, s[a].src, s[a].dst, s[a].tag, 0, 0, 0},
                             &(message_end){r[b].comm, r[b].src, r[b].dst, r[b].tag, 0, 0, 0});
        if (cmp < 0) {
            a++;
            continue;
        }
        if (cmp > 0) {
            b++;
            continue;
        }
        const mwc_trace_rank *ts = &j->ranks[s[a].rank], *tr = &j->ranks[r[b].rank];
        const mwc_trace_call *cs_ = &ts->calls[s[a].call], *cr_ = &tr->calls[r[b].call];
        if (!is_unsafe(&unsafe, s[a].dst, s[a].comm) && taken(j, s[a].rank, cs_, sel) &&
            taken(j, r[b].rank, cr_, sel)) {
            flows++;
            fprintf(out, "%s\n{\"ph\":\"s\",\"cat\":\"message\",\"name\":\"message\",\"id\":%ld,"
                         "\"pid\":%d,\"tid\":%u,\"ts\":%.3f}",
                    *first ? "" : ",", flows, s[a].rank, cs_->thread, departure(j, ts, cs_));
            *first = 0;
            fprintf(out, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"message\",\"name\":\"message\","
                         "\"id\":%ld,\"pid\":%d,\"tid\":%u,\"ts\":%.3f}",
                    flows, r[b].rank, cr_->thread, arrival(j, tr, cr_));
        }
        a++;
        b++;
    }
    free(s);
    free(r);
    free(unsafe.rank);
    free(unsafe.comm);
    return flows;
oom:
    free(s);
    free(r);
    free(unsafe.rank);
    free(unsafe.comm);
    return -1;
}

/* Threads seen on a rank, for their names. */
static int seen_thread(uint32_t **seen, size_t *n, uint32_t thread)
{
    for (size_t i = 0; i < *n; i++)
        if ((*seen)[i] == thread)
            return 1;
    uint32_t *more = realloc(*seen, (*n + 1) * sizeof *more);
    if (more == NULL)
        return 1;   /* out of memory: the thread just goes unnamed */
    *seen = more;
    more[(*n)++] = thread;
    return 0;
}

/* A rank's marks: named regions as slices that hold their calls, begun and
 * ended on their thread ("B", "E"), MPI_Pcontrol's levels as instants. Those
 * outside sel's window are left out (a region that ends after it is drawn
 * to the end of the trace; one begun before it is not drawn). */
static void write_marks(FILE *out, const mwc_trace_job *j, int k, const mwc_timeline_select *sel,
                        uint32_t **seen, size_t *nseen)
{
    const mwc_trace_rank *t = &j->ranks[k];
    for (size_t i = 0; i < t->nmarks; i++) {
        const mwc_trace_mark *m = &t->marks[i];
        double us = micros(j, t, m->t);
        double s = mwc_trace_job_ns(j, t, m->t) / 1e9;
        if ((sel->has_start && s < sel->start) || (sel->has_end && s > sel->end))
            continue;
        if (!seen_thread(seen, nseen, m->thread))
            fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,"
                         "\"args\":{\"name\":\"thread %u\"}}", k, m->thread, m->thread);
        if (m->what == MWT_MARK_PCONTROL) {
            fprintf(out, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"pcontrol\","
                         "\"name\":\"MPI_Pcontrol(%d)\",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,"
                         "\"args\":{\"level\":%d}}",
                    m->value, k, m->thread, us, m->value);
            continue;
        }
        fprintf(out, ",\n{\"ph\":\"%s\",\"cat\":\"region\",\"name\":",
                m->what == MWT_MARK_BEGIN ? "B" : "E");
        json_string(out, t->regions[m->value]);
        fprintf(out, ",\"pid\":%d,\"tid\":%u,\"ts\":%.3f}", k, m->thread, us);
    }
}

/* The calls sel takes. */
static void write_calls(FILE *out, const mwc_trace_job *j, const mwc_timeline_select *sel,
                        int *first)
{
    for (int k = 0; k < j->nranks; k++) {
        const mwc_trace_rank *t = &j->ranks[k];
        if (t->path == NULL || !mwc_select_rank(sel, k))
            continue;
        fprintf(out, "%s\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,"
                     "\"args\":{\"name\":\"rank %d\"}}",
                *first ? "" : ",", k, k);
        *first = 0;
        fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,"
                     "\"args\":{\"sort_index\":%d}}", k, k);
        if (t->limits != NULL) {   /* calls left out on purpose: said on the process */
            fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":%d,"
                         "\"args\":{\"labels\":", k);
            mwc_json_string(out, t->limits, strlen(t->limits));
            fputs("}}", out);
        }
        uint32_t *seen = NULL;
        size_t nseen = 0;
        for (size_t i = 0; i < t->ncalls; i++) {
            const mwc_trace_call *c = &t->calls[i];
            if (!taken(j, k, c, sel))
                continue;
            if (!seen_thread(&seen, &nseen, c->thread))
                fprintf(out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%u,"
                             "\"args\":{\"name\":\"thread %u\"}}", k, c->thread, c->thread);
            fprintf(out, ",\n{\"ph\":\"X\",\"cat\":\"mpi\",\"name\":");
            json_string(out, t->names[c->fn]);
            fprintf(out, ",\"pid\":%d,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"site\":"
                         "\"0x%llx\"",
                    k, c->thread, micros(j, t, c->t_in),
                    micros(j, t, c->t_out) - micros(j, t, c->t_in),
                    (unsigned long long)c->site);
            if (c->traffic)
                fprintf(out, ",\"peer\":%d,\"tag\":%d,\"comm\":%d,\"bytes_sent\":%llu,"
                             "\"bytes_recv\":%llu",
                        c->peer, c->tag, c->comm, (unsigned long long)c->sent,
                        (unsigned long long)c->recv);
            if (c->root >= 0)
                fprintf(out, ",\"root\":%d", c->root);
            if (c->request != 0)
                fprintf(out, ",\"request\":%llu", (unsigned long long)c->request);
            if (c->count > 1)
                fprintf(out, ",\"polls\":%llu", (unsigned long long)c->count);
            for (uint32_t d = 0; d < c->ndone; d++) {
                const mwc_trace_done *done = &t->done[c->first_done + d];
                fprintf(out, "%s[%llu,%d,%d,%llu]%s", d == 0 ? ",\"completed\":[" : ",",
                        (unsigned long long)done->request, done->source, done->tag,
                        (unsigned long long)done->bytes, d + 1 == c->ndone ? "]" : "");
            }
            fputs("}}", out);
        }
        write_marks(out, j, k, sel, &seen, &nseen);
        free(seen);
    }
}

/* What sel leaves out, said on stderr and in the file: "" when nothing. */
static void left_out(char *text, size_t size, const mwc_timeline_select *sel, size_t calls,
                     size_t written)
{
    text[0] = '\0';
    if (calls == written)
        return;
    int n = snprintf(text, size, "%zu of %zu calls left out by", calls - written, calls);
    if (sel->nranges > 0 && n > 0 && (size_t)n < size)
        n += snprintf(text + n, size - (size_t)n, " --ranks");
    if ((sel->has_start || sel->has_end) && n > 0 && (size_t)n < size)
        snprintf(text + n, size - (size_t)n, "%s --window", sel->nranges > 0 ? " and" : "");
}

int mwc_trace_perfetto(const char *spec, const char *out_path, const mwc_timeline_select *sel,
                       int quiet)
{
    mwc_trace_job j;
    int problems = mwc_trace_job_read(spec, &j, quiet);
    if (problems < 0)
        return 1;
    size_t calls = 0, written = 0;   /* polls counted; written: the calls sel takes */
    uint64_t dropped = 0;
    int files = 0;
    for (int k = 0; k < j.nranks; k++) {
        for (size_t i = 0; i < j.ranks[k].ncalls; i++) {
            const mwc_trace_call *c = &j.ranks[k].calls[i];
            calls += c->count;
            if (j.ranks[k].path != NULL && taken(&j, k, c, sel))
                written += c->count;
        }
        dropped += j.ranks[k].dropped;
        files += j.ranks[k].path != NULL && mwc_select_rank(sel, k);
    }
    if (written == 0 && calls > 0) {   /* as the timeline page: nothing to show is an error */
        if (files == 0)
            fprintf(stderr, "mpiwatch: --ranks: the trace has ranks 0 to %d, none of them "
                            "chosen; nothing written\n", j.nranks - 1);
        else
            fprintf(stderr, "mpiwatch: --window: no call of the %d chosen rank(s) is in it; "
                            "nothing written\n", files);
        mwc_trace_job_free(&j);
        return 1;
    }
    FILE *out = fopen(out_path, "w");
    int status = problems != 0;
    long flows = 0;
    char omitted[160] = "";
    if (out == NULL) {
        fprintf(stderr, "mpiwatch: --perfetto %s: %s\n", out_path, strerror(errno));
        status = 1;
    } else {
        int first = 1;
        fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
        write_calls(out, &j, sel, &first);
        flows = write_flows(out, &j, sel, &first);
        left_out(omitted, sizeof omitted, sel, calls, written);
        fputs("\n]", out);
        if (omitted[0] != '\0') {
            fputs(",\"otherData\":{\"left_out\":", out);
            json_string(out, omitted);
            fputs("}", out);
        }
        fputs("}\n", out);
        if (flows < 0)
            fprintf(stderr, "mpiwatch: out of memory for the flow arrows; none written\n");
        if (fclose(out) != 0 || flows < 0) {
            fprintf(stderr, "mpiwatch: --perfetto %s: %s\n", out_path,
                    flows < 0 ? "incomplete" : strerror(errno));
            status = 1;
        }
    }
    if (!quiet && status == 0)
        fprintf(stderr, "mpiwatch: %s: %zu calls of %d of %d ranks, %ld messages%s%s%s\n",
                out_path, written, files, j.nranks, flows,
                dropped ? " (some calls were dropped)" : "", omitted[0] ? "; " : "", omitted);
    if (!quiet && dropped)
        fprintf(stderr, "mpiwatch: the ranks dropped %llu calls (MPIWATCH_TRACE_BUFFER reached)\n",
                (unsigned long long)dropped);
    mwc_trace_job_free(&j);
    return status;
}
