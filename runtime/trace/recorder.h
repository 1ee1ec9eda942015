/* The trace's per-call record, inline: the traced body of every wrapper
 * (MW_TRACED, mw_wrap.h) stores its call raw (trace/raw.h) straight into
 * its thread's chunk here, and recorder.c's out-of-line entry (mw_trace_record, for the slow
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
#include "trace/raw.h"
#include "traffic/traffic.h"
#include "mpiwatch_trace.h"

/* A thread's recording state; kept after the thread ends, so that its last
 * chunk is written at the finish. */
typedef struct mw_trace_recorder {
    struct mw_trace_recorder *next;   /* registry */
    mw_trace_chunk *chunk;            /* being filled; NULL before the first call */
    /* The chunk the inline record may fill: chunk while nothing is unusual
     * (a chunk, no poll folded, no drop unsaid), else mw_trace_no_room, so
     * that one compare of its used bytes tests all of it. */
    mw_trace_chunk *inline_chunk;
    uint64_t events;                  /* this thread writes, the report reads */
    uint64_t dropped;
    uint64_t dropped_unsaid;          /* dropped since the last record written */
    uint32_t thread;
    mw_comm_seen comm_seen;           /* the thread's last communicator and its id */
    struct {                          /* polls folded, not yet written; count 0: none */
        int fn;
        uint64_t site, t_in, t_out, count;   /* site: the key (its function's too) */
    } fold;
} mw_trace_recorder;

/* The calling thread's; before its first record, mw_trace_unattached,
 * whose inline chunk sends the call the general way (one test for both). */
extern MW_HIDDEN _Thread_local mw_trace_recorder *mw_trace_self MW_TLS_MODEL;
extern MW_HIDDEN mw_trace_recorder mw_trace_unattached;

/* A chunk with no room (its used bytes past any chunk's), never written. */
extern MW_HIDDEN mw_trace_chunk mw_trace_no_room;

/* Record one call the general way: limits, polls to fold, completions, a
 * new chunk, drops (trace/call_event.h has the arguments). */
MW_HIDDEN MW_NOINLINE void mw_trace_record_general(int id, const mw_call *call, int traffic,
                                                   const mw_fn_stats *s);

/* MWT_XFER's fields after its call: the peer's world rank, the tag, the
 * communicator's id in the file (the recorder's comm_seen), the bytes. */
static MW_ALWAYS_INLINE unsigned char *mw_trace_put_transfer(unsigned char *p, int peer, int tag,
                                                             int comm_id, int64_t sent,
                                                             int64_t recv)
{
    mw_raw_transfer *q = (mw_raw_transfer *)(void *)p;
    q->peer = peer;
    q->tag = tag;
    q->comm = comm_id;
    q->sent = sent;
    q->recv = recv;
    return p + sizeof *q;
}

/* What the call moved, recorded by r. */
static MW_ALWAYS_INLINE unsigned char *mw_trace_put_traffic(unsigned char *p, mw_trace_recorder *r,
                                                            const mw_call *call)
{
    int comm_id = MW_LIKELY(mw_comm_seen_is(&r->comm_seen, call->comm))
                      ? r->comm_seen.id
                      : mw_comm_seen_learn(&r->comm_seen, call->comm);
    return mw_trace_put_transfer(p, call->peer, call->tag, comm_id, call->sent, call->recv);
}

/* The request the call started, the root it named, if noted, and the
 * first ndone requests it completed. */
static MW_ALWAYS_INLINE unsigned char *mw_trace_put_notes(unsigned char *p,
                                                          const mw_trace_pending *pend, int ndone)
{
    if (pend->request != 0)
        p = mw_raw_put_count(p, MWT_REQUEST, pend->request);
    if (pend->has_root) {
        mw_raw_head *q = (mw_raw_head *)(void *)p;
        q->kind = MWT_ROOT;
        q->value = pend->root;
        p += sizeof *q;
    }
    for (int i = 0; i < ndone; i++) {
        const mw_trace_done *d = &pend->done[i];
        mw_raw_done *q = (mw_raw_done *)(void *)p;
        q->head.kind = MWT_DONE;
        q->head.value = d->source;
        q->tag = d->tag;
        q->unused = 0;
        q->request = d->request;
        q->bytes = d->bytes;
        p += sizeof *q;
    }
    return p;
}

