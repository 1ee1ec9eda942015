/* Point-to-point traffic: bytes, peers and tags, for the calls whose notes
 * are not inline (traffic/inline.h). */
#include "core/handles.h"
#include "core/state.h"
#include "traffic/traffic.h"

int64_t mw_bytes(MPI_Count count, MPI_Datatype type)
{
    mw_thread *t = mw_thread_self();
    if (t == NULL || count <= 0)
        return 0;
    return (int64_t)count * mw_type_size(t, type);
}

static void note_send(mw_call *c, int64_t bytes, int dest, int tag, MPI_Comm comm)
{
    mw_thread *t = mw_thread_self();
    mw_note_nothing(c);
    if (t == NULL || dest == MPI_PROC_NULL)
        return;
    c->sent = bytes;
    c->tag = tag;
    c->comm = comm;
    c->peer = mw_comm_world_rank(t, comm, dest);
    c->messages = 1;
}

void mw_note_psend(mw_call *c, int partitions, MPI_Count count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm)
{
    note_send(c, dest == MPI_PROC_NULL ? 0 : partitions * mw_bytes(count, type), dest, tag, comm);
}

/* The source and tag a receive matched: from the status when there is one. */
static void note_received(mw_call *c, int64_t bytes, int source, int tag, MPI_Comm comm,
                          const MPI_Status *status)
{
    mw_thread *t = mw_thread_self();
    mw_note_nothing(c);
    if (status != NULL && status != MPI_STATUS_IGNORE) {
        source = status->MPI_SOURCE;
        tag = status->MPI_TAG;
    }
    if (t == NULL || source == MPI_PROC_NULL)
        return;
    c->recv = bytes;
    c->comm = comm;
    c->tag = tag == MPI_ANY_TAG ? -1 : tag;
    c->peer = source == MPI_ANY_SOURCE ? -1 : mw_comm_world_rank(t, comm, source);
}

void mw_note_precv(mw_call *c, int partitions, MPI_Count count, MPI_Datatype type, int source,
                   int tag, MPI_Comm comm)
{
    note_received(c, partitions * mw_bytes(count, type), source, tag, comm, NULL);
}

void mw_note_mrecv(mw_call *c, MPI_Count count, MPI_Datatype type, const MPI_Status *status)
{
    /* The message handle's communicator is not known: the peer is left unknown. */
    note_received(c, mw_bytes(count, type), MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_NULL, NULL);
    if (status != NULL && status != MPI_STATUS_IGNORE)
        c->tag = status->MPI_TAG;
}
