/* The runtime's own collectives and messages (the report at MPI_Finalize). Each is
 * started nonblocking and waited for with PMPI_Test, sched_yield and naps
 * that grow with the wait (yielding_collectives.c's pause_after): an MPI
 * that spins in a blocking collective starves the other ranks when a node
 * is oversubscribed (measured here: 34 ms per barrier at 8 ranks on 2 cores
 * with MPICH, 2.3 ms when the waiting ranks yield). */
#ifndef MW_COLLECTIVES_H
#define MW_COLLECTIVES_H

#include <mpi.h>

#include "core/compiler.h"

MW_HIDDEN int mw_reduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm);
MW_HIDDEN int mw_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                           MPI_Comm comm);
/* Gathers to rank 0 as MPI_Gather and MPI_Gatherv (contiguous types), made of
 * mw_send and mw_recv_any in a binomial tree (core/tree_gather.c): rank 0
 * talks to log2 P ranks, not P. Every rank takes part to the end whatever
 * fails; rank 0 without room for the result (out, counts or displs NULL)
 * gets MPI_ERR_NO_MEM. */
MW_HIDDEN int mw_gather(const void *in, int count, MPI_Datatype type, void *out, MPI_Comm comm);
MW_HIDDEN int mw_gatherv(const void *in, int count, MPI_Datatype type, void *out,
                         const int *counts, const int *displs, MPI_Comm comm);
/* MPI_Comm_dup (as MPI_Comm_idup): with MPICH, 8 ranks on 2 cores spent 76 ms
 * of MPI_Finalize in a blocking dup (measured). */
MW_HIDDEN int mw_comm_dup(MPI_Comm comm, MPI_Comm *copy);
MW_HIDDEN int mw_barrier(MPI_Comm comm);
MW_HIDDEN int mw_bcast(void *buf, int count, MPI_Datatype type, MPI_Comm comm);   /* from rank 0 */
MW_HIDDEN int mw_exscan(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm);

/* Point to point the same way (the report's merge tree): send bytes; and
 * receive a message of any size from source into *buf (malloc'ed: free it),
 * its size in *bytes. Without memory for it the message is still taken (and
 * dropped), *buf is NULL and the result MPI_ERR_NO_MEM. */
MW_HIDDEN int mw_send(const void *buf, int bytes, int dest, int tag, MPI_Comm comm);
/* The tags of these messages on the private communicator, one per use. */
#define MW_TAG_SITES 1    /* report/callsites.c's merge */
#define MW_TAG_GATHER 2   /* mw_gather, mw_gatherv */
#define MW_TAG_OTF2 3     /* trace/otf2_collectives.c's scatterv */
MW_HIDDEN int mw_recv_any(void **buf, int *bytes, int source, int tag, MPI_Comm comm);

#endif
