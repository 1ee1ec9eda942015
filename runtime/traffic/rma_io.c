/* One-sided and MPI-IO traffic: bytes moved to or from a target's window,
 * and bytes written to or read from a file. */
#include "core/handles.h"
#include "traffic/traffic.h"

void mw_note_rma(mw_call *c, int64_t sent, int64_t recv, int target, MPI_Win win)
{
    mw_thread *t = mw_thread_self();
    mw_note_nothing(c);
    if (t == NULL || target == MPI_PROC_NULL)
        return;
    c->sent = sent;
    c->recv = recv;
    c->peer = mw_win_world_rank(t, win, target);
    c->messages = sent > 0;   /* data sent to the target: a pair */
}

void mw_note_io(mw_call *c, int64_t written, int64_t read)
{
    mw_note_nothing(c);
    c->sent = written;
    c->recv = read;
}
