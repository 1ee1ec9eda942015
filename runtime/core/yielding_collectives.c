/* Collectives to rank 0 that yield the CPU while they wait (core/yielding_collectives.h). */
#include <sched.h>

#include "core/yielding_collectives.h"

static int wait_yielding(int rc, MPI_Request *request)
{
    int done = 0;
    while (rc == MPI_SUCCESS && !done) {
        rc = PMPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (!done)
            sched_yield();
    }
    return rc;
}

int mw_reduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request request;
    return wait_yielding(PMPI_Ireduce(in, out, count, type, op, 0, comm, &request), &request);
}

int mw_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm)
{
    MPI_Request request;
    return wait_yielding(PMPI_Iallreduce(in, out, count, type, op, comm, &request), &request);
}

int mw_gather(const void *in, int count, MPI_Datatype type, void *out, MPI_Comm comm)
{
    MPI_Request request;
    return wait_yielding(PMPI_Igather(in, count, type, out, count, type, 0, comm, &request),
                         &request);
}

int mw_gatherv(const void *in, int count, MPI_Datatype type, void *out, const int *counts,
               const int *displs, MPI_Comm comm)
{
    MPI_Request request;
    return wait_yielding(PMPI_Igatherv(in, count, type, out, counts, displs, type, 0, comm,
                                       &request), &request);
}
