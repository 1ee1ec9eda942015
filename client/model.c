#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void mwc_model_init(mwc_model *m, size_t n)
{
    m->n = n;
    m->r = mwc_calloc(n, sizeof *m->r);
    for (size_t i = 0; i < n; i++) {
        m->r[i].endpoint_rank = -1;
        m->r[i].level = 1;
    }
}

static void forget_hello(mwc_rank *r)
{
    for (uint32_t i = 0; i < r->nfunctions; i++)
        free(r->names[i]);
    free(r->names);
    free(r->snap);
    free(r->live);
    free(r->host);
    free(r->program);
    free(r->timer);
    free(r->mpi);
    free(r->inflight);
    r->inflight = NULL;
    r->ninflight = 0;
    free(r->prev);
    free(r->rates.fn);
    free(r->before.fn);
    free(r->pairs);
    r->prev = NULL;
    r->rates.fn = NULL;
    r->before.fn = NULL;
    r->have_before = 0;
    r->pairs = NULL;
    r->npairs = 0;
    r->have_rates = r->have_pairs = 0;
}

void mwc_model_free(mwc_model *m)
{
    for (size_t i = 0; i < m->n; i++) {
        forget_hello(&m->r[i]);
        free(m->r[i].endpoint);
    }
    free(m->r);
    m->r = NULL;
    m->n = 0;
}

void mwc_model_set_endpoint(mwc_model *m, size_t slot, int rank, const char *desc)
{
    mwc_rank *r = &m->r[slot];
    r->endpoint_rank = rank;
    free(r->endpoint);
    r->endpoint = mwc_strndup(desc, strlen(desc));
}

static char *dup_str(mwc_str s)
{
    return mwc_strndup(s.p, s.len);
}

static int apply_hello(mwc_model *m, mwc_rank *r, const mwc_frame *f, char *err, size_t errlen)
{
    if (r->endpoint_rank >= 0 && (uint32_t)r->endpoint_rank != f->u.hello.rank) {
        snprintf(err, errlen, "HELLO says rank %u but the endpoint is rank %d's",
                 (unsigned)f->u.hello.rank, r->endpoint_rank);
        return -1;
    }
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *o = &m->r[i];
        if (o != r && o->have_hello && o->size != f->u.hello.size) {
            snprintf(err, errlen, "HELLO says %u ranks; rank %u said %u",
                     (unsigned)f->u.hello.size, (unsigned)o->rank, (unsigned)o->size);
            return -1;
        }
    }
    forget_hello(r);
    r->have_hello = 1;
    r->status = MWC_ATTACHED;
    r->rank = f->u.hello.rank;
    r->size = f->u.hello.size;
    r->pid = f->u.hello.pid;
    r->epoch = f->u.hello.epoch;
    r->host = dup_str(f->u.hello.host);
    r->program = dup_str(f->u.hello.program);
    r->timer = dup_str(f->u.hello.timer);
    r->mpi = dup_str(f->u.hello.mpi);
    r->nfunctions = f->u.hello.nfunctions;
    r->names = mwc_calloc(r->nfunctions, sizeof *r->names);
    for (uint32_t i = 0; i < r->nfunctions; i++)
        r->names[i] = dup_str(f->u.hello.names[i]);
    r->snap = mwc_calloc(r->nfunctions, sizeof *r->snap);
    r->live = mwc_calloc(r->nfunctions, sizeof *r->live);
    r->prev = mwc_calloc(r->nfunctions, sizeof *r->prev);
    r->rates.fn = mwc_calloc(r->nfunctions, sizeof *r->rates.fn);
    r->before.fn = mwc_calloc(r->nfunctions, sizeof *r->before.fn);
    return 0;
}

static void apply_snapshot(mwc_rank *r, const mwc_frame *f)
{
    /* The last snapshot becomes the previous one; the rates are those of
     * the interval between them (a first snapshot has none). */
    mwc_counts *keep = r->prev;
    r->prev = r->snap;
    r->snap = keep;
    uint64_t prev_t = r->snap_t;
    int had = r->have_snapshot;
    /* Cumulative: the new snapshot replaces the old one entirely. */
    memset(r->snap, 0, r->nfunctions * sizeof *r->snap);
    for (uint32_t i = 0; i < f->u.snapshot.count; i++) {
        mwc_entry e;
        mwc_frame_entry(f, i, &e);
        r->snap[e.function] = (mwc_counts){ e.calls, e.time, e.sent, e.recv };
    }
    r->have_snapshot = 1;
    r->snap_t = f->u.snapshot.t;
    r->prev_t = prev_t;
    r->snap_sent = f->u.snapshot.sent;
    r->snap_dropped = f->u.snapshot.dropped;
    r->snap_unwatched = f->u.snapshot.unwatched;
    /* A time that did not advance gives no interval: the last rates stay. */
    /* The new rates go into the buffer of the ones before the last. */
    mwc_rates next = { .fn = r->before.fn };
    r->rates_new = had && mwc_rates_compute(r->prev, prev_t, r->snap, r->snap_t, r->nfunctions,
                                            &next) == 0;
    if (r->rates_new) {
        r->before = r->rates;
        r->have_before = r->have_rates;
        r->rates = next;
        r->have_rates = 1;
    }
}

