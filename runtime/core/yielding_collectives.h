/* The runtime's own collectives (the report at MPI_Finalize). Each is
 * started nonblocking and waited for with PMPI_Test and sched_yield: an MPI
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
MW_HIDDEN int mw_gather(const void *in, int count, MPI_Datatype type, void *out, MPI_Comm comm);
MW_HIDDEN int mw_gatherv(const void *in, int count, MPI_Datatype type, void *out,
                         const int *counts, const int *displs, MPI_Comm comm);

#endif
