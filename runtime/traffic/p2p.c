/* Point-to-point traffic for the calls whose notes are not inline
 * (traffic/inline.h): partitioned sends and receives, by the inline notes'
 * rules, and matched receives, whose communicator is not known. */
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

/* A partitioned send is one send of all its partitions. */
void mw_note_psend(mw_call *c, int partitions, MPI_Count count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm)
{
    mw_note_send(c, (MPI_Count)partitions * count, type, dest, tag, comm);
}

void mw_note_precv(mw_call *c, int partitions, MPI_Count count, MPI_Datatype type, int source,
                   int tag, MPI_Comm comm)
{
    mw_note_recv(c, (MPI_Count)partitions * count, type, source, tag, comm, NULL);
}

void mw_note_mrecv(mw_call *c, MPI_Count count, MPI_Datatype type, const MPI_Status *status)
{
    /* The message handle's communicator is not known: the peer is left unknown. */
    mw_note_nothing(c);
    c->recv = mw_bytes(count, type);
    if (status != NULL && status != MPI_STATUS_IGNORE)
        c->tag = status->MPI_TAG;
}