static int by_to(const void *a, const void *b)
{
    const mwc_pair *x = a, *y = b;
    return x->to < y->to ? -1 : x->to > y->to;
}

static int apply_pairs(mwc_rank *r, const mwc_frame *f, char *err, size_t errlen)
{
    uint32_t n = f->u.pairs.count, k = 0;
    mwc_pair *p = mwc_malloc(((size_t)n + 1) * sizeof *p);
    for (uint32_t i = 0; i < n; i++) {
        mwc_frame_pair(f, i, &p[k]);
        k += p[k].to < r->size; /* a rank outside the job is nonsense: left out */
    }
    qsort(p, k, sizeof *p, by_to);
    for (uint32_t i = 1; i < k; i++)
        if (p[i].to == p[i - 1].to) {
            snprintf(err, errlen, "PAIRS names rank %u twice", (unsigned)p[i].to);
            free(p);
            return -1;
        }
    free(r->pairs);
    r->pairs = p;
    r->npairs = k;
    r->have_pairs = 1;
    r->pairs_t = f->u.pairs.t;
    return 0;
}

int mwc_model_apply(mwc_model *m, size_t slot, const mwc_frame *f, char *err, size_t errlen)
{
    mwc_rank *r = &m->r[slot];
    switch (f->type) {
    case MWP_HELLO:
        return apply_hello(m, r, f, err, errlen);
    case MWP_EVENTS:
        for (uint32_t i = 0; i < f->u.events.count; i++) {
            mwc_event e;
            mwc_frame_event(f, i, &e);
            mwc_counts *c = &r->live[e.function]; /* the decoder bounded e.function */
            c->calls++;
            c->time += e.t_out >= e.t_in ? e.t_out - e.t_in : 0;
            c->sent += e.sent;
            c->recv += e.recv;
        }
        r->events += f->u.events.count;
        return 0;
    case MWP_SNAPSHOT:
        apply_snapshot(r, f);
        return 0;
    case MWP_PAIRS:
        return apply_pairs(r, f, err, errlen);
    case MWP_GOODBYE:
        r->have_goodbye = 1;
        r->bye_t = f->u.goodbye.t;
        r->bye_sent = f->u.goodbye.sent;
        r->bye_dropped = f->u.goodbye.dropped;
        r->status = MWC_FINISHED;
        r->ninflight = 0; /* past MPI_Finalize nothing is in progress */
        if (r->have_before) { /* see mwc_rank.before */
            mwc_rates t = r->rates;
            r->rates = r->before;
            r->before = t;
            r->have_before = 0;
        }
        return 0;
    case MWP_LEVEL:
        r->level = f->u.level.level;
        return 0;
    case MWP_INFLIGHT:
        /* Each frame holds the whole set: it replaces the last one. */
        free(r->inflight);
        r->inflight = mwc_calloc(f->u.inflight.count ? f->u.inflight.count : 1, sizeof *r->inflight);
        r->ninflight = f->u.inflight.count;
        for (uint32_t i = 0; i < r->ninflight; i++)
            mwc_frame_inflight(f, i, &r->inflight[i]);
        r->inflight_t = f->u.inflight.t;
        r->inflight_seen = m->now;
        return 0;
    default:
        return 0;
    }
}

void mwc_model_lose(mwc_model *m, size_t slot, const char *reason)
{
    mwc_rank *r = &m->r[slot];
    if (r->status == MWC_FINISHED || r->status == MWC_LOST)
        return;
    r->status = MWC_LOST;
    r->lost_at = m->now;
    snprintf(r->reason, sizeof r->reason, "%s", reason);
}

double mwc_inflight_seconds(const mwc_rank *r, const mwc_inflight *c, double now)
{
    double s = r->inflight_t > c->t_in ? (double)(r->inflight_t - c->t_in) * 1e-9 : 0;
    double end = r->status == MWC_LOST && r->lost_at < now ? r->lost_at : now;
    if (end > r->inflight_seen)
        s += end - r->inflight_seen;
    return s;
}

