/* The rare ends of the traced memo bodies (trace/memo_record.h): a call
 * that failed, and one of a new shape, counted as the fast body counts
 * them and recorded the general way. */
#include "trace/memo_record.h"
#include "trace/trace.h"

#if MW_HAVE_MEMO
int mw_xfer_traced_failed(int ret, int id)
{
    uint64_t t_out = mw_now_tsc();
    mw_site *e = mw_tls.xfer.site;
    mw_stats_add(&e->s, t_out - mw_tls.guard.word);
    mw_call call;
    call.t_in = mw_tls.guard.word;
    call.t_out = t_out;
    mw_trace_record(id, &call, 0, &e->s);
    mw_guard_release();
    return ret;
}

int mw_xfer_traced_new_shape(int kind, int id, int wide, uint64_t t_out)
{
    mw_site *e = mw_tls.xfer.site;
    mw_call call;
    mw_xfer_account_new_shape(&call, kind, id, wide, mw_tls.xfer.tag);
    call.t_in = mw_tls.guard.word;
    call.t_out = t_out;
    mw_trace_record(id, &call, 1, &e->s);
    mw_guard_release();
    return MPI_SUCCESS;
}
int mw_xfer_traced_record(int kind, int id, int tag, uint64_t t_out)
{
    mw_site *e = mw_tls.xfer.site;
    mw_call call;
    call.t_in = mw_tls.guard.word;
    call.t_out = t_out;
    call.peer = e->memo.peer_world;
    call.tag = tag;
    call.comm = (MPI_Comm)e->memo.comm;
    call.sent = mw_xfer_traced_sent(e, kind);
    call.recv = mw_xfer_traced_recv(e, kind);
    mw_trace_record(id, &call, 1, &e->s);
    mw_guard_release();
    return MPI_SUCCESS;
}
#endif