/* The notes an inline record wrote (a poll that found nothing takes the
 * general way, so its flag is not set here). */
static MW_ALWAYS_INLINE void mw_trace_notes_written(mw_trace_pending *pend)
{
    pend->request = 0;
    pend->has_root = 0;
    pend->completing = 0;
    pend->ndone = 0;
}

/* The completions a call may record inline, and the bytes of a chunk past
 * which a call goes the general way for room (which leaves room for one
 * more call and a count of dropped calls: mw_trace_record_general). */
#define MW_TRACE_FAST_DONE 4
#define MW_TRACE_ROOM_FOR_ONE \
    (MW_TRACE_CHUNK_BYTES - 2 * MW_RAW_RECORD_MAX - MW_TRACE_FAST_DONE * MW_RAW_DONE_SIZE)

/* One call, inline when nothing is unusual about it (no poll to fold but
 * one more where polls are being folded, at most MW_TRACE_FAST_DONE
 * completions, no drop to say, room in the chunk);
 * anything else goes to mw_trace_record_general, which writes the same
 * records. The records are raw (trace/raw.h): plain stores of what was
 * measured, encoded by the writer thread. Neither the limits nor the end
 * of recording are tested here: while limits are in force the slots point
 * at the slow body, whose calls mw_trace_record sends the general way, and
 * recording stops by pointing the slots away and clearing the slow body's
 * event bit (a call already inside a traced body ends in its chunk, as it
 * did when this tested the switch before writing). traffic, notes and
 * completes are constants of the caller (the generator knows them): with
 * notes 0 the function notes nothing for the trace (trace/notes.h), so the
 * thread's pending notes are neither read nor cleared; with completes 0
 * they hold no completion. */
/* The chunk into which r records a call inline, or NULL when the call
 * must go the general way (the conditions below). */
static MW_ALWAYS_INLINE mw_trace_chunk *mw_trace_inline_chunk(mw_trace_recorder *r, const int notes,
                                                              const int completes)
{
    mw_trace_pending *pend = &mw_trace_pending_tls;
    mw_trace_chunk *c = r->inline_chunk;
    if (MW_UNLIKELY(c->used > MW_TRACE_ROOM_FOR_ONE ||
                    (notes && pend->poll_failed) ||
                    (completes && pend->ndone > MW_TRACE_FAST_DONE)))
        return NULL;
    return c;
}

/* r wrote one call's records into c, up to p. */
static MW_ALWAYS_INLINE void mw_trace_inline_wrote(mw_trace_recorder *r, mw_trace_chunk *c,
                                                   const unsigned char *p)
{
    c->used = (uint32_t)(p - c->data);
    __atomic_store_n(&r->events, r->events + 1, __ATOMIC_RELAXED);
}

static MW_ALWAYS_INLINE void mw_trace_record_inline(int id, const mw_call *call, const int traffic,
                                                    const int notes, const int completes,
                                                    const mw_fn_stats *s)
{
    mw_trace_recorder *r = mw_trace_self;
    mw_trace_pending *pend = &mw_trace_pending_tls;
    /* Another poll that found nothing where the polls being folded were
     * made: one more in the fold, whose first the general way began. */
    if (notes && MW_UNLIKELY(pend->poll_failed) && r->fold.count != 0 &&
        r->fold.site == ((const mw_site *)s)->key) {
        r->fold.t_out = call->t_out;
        r->fold.count++;
        pend->poll_failed = 0;
        return;
    }
    mw_trace_chunk *c = mw_trace_inline_chunk(r, notes, completes);
    if (MW_UNLIKELY(c == NULL)) {
        mw_trace_record_general(id, call, traffic, s);
        return;
    }
    unsigned char *p = mw_raw_put_call(c->data + c->used, traffic ? MWT_XFER : MWT_CALL, id,
                                       ((const mw_site *)s)->key, call->t_in, call->t_out);
    if (traffic)
        p = mw_trace_put_traffic(p, r, call);
    if (notes) {
        p = mw_trace_put_notes(p, pend, completes ? pend->ndone : 0);
        mw_trace_notes_written(pend);
    }
    mw_trace_inline_wrote(r, c, p);
}

#endif
