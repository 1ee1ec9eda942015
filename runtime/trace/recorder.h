/* The trace's per-call record, inline: the traced body of every wrapper
 * (MW_TRACED, mw_wrap.h) encodes its call straight into its thread's chunk
 * here, and recorder.c's out-of-line entry (mw_trace_record, for the slow
 * body) shares the same code. Part of the wrappers'
 * API (mw_wrap.h); the state it reads is recorder.c's. */
#ifndef MW_TRACE_RECORDER_H
#define MW_TRACE_RECORDER_H

#include <stdint.h>

#include "core/compiler.h"
#include "core/handles.h"
#include "core/thread_stats.h"
#include "trace/chunks.h"
#include "trace/pending.h"
#include "traffic/traffic.h"
#include "mpiwatch_trace.h"

/* A thread's recording state; kept after the thread ends, so that its last
 * chunk is written at the finish. */
typedef struct mw_trace_recorder {
    struct mw_trace_recorder *next;   /* registry */
    mw_trace_chunk *chunk;            /* being filled; NULL before the first call */
    uint64_t events;                  /* this thread writes, the report reads */
    uint64_t dropped;
    uint64_t dropped_unsaid;          /* dropped since the last record written */
    uint32_t thread;
    mw_comm_seen comm_seen;           /* the thread's last communicator and its id */
    struct {                          /* polls folded, not yet written; count 0: none */
        int fn;
        uint64_t site, t_in, t_out, count;
    } fold;
} mw_trace_recorder;

/* The calling thread's; before its first record, mw_trace_unattached,
 * whose NULL chunk sends the call the general way (one test for both). */
extern MW_HIDDEN _Thread_local mw_trace_recorder *mw_trace_self MW_TLS_MODEL;
extern MW_HIDDEN mw_trace_recorder mw_trace_unattached;

/* Record one call the general way: limits, polls to fold, completions, a
 * new chunk, drops (trace/call_event.h has the arguments). */
MW_HIDDEN MW_NOINLINE void mw_trace_record_general(int id, const mw_call *call, int traffic,
                                                   const mw_fn_stats *s);

static MW_ALWAYS_INLINE unsigned char *mw_trace_put_varint(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

static MW_ALWAYS_INLINE unsigned char *mw_trace_put_signed(unsigned char *p, int64_t v)
{
    return mw_trace_put_varint(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* What the call moved (kind 2's fields after kind 1's), recorded by r. */
static MW_ALWAYS_INLINE unsigned char *mw_trace_put_traffic(unsigned char *p, mw_trace_recorder *r,
                                                            const mw_call *call)
{
    p = mw_trace_put_signed(p, call->peer);
    p = mw_trace_put_signed(p, call->tag);
    p = mw_trace_put_signed(p, MW_LIKELY(mw_comm_seen_is(&r->comm_seen, call->comm))
                                   ? r->comm_seen.id
                                   : mw_comm_seen_learn(&r->comm_seen, call->comm));
    p = mw_trace_put_varint(p, (uint64_t)(call->sent > 0 ? call->sent : 0));
    return mw_trace_put_varint(p, (uint64_t)(call->recv > 0 ? call->recv : 0));
}

/* The request the call started, the root it named, if noted, and the
 * first ndone requests it completed. */
static MW_ALWAYS_INLINE unsigned char *mw_trace_put_notes(unsigned char *p,
                                                          const mw_trace_pending *pend, int ndone)
{
    if (pend->request != 0) {
        *p++ = MWT_REQUEST;
        p = mw_trace_put_varint(p, pend->request);
    }
    if (pend->has_root) {
        *p++ = MWT_ROOT;
        p = mw_trace_put_signed(p, pend->root);
    }
    for (int i = 0; i < ndone; i++) {
        const mw_trace_done *d = &pend->done[i];
        *p++ = MWT_DONE;
        p = mw_trace_put_varint(p, d->request);
        p = mw_trace_put_signed(p, d->source);
        p = mw_trace_put_signed(p, d->tag);
        p = mw_trace_put_varint(p, d->bytes);
    }
    return p;
}

/* The completions a call may encode inline, and the bytes of a chunk past
 * which a call goes the general way for room. */
#define MW_TRACE_FAST_DONE 4
#define MW_TRACE_ROOM_FOR_ONE \
    (MW_TRACE_CHUNK_BYTES - 2 * MWT_RECORD_MAX - MW_TRACE_FAST_DONE * MWT_DONE_MAX)

/* One call, inline when nothing is unusual about it (no poll to fold, at
 * most MW_TRACE_FAST_DONE completions, no drop to say, room in a chunk that
 * already has a record); anything else goes to mw_trace_record_general,
 * which writes the same bytes. Neither the limits nor the end of recording
 * are tested here: while limits are in force the slots point at the slow
 * body, whose calls mw_trace_record sends the general way, and recording
 * stops by pointing the slots away and clearing the slow body's event bit
 * (a call already inside a traced body ends in its chunk, as it did when
 * this tested the switch before writing). traffic,
 * notes and completes are constants of the caller (the generator knows
 * them): with notes 0 the function notes nothing for the trace
 * (trace/notes.h), so the thread's pending notes are neither read nor
 * cleared; with completes 0 they hold no completion. */
static MW_ALWAYS_INLINE void mw_trace_record_inline(int id, const mw_call *call, const int traffic,
                                                    const int notes, const int completes,
                                                    const mw_fn_stats *s)
{
    mw_trace_recorder *r = mw_trace_self;
    mw_trace_pending *pend = &mw_trace_pending_tls;
    mw_trace_chunk *c;
    /* used - 1 wraps for an empty chunk: its first record sets first_t. */
    if (MW_UNLIKELY((c = r->chunk) == NULL ||
                    (uint32_t)(c->used - 1) >= MW_TRACE_ROOM_FOR_ONE - 1 ||
                    (r->fold.count | r->dropped_unsaid) != 0 ||
                    (notes && pend->poll_failed) ||
                    (completes && pend->ndone > MW_TRACE_FAST_DONE))) {
        mw_trace_record_general(id, call, traffic, s);
        return;
    }
    uint64_t site = mw_site_address(((const mw_site *)s)->key);
    uint64_t t_in = call->t_in > c->last_t ? call->t_in : c->last_t;
    unsigned char *p = c->data + c->used;
    *p++ = (unsigned char)(traffic ? MWT_XFER : MWT_CALL);
    p = mw_trace_put_varint(p, (uint64_t)id);
    p = mw_trace_put_signed(p, (int64_t)(site - c->last_site));
    p = mw_trace_put_varint(p, t_in - c->last_t);
    p = mw_trace_put_varint(p, call->t_out > t_in ? call->t_out - t_in : 0);
    if (traffic)
        p = mw_trace_put_traffic(p, r, call);
    if (notes) {
        p = mw_trace_put_notes(p, pend, completes ? pend->ndone : 0);
        pend->request = 0;
        pend->has_root = 0;
        pend->completing = 0;
        pend->ndone = 0;
    }
    c->last_t = t_in;
    c->last_site = site;
    c->used = (uint32_t)(p - c->data);
    __atomic_store_n(&r->events, r->events + 1, __ATOMIC_RELAXED);
}

#endif
