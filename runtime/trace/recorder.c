/* The trace's call path: each thread encodes its calls into its own chunk
 * (docs/trace.md, "Format"), with no lock and no system call. A full chunk
 * goes to the writer's queue; a thread that may not take a new one (the
 * rank's chunks hold MPIWATCH_TRACE_BUFFER bytes: the writer is behind)
 * counts its calls as dropped until it may, and then says how many.
 * Consecutive polls at one call site that found nothing (trace/notes.h) are
 * held as one fold and written as one record when something else comes. */
#include <pthread.h>
#include <stdlib.h>

#include "core/handles.h"
#include "core/tls.h"
#include "trace/chunks.h"
#include "trace/limits.h"
#include "trace/pending.h"
#include "trace/trace.h"
#include "mpiwatch_trace.h"

/* A thread's recording state; kept after the thread ends, so that its last
 * chunk is written at the finish. */
typedef struct recorder {
    struct recorder *next;      /* registry */
    mw_trace_chunk *chunk;      /* being filled; NULL before the first call */
    uint64_t events;            /* this thread writes, the report reads */
    uint64_t dropped;
    uint64_t dropped_unsaid;    /* dropped since the last record written */
    uint32_t thread;
    struct {                    /* polls folded, not yet written; count 0: none */
        int fn;
        uint64_t site, t_in, t_out, count;
    } fold;
} recorder;

static _Thread_local recorder *self MW_TLS_MODEL;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static recorder *registry;

static MW_NOINLINE recorder *attach(void)
{
    recorder *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->thread = mw_self != NULL ? mw_self->number : 0;
    pthread_mutex_lock(&registry_lock);
    r->next = registry;
    registry = r;
    pthread_mutex_unlock(&registry_lock);
    return self = r;
}

