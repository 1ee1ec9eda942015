/* The traced bodies of the memo's calls that note nothing else for the
 * trace but the request they start (sends, receives, reductions to all and
 * their non-blocking forms: mw_wrap.h's MW_TRACED and MW_TRACED_NOTED): the
 * fast body's memo (traffic/memo.h) counts the call, and its record is
 * built from what the memo and the thread's block hold, so that the trace
 * adds little more than the record's stores to the fast body. A call of a
 * new shape, or one that failed, is counted and recorded out of line, the
 * general way. Part of the wrappers' API (mw_wrap.h). */
#ifndef MW_TRACE_MEMO_RECORD_H
#define MW_TRACE_MEMO_RECORD_H

#include <mpi.h>

#include "core/clock.h"
#include "core/compiler.h"
#include "core/tls.h"
#include "trace/notes.h"
#include "trace/recorder.h"
#include "traffic/memo.h"

/* The end of a traced memo call that failed: its time, and its record
 * without traffic (as the general body records it). Releases the guard;
 * returns ret. */
MW_HIDDEN MW_NOINLINE int mw_xfer_traced_failed(int ret, int id);

/* The end of a successful traced memo call of a new shape, left at t_out:
 * counted by mw_xfer_account_new_shape, then recorded. Releases the guard;
 * returns MPI_SUCCESS. */
MW_HIDDEN MW_NOINLINE int mw_xfer_traced_new_shape(int kind, int id, int wide, uint64_t t_out,
                                                  MPI_Request request, int receives);

/* The record of a traced memo call of its site's shape, counted already,
 * the general way (trace/recorder.h: a new chunk, drops to say, polls to
 * write). Releases the guard; returns MPI_SUCCESS. */
MW_HIDDEN MW_NOINLINE int mw_xfer_traced_record(int kind, int id, int tag, uint64_t t_out,
                                               MPI_Request request);

#if MW_HAVE_MEMO
/* The tag a traced memo body keeps across its call: as a receive's record
 * gives it when no status tells it (MPI_ANY_TAG: -1, as mw_note_recv). */
static MW_ALWAYS_INLINE void mw_xfer_keep_tag(int tag, int kind)
{
    mw_tls.xfer.tag = kind == MW_MEMO_RECV && tag == MPI_ANY_TAG ? -1 : tag;
}

/* The bytes a call of e's shape moved each way, by kind. */
static MW_ALWAYS_INLINE int64_t mw_xfer_traced_sent(const mw_site *e, int kind)
{
    return kind == MW_MEMO_RECV ? 0 : (int64_t)e->memo.bytes;
}

static MW_ALWAYS_INLINE int64_t mw_xfer_traced_recv(const mw_site *e, int kind)
{
    return kind == MW_MEMO_SEND ? 0 : (int64_t)e->memo.bytes;
}

/* The end of a traced memo call of kind (MW_MEMO_SEND, _RECV or _ALLREDUCE;
 * status: a receive's; starts: the call started request). A call of its
 * site's remembered shape is counted as the fast body counts it, and its
 * record written straight into the chunk: the peer its shape was remembered
 * with, the kept tag (a receive's status tells the matched one), the memo's
 * communicator id and bytes, the request's handle (the readers match it to
 * its completion; a memo's receive names its source, so nothing is kept
 * for its status: trace/notes.h). Every rare way is a jump out of line, so
 * that the body saves no register. */
static MW_ALWAYS_INLINE int mw_xfer_end_traced_as(int ret, int id, int kind, int wide,
                                                  const void *status, const int starts,
                                                  MPI_Request request, int receives)
{
    if (MW_UNLIKELY(ret != MPI_SUCCESS))
        return mw_xfer_traced_failed(ret, id);
    uint64_t t_out = mw_now_tsc();
    mw_site *e = mw_tls.xfer.site;
    mw_stats_add(&e->s, t_out - mw_tls.guard.word);
    if (MW_UNLIKELY(!mw_xfer_same_shape(e, wide))) {
        if (kind == MW_MEMO_RECV)
            mw_tls.xfer.status = status;
        return mw_xfer_traced_new_shape(kind, id, wide, t_out, starts ? request : MPI_REQUEST_NULL,
                                        receives);
    }
    if (kind == MW_MEMO_SEND)
        mw_xfer_add_send(e);
    else if (kind == MW_MEMO_RECV)
        mw_xfer_add_recv(e);
    else
        mw_xfer_add_allreduce(e);
    int tag = mw_tls.xfer.tag;
    if (kind == MW_MEMO_ALLREDUCE)
        tag = -1;
    else if (kind == MW_MEMO_RECV && status != NULL && status != MPI_STATUS_IGNORE)
        tag = ((const MPI_Status *)status)->MPI_TAG;
    mw_trace_recorder *r = mw_trace_self;
    mw_trace_chunk *c = mw_trace_inline_chunk(r, 0, 0);
    if (MW_UNLIKELY(c == NULL))
        return mw_xfer_traced_record(kind, id, tag, t_out, starts ? request : MPI_REQUEST_NULL);
    unsigned char *p = mw_raw_put_call(c->data + c->used, MWT_XFER, id, e->key,
                                       mw_tls.guard.word, t_out);
    p = mw_trace_put_transfer(p, e->memo.peer_world, tag, e->memo.comm_id,
                              mw_xfer_traced_sent(e, kind), mw_xfer_traced_recv(e, kind));
    if (starts)   /* by its handle: a memo's receive names its source (docs/trace.md) */
        p = mw_raw_put_count(p, MWT_REQUEST, mw_request_bits(request));
    mw_trace_inline_wrote(r, c, p);
    mw_guard_release();
    return mw_xfer_success();
}

/* A send, receive or reduction to all. */
static MW_ALWAYS_INLINE int mw_xfer_end_traced(int ret, int id, int kind, int wide,
                                               const void *status)
{
    return mw_xfer_end_traced_as(ret, id, kind, wide, status, 0, MPI_REQUEST_NULL, 0);
}

/* Their non-blocking forms: request as the call left it. */
static MW_ALWAYS_INLINE int mw_xfer_end_traced_start(int ret, int id, int kind, int wide,
                                                     MPI_Request request, int receives)
{
    return mw_xfer_end_traced_as(ret, id, kind, wide, NULL, 1, request, receives);
}
#endif

#endif
