/* The trace's call path: each thread stores its calls raw (trace/raw.h)
 * into its own chunk, with no lock and no system call; the writer encodes
 * them (docs/trace.md, "Format"). A full chunk
 * goes to the writer's queue; a thread that may not take a new one (the
 * rank's chunks hold MPIWATCH_TRACE_BUFFER bytes: the writer is behind)
 * counts its calls as dropped until it may, and then says how many.
 * Consecutive polls at one call site that found nothing (trace/notes.h) are
 * held as one fold and written as one record when something else comes. */
#include <pthread.h>
#include <stdlib.h>

#include "core/tls.h"
#include "trace/limits.h"
#include "trace/recorder.h"
#include "trace/trace.h"

typedef mw_trace_recorder recorder;

mw_trace_chunk mw_trace_no_room = {.used = UINT32_MAX};
mw_trace_recorder mw_trace_unattached = {.inline_chunk = &mw_trace_no_room};
_Thread_local mw_trace_recorder *mw_trace_self MW_TLS_MODEL = &mw_trace_unattached;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static recorder *registry;

/* After the general way: may the next call be recorded inline? */
static void settle(recorder *r)
{
    r->inline_chunk = r->chunk != NULL && r->fold.count == 0 && r->dropped_unsaid == 0
                          ? r->chunk
                          : &mw_trace_no_room;
}

static MW_NOINLINE recorder *attach(void)
{
    recorder *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->inline_chunk = &mw_trace_no_room;
    r->thread = mw_self != NULL ? mw_self->number : 0;
    mw_comm_seen_reset(&r->comm_seen);
    pthread_mutex_lock(&registry_lock);
    r->next = registry;
    registry = r;
    pthread_mutex_unlock(&registry_lock);
    return mw_trace_self = r;
}

/* Room for a record of need bytes (and a count of dropped calls before
 * it): a new chunk when the current one is full. 0 when none may be taken. */
