/* Collectives to rank 0 that yield the CPU while they wait (core/yielding_collectives.h). */
#define _POSIX_C_SOURCE 200809L   /* nanosleep */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "core/yielding_collectives.h"

/* Between two tests: the CPU to another process, then, once the wait is
 * not short, a sleep of 50 us, so that the ranks a collective waits for run
 * instead of spinning waiters (on an oversubscribed node a yield only
 * moves a spinner to the back of the queue). */
static void pause_after(int tries)
{
    if (tries < 64) {
        sched_yield();
    } else {
        struct timespec nap = {0, 50000};
        nanosleep(&nap, NULL);
    }
}

static int wait_yielding(int rc, MPI_Request *request)
{
    int done = 0;
    for (int tries = 0; rc == MPI_SUCCESS && !done; tries++) {
        rc = PMPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (!done)
            pause_after(tries);
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

int mw_comm_dup(MPI_Comm comm, MPI_Comm *copy)
{
    MPI_Request request;
    return wait_yielding(PMPI_Comm_idup(comm, copy, &request), &request);
}

int mw_bcast(void *buf, int count, MPI_Datatype type, MPI_Comm comm)
{
    MPI_Request request;
    return wait_yielding(PMPI_Ibcast(buf, count, type, 0, comm, &request), &request);
}

int mw_exscan(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    MPI_Request request;
    return wait_yielding(PMPI_Iexscan(in, out, count, type, op, comm, &request), &request);
}

int mw_send(const void *buf, int bytes, int dest, int tag, MPI_Comm comm)
{
    MPI_Request request;
    return wait_yielding(PMPI_Isend(buf, bytes, MPI_BYTE, dest, tag, comm, &request), &request);
}

int mw_recv_any(void **buf, int *bytes, int source, int tag, MPI_Comm comm)
{
    MPI_Status status;
    int found = 0, rc = MPI_SUCCESS;
    char none;
    *buf = NULL;
    *bytes = 0;
    for (int tries = 0; rc == MPI_SUCCESS && !found; tries++) {
        rc = PMPI_Iprobe(source, tag, comm, &found, &status);
        if (rc == MPI_SUCCESS && !found)
            pause_after(tries);
    }
    if (rc != MPI_SUCCESS || (rc = PMPI_Get_count(&status, MPI_BYTE, bytes)) != MPI_SUCCESS)
        return rc;
    *buf = malloc(*bytes > 0 ? (size_t)*bytes : 1);
    if (*buf == NULL) {   /* taken all the same (truncated into one byte), so the sender is free */
        PMPI_Recv(&none, 1, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE);
        return MPI_ERR_NO_MEM;
    }
    return PMPI_Recv(*buf, *bytes, MPI_BYTE, source, tag, comm, MPI_STATUS_IGNORE);
}
