/* The rare ends of the traced memo bodies (trace/memo_record.h): a call
 * that failed, one of a new shape, and one the recorder takes the general
 * way, counted as the fast body counts them and recorded by mw_trace_record. */
#include "trace/memo_record.h"
#include "trace/trace.h"

#if MW_HAVE_MEMO
/* Record the kept call (its times: the guard word, t_out) at its site and
 * release the guard. */
static void record_kept(int id, mw_call *call, int traffic, uint64_t t_out)
{
    call->t_in = mw_tls.guard.word;
    call->t_out = t_out;
    mw_trace_record(id, call, traffic, &mw_tls.xfer.site->s);
    mw_guard_release();
}

int mw_xfer_traced_failed(int ret, int id)
{
    uint64_t t_out = mw_now_tsc();
    mw_stats_add(&mw_tls.xfer.site->s, t_out - mw_tls.guard.word);
    mw_call call;
    record_kept(id, &call, 0, t_out);
    return ret;
}

int mw_xfer_traced_new_shape(int kind, int id, int wide, uint64_t t_out, MPI_Request request,
                             int receives)
{
    mw_call call;
    mw_xfer_account_new_shape(&call, kind, id, wide, mw_tls.xfer.tag);
    /* A receive of a new shape may name no source (MPI_ANY_SOURCE, never
     * remembered): kept for its status, as the slow body's (trace/notes.h). */
    mw_trace_note_request(MPI_SUCCESS, request, call.comm, receives);
    record_kept(id, &call, 1, t_out);
    return MPI_SUCCESS;
}

int mw_xfer_traced_record(int kind, int id, int tag, uint64_t t_out, MPI_Request request)
{
    mw_trace_note_request(MPI_SUCCESS, request, MPI_COMM_NULL, 0);
    const mw_site *e = mw_tls.xfer.site;
    mw_call call;
    call.peer = e->memo.peer_world;
    call.tag = tag;
    call.comm = (MPI_Comm)e->memo.comm;
    call.sent = mw_xfer_traced_sent(e, kind);
    call.recv = mw_xfer_traced_recv(e, kind);
    record_kept(id, &call, 1, t_out);
    return MPI_SUCCESS;
}
#endif