int mwc_model_rank(const mwc_model *m, size_t slot)
{
    const mwc_rank *r = &m->r[slot];
    return r->have_hello ? (int)r->rank : r->endpoint_rank;
}

const char *mwc_model_name(const mwc_rank *r, uint32_t function)
{
    return function < r->nfunctions ? r->names[function] : "?";
}

mwc_counts mwc_rank_total(const mwc_rank *r)
{
    mwc_counts t = { 0, 0, 0, 0 };
    for (uint32_t i = 0; r->snap && i < r->nfunctions; i++) {
        t.calls += r->snap[i].calls;
        t.time += r->snap[i].time;
        t.sent += r->snap[i].sent;
        t.recv += r->snap[i].recv;
    }
    return t;
}

uint64_t mwc_rank_dropped(const mwc_rank *r)
{
    uint64_t d = r->snap_dropped;
    return r->have_goodbye && r->bye_dropped > d ? r->bye_dropped : d;
}

int mwc_rank_has_inflight(const mwc_rank *r)
{
    return r->have_hello && r->ninflight > 0 &&
           (r->status == MWC_ATTACHED || r->status == MWC_LOST);
}

void mwc_model_waitfor(const mwc_model *m, double now, double stuck_s, mwc_waitfor *w)
{
    size_t nc = 0;
    for (size_t i = 0; i < m->n; i++)
        if (mwc_rank_has_inflight(&m->r[i]))
            nc += m->r[i].ninflight;
    int *ranks = mwc_malloc((m->n + 1) * sizeof *ranks);
    mwc_wf_call *calls = mwc_malloc((nc + 1) * sizeof *calls);
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        ranks[i] = mwc_model_rank(m, i);
        if (!mwc_rank_has_inflight(r))
            continue;
        for (uint32_t j = 0; j < r->ninflight; j++) {
            const mwc_inflight *c = &r->inflight[j];
            /* A peer outside the job is nonsense from the wire: no edge. */
            int32_t peer = c->peer >= 0 && (uint32_t)c->peer < r->size ? c->peer : MWP_NONE;
            calls[k++] = (mwc_wf_call){ (int)r->rank, peer, c->flags,
                                        mwc_stuck(mwc_inflight_seconds(r, c, now), stuck_s) };
        }
    }
    mwc_waitfor_build(w, ranks, m->n, calls, k);
    free(ranks);
    free(calls);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const mwc_total *)a)->name, ((const mwc_total *)b)->name);
}

size_t mwc_model_totals(const mwc_model *m, mwc_total **out)
{
    /* Ranks number functions by their own HELLO, so merge by name: gather
     * every (name, counts) with calls, sort, then fold equal names. */
    size_t n = 0;
    for (size_t s = 0; s < m->n; s++)
        for (uint32_t i = 0; m->r[s].snap && i < m->r[s].nfunctions; i++)
            n += m->r[s].snap[i].calls > 0;
    mwc_total *t = mwc_calloc(n, sizeof *t);
    size_t k = 0;
    for (size_t s = 0; s < m->n; s++)
        for (uint32_t i = 0; m->r[s].snap && i < m->r[s].nfunctions; i++)
            if (m->r[s].snap[i].calls > 0)
                t[k++] = (mwc_total){ m->r[s].names[i], m->r[s].snap[i] };
    qsort(t, n, sizeof *t, by_name);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w > 0 && strcmp(t[w - 1].name, t[i].name) == 0) {
            t[w - 1].c.calls += t[i].c.calls;
            t[w - 1].c.time += t[i].c.time;
            t[w - 1].c.sent += t[i].c.sent;
            t[w - 1].c.recv += t[i].c.recv;
        } else {
            t[w++] = t[i];
        }
    }
    *out = t;
    return w;
}

mwc_summary mwc_model_summary(const mwc_model *m)
{
    mwc_summary s;
    memset(&s, 0, sizeof s);
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        switch (r->status) {
        case MWC_WAITING: s.waiting++; break;
        case MWC_ATTACHED: s.attached++; break;
        case MWC_FINISHED: s.finished++; break;
        default: s.lost++; break;
        }
        s.received += r->events;
        s.dropped += mwc_rank_dropped(r);
        s.unwatched += r->snap_unwatched;
        s.mpi_time += mwc_rank_total(r).time;
    }
    return s;
}

int mwc_model_done(const mwc_model *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].status != MWC_FINISHED && m->r[i].status != MWC_LOST)
            return 0;
    return 1;
}
