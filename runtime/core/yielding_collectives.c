/* Collectives to rank 0 that yield the CPU while they wait (core/yielding_collectives.h). */
#define _POSIX_C_SOURCE 200809L   /* nanosleep */
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"
#include "core/yielding_collectives.h"

#define MW_NAP_NS 50000ull              /* 50 us */
#define MW_NAP_LONG_WAIT_NS 100000000ull  /* 100 ms of naps: a long wait */
#define MW_NAP_MAX_NS 20000000ull         /* 20 ms */

typedef struct {
    int tries;
    uint64_t napping_since;   /* monotonic ns of the first nap, 0 before */
} waiting;

/* Between two tests: the CPU to another process, then, once the wait is
 * not short, a nap, so that the ranks a collective waits for run instead
 * of spinning waiters (on an oversubscribed node a yield only moves a
 * spinner to the back of the queue). Naps are of 50 us; in a long wait (a
 * node's barrier at MPI_Finalize behind a late rank, past 100 ms) they are an
 * eighth of the time waited, up to 20 ms: such a wait wakes 50 times a second
 * instead of 20,000, and ends at most an eighth later than it could. Growing
 * naps from the start made the report's short waits late: MPI_Finalize +26
 * and +48 ms over bare, against +13 and +25 with fixed naps and +15 and +17
 * as here (MPICH, 8 ranks on 2 cores, bench/run-finalize.sh). */
static void pause_after(waiting *w)
{
    if (w->tries++ < 64) {
        sched_yield();
        return;
    }
    uint64_t now = mw_clock_monotonic_ns();
    if (w->napping_since == 0)
        w->napping_since = now;
    uint64_t waited = now - w->napping_since;
    uint64_t ns = waited < MW_NAP_LONG_WAIT_NS ? MW_NAP_NS
                  : waited / 8 < MW_NAP_MAX_NS ? waited / 8 : MW_NAP_MAX_NS;
    struct timespec nap = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    nanosleep(&nap, NULL);
}

static int wait_yielding(int rc, MPI_Request *request)
{
    waiting w = {0, 0};
    for (int done = 0; rc == MPI_SUCCESS && !done;) {
        rc = PMPI_Test(request, &done, MPI_STATUS_IGNORE);
        if (!done)
            pause_after(&w);
    }
    return rc;
}

int mw_barrier(MPI_Comm comm)
{
    MPI_Request request;
    return wait_yielding(PMPI_Ibarrier(comm, &request), &request);
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
    waiting w = {0, 0};
    *buf = NULL;
    *bytes = 0;
    while (rc == MPI_SUCCESS && !found) {
        rc = PMPI_Iprobe(source, tag, comm, &found, &status);
        if (rc == MPI_SUCCESS && !found)
            pause_after(&w);
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
