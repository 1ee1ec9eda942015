/* What a call transferred: bytes sent and received, the peer (as a rank in
 * MPI_COMM_WORLD) and the tag. The generated wrappers call one mw_note_*
 * function after a successful transfer call; it fills the call record, and
 * mw_leave_xfer (runtime/mw_wrap.h) accounts for it with mw_account. The
 * commonest (sends, receives, send-receives, reductions to all) and
 * mw_account are inline (traffic/inline.h): each field of the record is
 * written once, from the thread's handle caches, so that a body that does not
 * need the record (no monitor) keeps it in registers.
 *
 * The rules (docs/report-format.md): "sent" is the data a rank puts into
 * the operation and "recv" the data it gets out, as described by the buffer
 * arguments the standard says are significant at that rank; with
 * MPI_IN_PLACE, the rank's own block counts as both, described by the other
 * buffer's arguments. Nothing is counted for MPI_PROC_NULL peers. */
#ifndef MW_TRAFFIC_H
#define MW_TRAFFIC_H

#include <mpi.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/thread_stats.h"

typedef struct mw_call {
    uint64_t t_in;
    uint64_t t_out;
    int64_t sent;        /* bytes; filled by mw_note_* */
    int64_t recv;
    int peer;            /* world rank, or -1 */
    int tag;             /* or -1 */
    MPI_Comm comm;       /* for the monitor's events (named there, off the call
                          * path, by mw_comm_id); MPI_COMM_NULL when none */
    int messages;        /* point-to-point messages sent to peer */
} mw_call;

/* The call transferred nothing (or failed): clear the record. */
static inline void mw_note_nothing(mw_call *c)
{
    c->sent = 0;
    c->recv = 0;
    c->peer = -1;
    c->tag = -1;
    c->comm = MPI_COMM_NULL;
    c->messages = 0;
}


/* Point-to-point (mw_note_send, mw_note_recv, mw_note_sendrecv are inline,
 * below). status may be NULL or MPI_STATUS_IGNORE. */
MW_HIDDEN void mw_note_psend(mw_call *c, int partitions, MPI_Count count, MPI_Datatype type,
                             int dest, int tag, MPI_Comm comm);
MW_HIDDEN void mw_note_precv(mw_call *c, int partitions, MPI_Count count, MPI_Datatype type,
                             int source, int tag, MPI_Comm comm);
MW_HIDDEN void mw_note_mrecv(mw_call *c, MPI_Count count, MPI_Datatype type,
                             const MPI_Status *status);

/* Persistent requests: an *_init call transfers nothing; its bytes are
 * remembered with the request and counted at each MPI_Start. */
MW_HIDDEN void mw_persist(mw_call *c, MPI_Request request);
MW_HIDDEN void mw_note_start(mw_call *c, MPI_Request request);
MW_HIDDEN void mw_note_startall(mw_call *c, int count, const MPI_Request *requests);
MW_HIDDEN void mw_forget_request(MPI_Request request);


/* Collectives. counts arrays are int[] or, with large set, MPI_Count[]. */
MW_HIDDEN void mw_note_bcast(mw_call *c, MPI_Count count, MPI_Datatype type, int root,
                             MPI_Comm comm);
MW_HIDDEN void mw_note_gather(mw_call *c, const void *sendbuf, MPI_Count sendcount,
                              MPI_Datatype sendtype, MPI_Count recvcount, MPI_Datatype recvtype,
                              int root, MPI_Comm comm);
MW_HIDDEN void mw_note_gatherv(mw_call *c, const void *sendbuf, MPI_Count sendcount,
                               MPI_Datatype sendtype, const void *recvcounts, int large,
                               MPI_Datatype recvtype, int root, MPI_Comm comm);
MW_HIDDEN void mw_note_scatter(mw_call *c, MPI_Count sendcount, MPI_Datatype sendtype,
                               const void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               int root, MPI_Comm comm);
MW_HIDDEN void mw_note_scatterv(mw_call *c, const void *sendcounts, int large,
                                MPI_Datatype sendtype, const void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype recvtype, int root, MPI_Comm comm);
MW_HIDDEN void mw_note_allgather(mw_call *c, const void *sendbuf, MPI_Count sendcount,
                                 MPI_Datatype sendtype, MPI_Count recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm);
MW_HIDDEN void mw_note_allgatherv(mw_call *c, const void *sendbuf, MPI_Count sendcount,
                                  MPI_Datatype sendtype, const void *recvcounts, int large,
                                  MPI_Datatype recvtype, MPI_Comm comm);
MW_HIDDEN void mw_note_alltoall(mw_call *c, const void *sendbuf, MPI_Count sendcount,
                                MPI_Datatype sendtype, MPI_Count recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm);
MW_HIDDEN void mw_note_alltoallv(mw_call *c, const void *sendbuf, const void *sendcounts,
                                 MPI_Datatype sendtype, const void *recvcounts,
                                 MPI_Datatype recvtype, int large, MPI_Comm comm);
MW_HIDDEN void mw_note_alltoallw(mw_call *c, const void *sendbuf, const void *sendcounts,
                                 const MPI_Datatype *sendtypes, const void *recvcounts,
                                 const MPI_Datatype *recvtypes, int large, MPI_Comm comm);
MW_HIDDEN void mw_note_reduce(mw_call *c, MPI_Count count, MPI_Datatype type, int root,
                              MPI_Comm comm);
MW_HIDDEN void mw_note_reduce_scatter_block(mw_call *c, MPI_Count recvcount, MPI_Datatype type,
                                            MPI_Comm comm);
MW_HIDDEN void mw_note_reduce_scatter(mw_call *c, const void *recvcounts, int large,
                                      MPI_Datatype type, MPI_Comm comm);

/* One-sided: bytes moved to (sent) or from (recv) the target's window. */
MW_HIDDEN void mw_note_rma(mw_call *c, int64_t sent, int64_t recv, int target, MPI_Win win);
/* mw_rma_bytes: count x size of type, for building mw_note_rma arguments. */
MW_HIDDEN int64_t mw_bytes(MPI_Count count, MPI_Datatype type);

/* MPI-IO: bytes written (sent) or read (recv). */
MW_HIDDEN void mw_note_io(mw_call *c, int64_t written, int64_t read);

/* Count messages and bytes sent from this rank to world rank dest. */
MW_HIDDEN void mw_count_pair(int dest, int64_t bytes, int messages);

/* mw_count_pair_in's rare case: t has no row per destination yet (made
 * now), or dest is outside it. */
MW_HIDDEN MW_NOINLINE void mw_count_pair_miss(mw_thread *t, int dest, int64_t bytes,
                                              int messages);

#include "traffic/inline.h"

#endif