static MW_ALWAYS_INLINE unsigned char *put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static MW_ALWAYS_INLINE unsigned char *put_signed(unsigned char *p, int64_t v)
{
    return put_varint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* Room for a record of need bytes (and a count of dropped calls before
 * it): a new chunk when the current one is full. 0 when none may be taken. */
static int make_room(recorder *r, size_t need)
{
    mw_trace_chunk *c = r->chunk;
    if (c != NULL && c->used + MWT_RECORD_MAX + need <= MW_TRACE_CHUNK_BYTES)
        return 1;
    mw_trace_chunk *fresh = mw_trace_chunk_new(r->thread);
    if (fresh == NULL)
        return 0;
    if (c != NULL)
        mw_trace_chunk_queue(c);
    r->chunk = fresh;
    return 1;
}

static void count_dropped(recorder *r, uint64_t n)
{
    r->dropped_unsaid += n;
    __atomic_store_n(&r->dropped, r->dropped + n, __ATOMIC_RELAXED);
}

/* The kind, function, site and times of a record, after the count of calls
 * dropped before it; the chunk's deltas move on. */
static unsigned char *put_call(recorder *r, int kind, int id, uint64_t site, uint64_t t_in,
                               uint64_t t_out)
{
    mw_trace_chunk *c = r->chunk;
    unsigned char *p = c->data + c->used;
    if (c->used == 0)
        c->first_t = c->last_t = t_in;
    if (t_in < c->last_t)   /* a clock that stepped back: the order is kept */
        t_in = c->last_t;
    if (r->dropped_unsaid != 0) {
        *p++ = MWT_DROPPED;
        p = put_varint(p, r->dropped_unsaid);
        r->dropped_unsaid = 0;
    }
    *p++ = (unsigned char)kind;
    p = put_varint(p, (uint64_t)id);
    p = put_signed(p, (int64_t)(site - c->last_site));
    p = put_varint(p, t_in - c->last_t);
    p = put_varint(p, t_out > t_in ? t_out - t_in : 0);
    c->last_t = t_in;
    c->last_site = site;
    return p;
}

static void wrote(recorder *r, unsigned char *end, uint64_t calls)
{
    r->chunk->used = (uint32_t)(end - r->chunk->data);
    __atomic_store_n(&r->events, r->events + calls, __ATOMIC_RELAXED);
}

/* Write the folded polls, if any: one call record for one poll. */
static void write_fold(recorder *r)
{
    uint64_t n = r->fold.count;
    if (n == 0)
        return;
    r->fold.count = 0;
    if (!make_room(r, MWT_RECORD_MAX)) {
        count_dropped(r, n);
        return;
    }
    unsigned char *p = put_call(r, n == 1 ? MWT_CALL : MWT_POLLS, r->fold.fn, r->fold.site,
                                r->fold.t_in, r->fold.t_out);
    if (n > 1)
        p = put_varint(p, n);
    wrote(r, p, n);
}

/* The MWT_DONE records a chunk has room for, besides one call. */
#define MW_TRACE_DONE_ROOM ((MW_TRACE_CHUNK_BYTES - 4 * MWT_RECORD_MAX) / MWT_DONE_MAX)

/* What the call moved (kind 2's fields after kind 1's). */
static MW_ALWAYS_INLINE unsigned char *put_traffic(unsigned char *p, const mw_call *call)
{
    p = put_signed(p, call->peer);
    p = put_signed(p, call->tag);
    p = put_signed(p, mw_comm_id(call->comm));
    p = put_varint(p, (uint64_t)(call->sent > 0 ? call->sent : 0));
    return put_varint(p, (uint64_t)(call->recv > 0 ? call->recv : 0));
}

/* The request the call started, the root it named, if noted, and the
 * first ndone requests it completed. */
static MW_ALWAYS_INLINE unsigned char *put_notes(unsigned char *p, const mw_trace_pending *pend,
                                                 int ndone)
{
    if (pend->request != 0) {
        *p++ = MWT_REQUEST;
        p = put_varint(p, pend->request);
    }
    if (pend->has_root) {
        *p++ = MWT_ROOT;
        p = put_signed(p, pend->root);
    }
    for (int i = 0; i < ndone; i++) {
        const mw_trace_done *d = &pend->done[i];
        *p++ = MWT_DONE;
        p = put_varint(p, d->request);
        p = put_signed(p, d->source);
        p = put_signed(p, d->tag);
        p = put_varint(p, d->bytes);
    }
    return p;
}

/* Any call: limits, polls to fold, completions, a new chunk, drops. */
static MW_NOINLINE void record_general(int id, const mw_call *call, int traffic,
                                       const mw_fn_stats *s)
{
    recorder *r = self;
    mw_trace_pending *pend = &mw_trace_pending_tls;
    if (!__atomic_load_n(&mw_trace_recording, __ATOMIC_RELAXED) ||
        (mw_trace_limited && mw_trace_limits_skip(id, call->t_in)) ||
        (r == NULL && (r = attach()) == NULL)) {
        mw_trace_pending_clear(pend);
        return;
    }
    /* The site's return address (0 for a thread whose table was full). */
    uint64_t site = mw_site_address(((const mw_site *)s)->key);
    if (pend->poll_failed) {
        if (r->fold.count == 0 || r->fold.fn != id || r->fold.site != site) {
            write_fold(r);
            r->fold.fn = id;
            r->fold.site = site;
            r->fold.t_in = call->t_in;
        }
        r->fold.t_out = call->t_out;
        r->fold.count++;
        mw_trace_pending_clear(pend);
        return;
    }
    write_fold(r);
    int ndone = pend->ndone < (int)MW_TRACE_DONE_ROOM ? pend->ndone : (int)MW_TRACE_DONE_ROOM;
    if (!make_room(r, MWT_RECORD_MAX + (size_t)ndone * MWT_DONE_MAX)) {
        count_dropped(r, 1);
        mw_trace_pending_clear(pend);
        return;
    }
    unsigned char *p = put_call(r, traffic ? MWT_XFER : MWT_CALL, id, site, call->t_in,
                                call->t_out);
    if (traffic)
        p = put_traffic(p, call);
    p = put_notes(p, pend, ndone);
    mw_trace_pending_clear(pend);
    wrote(r, p, 1);
}

/* The bytes of a chunk past which a call goes the general way for room. */
#define FAST_DONE 4
#define ROOM_FOR_ONE (MW_TRACE_CHUNK_BYTES - 2 * MWT_RECORD_MAX - FAST_DONE * MWT_DONE_MAX)

/* The call path: a call with nothing unusual about it (no limit in force,
 * no poll to fold, at most FAST_DONE completions, no drop to say, room in a
 * chunk that already has a record, recording on) is encoded here inline;
 * anything else goes to record_general, which writes the same bytes.
 * traffic and completes are constants in each caller, so that a call that
 * moved and completed nothing saves almost no register; the others have
 * twins of their own (a transfer calls out for its communicator's id).
 * With completes 0 the thread's notes hold no completion. */
static MW_ALWAYS_INLINE void record(int id, const mw_call *call, const int traffic,
                                    const int completes, const mw_fn_stats *s)
{
    recorder *r = self;
    mw_trace_pending *pend = &mw_trace_pending_tls;
    mw_trace_chunk *c;
    /* used - 1 wraps for an empty chunk: its first record sets first_t. */
    if (MW_UNLIKELY(r == NULL || (c = r->chunk) == NULL ||
                    (uint32_t)(c->used - 1) >= ROOM_FOR_ONE - 1 ||
                    (r->fold.count | r->dropped_unsaid) != 0 ||
                    (pend->poll_failed | mw_trace_limited) != 0 ||
                    (completes && pend->ndone > FAST_DONE) ||
                    !__atomic_load_n(&mw_trace_recording, __ATOMIC_RELAXED))) {
        record_general(id, call, traffic, s);
        return;
    }
    uint64_t site = mw_site_address(((const mw_site *)s)->key);
    uint64_t t_in = call->t_in > c->last_t ? call->t_in : c->last_t;
    unsigned char *p = c->data + c->used;
    *p++ = (unsigned char)(traffic ? MWT_XFER : MWT_CALL);
    p = put_varint(p, (uint64_t)id);
    p = put_signed(p, (int64_t)(site - c->last_site));
    p = put_varint(p, t_in - c->last_t);
    p = put_varint(p, call->t_out > t_in ? call->t_out - t_in : 0);
    if (traffic)
        p = put_traffic(p, call);
    p = put_notes(p, pend, completes ? pend->ndone : 0);
    c->last_t = t_in;
    c->last_site = site;
    c->used = (uint32_t)(p - c->data);
    pend->request = 0;
    pend->has_root = 0;
    pend->completing = 0;
    pend->ndone = 0;
    __atomic_store_n(&r->events, r->events + 1, __ATOMIC_RELAXED);
}

static MW_NOINLINE void record_transfer(int id, const mw_call *call, const mw_fn_stats *s)
{
    record(id, call, 1, 1, s);
}

static MW_NOINLINE void record_completion(int id, const mw_call *call, const mw_fn_stats *s)
{
    record(id, call, 0, 1, s);
}

static MW_NOINLINE void record_plain(int id, const mw_call *call, const mw_fn_stats *s)
{
    record(id, call, 0, 0, s);
}

/* Each way a jump, so that none pays for another's registers. */
void mw_trace_record(int id, const mw_call *call, int traffic, const mw_fn_stats *s)
{
    if (traffic)
        record_transfer(id, call, s);
    else if (mw_trace_pending_tls.ndone != 0)
        record_completion(id, call, s);
    else
        record_plain(id, call, s);
}

/* The calls a thread dropped since its last record, said at the end of its
 * last chunk (or of a chunk of their own, for a thread that never had one):
 * a record always leaves room for this one (make_room). */
static void say_dropped(recorder *r)
{
    if (r->dropped_unsaid == 0)
        return;
    if (r->chunk == NULL && (r->chunk = mw_trace_chunk_new(r->thread)) == NULL)
        return;
    mw_trace_chunk *c = r->chunk;
    unsigned char *p = c->data + c->used;
    *p++ = MWT_DROPPED;
    p = put_varint(p, r->dropped_unsaid);
    c->used = (uint32_t)(p - c->data);
    r->dropped_unsaid = 0;
}

void mw_trace_queue_partial(void)
{
    pthread_mutex_lock(&registry_lock);
    for (recorder *r = registry; r != NULL; r = r->next) {
        write_fold(r);
        say_dropped(r);
        mw_trace_chunk *c = r->chunk;
        r->chunk = NULL;
        if (c != NULL && c->used != 0)
            mw_trace_chunk_queue(c);
        else if (c != NULL)
            mw_trace_chunk_free(c);
    }
    pthread_mutex_unlock(&registry_lock);
}

void mw_trace_thread_counts(uint64_t *events, uint64_t *dropped)
{
    *events = *dropped = 0;
    pthread_mutex_lock(&registry_lock);
    for (recorder *r = registry; r != NULL; r = r->next) {
        *events += __atomic_load_n(&r->events, __ATOMIC_RELAXED);
        *dropped += __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&registry_lock);
}