static int make_room(recorder *r, size_t need)
{
    mw_trace_chunk *c = r->chunk;
    if (c != NULL && c->used + MW_RAW_RECORD_MAX + need <= MW_TRACE_CHUNK_BYTES)
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

/* Where r's next record goes in its chunk: after the count of calls
 * dropped before it, if any, written there. */
static unsigned char *next_record(recorder *r)
{
    mw_trace_chunk *c = r->chunk;
    unsigned char *p = c->data + c->used;
    if (r->dropped_unsaid != 0) {
        p = mw_raw_put_count(p, MWT_DROPPED, r->dropped_unsaid);
        r->dropped_unsaid = 0;
    }
    return p;
}

/* The kind, function, site and times of a record, after the count of calls
 * dropped before it. */
static unsigned char *put_call(recorder *r, int kind, int id, uint64_t site, uint64_t t_in,
                               uint64_t t_out)
{
    return mw_raw_put_call(next_record(r), (uint32_t)kind, id, site, t_in, t_out);
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
    if (!make_room(r, MW_RAW_RECORD_MAX)) {
        count_dropped(r, n);
        return;
    }
    unsigned char *p = put_call(r, n == 1 ? MWT_CALL : MWT_POLLS, r->fold.fn, r->fold.site,
                                r->fold.t_in, r->fold.t_out);
    if (n > 1) {
        *(uint64_t *)(void *)p = n;
        p += sizeof(uint64_t);
    }
    wrote(r, p, n);
}

/* The MWT_DONE records a chunk has room for, besides one call. */
#define MW_TRACE_DONE_ROOM ((MW_TRACE_CHUNK_BYTES - 4 * MW_RAW_RECORD_MAX) / MW_RAW_DONE_SIZE)

/* A call recorded by r: folded, or written with its notes. */
static void fold_or_write(recorder *r, int id, const mw_call *call, int traffic,
                          const mw_fn_stats *s)
{
    mw_trace_pending *pend = &mw_trace_pending_tls;
    /* The site's key (its return address and function, as the inline
     * record stores it), and its address (0 for a thread whose table was
     * full). */
    uint64_t key = ((const mw_site *)s)->key, site = mw_site_address(key);
    if (pend->poll_failed) {
        if (r->fold.count == 0 || r->fold.fn != id || r->fold.site != key) {
            write_fold(r);
            r->fold.fn = id;
            r->fold.site = key;
            r->fold.t_in = call->t_in;
        }
        r->fold.t_out = call->t_out;
        r->fold.count++;
        mw_trace_pending_clear(pend);
        return;
    }
    write_fold(r);
    int ndone = pend->ndone < (int)MW_TRACE_DONE_ROOM ? pend->ndone : (int)MW_TRACE_DONE_ROOM;
    if (!make_room(r, MW_RAW_RECORD_MAX + (size_t)ndone * MW_RAW_DONE_SIZE)) {
        count_dropped(r, 1);
        mw_trace_pending_clear(pend);
        return;
    }
    unsigned char *p = put_call(r, traffic ? MWT_XFER : MWT_CALL, id, site, call->t_in,
                                call->t_out);
    if (traffic)
        p = mw_trace_put_traffic(p, r, call);
    p = mw_trace_put_notes(p, pend, ndone);
    mw_trace_pending_clear(pend);
    wrote(r, p, 1);
}

/* Any call: limits, polls to fold, completions, a new chunk, drops. */
void mw_trace_record_general(int id, const mw_call *call, int traffic, const mw_fn_stats *s)
{
    recorder *r = mw_trace_self;
    if (!__atomic_load_n(&mw_trace_recording, __ATOMIC_RELAXED) ||
        (mw_trace_limited && mw_trace_limits_skip(id, call->t_in)) ||
        (r == &mw_trace_unattached && (r = attach()) == NULL)) {
        mw_trace_pending_clear(&mw_trace_pending_tls);
        return;
    }
    fold_or_write(r, id, call, traffic, s);
    settle(r);
}

void mw_trace_mark(int what, int value, uint64_t t)
{
    recorder *r = mw_trace_self;
    if (!__atomic_load_n(&mw_trace_recording, __ATOMIC_RELAXED) ||
        (r == &mw_trace_unattached && (r = attach()) == NULL))
        return;
    write_fold(r);   /* the polls before it, first */
    if (make_room(r, sizeof(mw_raw_mark))) {
        mw_raw_mark *m = (mw_raw_mark *)(void *)next_record(r);
        *m = (mw_raw_mark){{MWT_MARK, value}, (uint32_t)what, 0, t};
        wrote(r, (unsigned char *)(m + 1), 0);   /* not a call: no event counted */
    }
    settle(r);
}

/* The slow body's calls (mw_call_event), recorded as the traced body's
 * (trace/recorder.h), with twins for a transfer and a completion so that a
 * plain call saves almost no register. */
static MW_NOINLINE void record_transfer(int id, const mw_call *call, const mw_fn_stats *s)
{
    mw_trace_record_inline(id, call, 1, 1, 1, s);
}

static MW_NOINLINE void record_completion(int id, const mw_call *call, const mw_fn_stats *s)
{
    mw_trace_record_inline(id, call, 0, 1, 1, s);
}

static MW_NOINLINE void record_plain(int id, const mw_call *call, const mw_fn_stats *s)
{
    mw_trace_record_inline(id, call, 0, 1, 0, s);
}

/* Each way a jump, so that none pays for another's registers; the limits,
 * which the inline record does not test, the general way. */
void mw_trace_record(int id, const mw_call *call, int traffic, const mw_fn_stats *s)
{
    if (mw_trace_limited)
        mw_trace_record_general(id, call, traffic, s);
    else if (traffic)
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
    c->used = (uint32_t)(mw_raw_put_count(c->data + c->used, MWT_DROPPED, r->dropped_unsaid) -
                         c->data);
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
        settle(r);
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
