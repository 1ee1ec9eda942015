/* p2p.c: point-to-point end-to-end test for mpiwatch.
 *
 * Every rank makes the same number of calls of every MPI function, whatever
 * the rank count (>= 1): ranks without a partner talk to MPI_PROC_NULL, and
 * ring patterns that may reach the rank itself (np == 1) use only buffered,
 * nonblocking or combined send-receive calls, so nothing can deadlock.
 * Rank 0 prints a deterministic summary; the exit status is non-zero if any
 * received value was wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

enum phase {
    PH_SEND, PH_SSEND, PH_BSEND, PH_RSEND, PH_NONBLOCKING, PH_PERSIST0,
    PH_PERSIST1, PH_PERSIST2, PH_PROBE, PH_SENDRECV, PH_REPLACE, PH_REVERSED, NPHASE
};

static const char *const phase_name[NPHASE] = {
    "send_recv", "ssend_recv", "bsend_recv", "rsend_irecv", "isend_irecv",
    "persistent_0", "persistent_1", "persistent_2", "probe_recv", "sendrecv",
    "sendrecv_replace", "reversed_issend"
};

/* The value element i of the message sent by rank `sender` in `phase`. */
static int value(int sender, int phase, int i)
{
    return (sender + 1) * 100003 + phase * 7919 + i * 31;
}

static void fill(int *buf, int n, int sender, int phase)
{
    for (int i = 0; i < n; i++)
        buf[i] = value(sender, phase, i);
}

static void clear(int *buf, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = -1;
}

/* Check n received elements from `src` (MPI_PROC_NULL: buffer untouched)
 * and return their checksum; count wrong elements in *errors. */
static unsigned long long digest(const int *buf, int n, int src, int phase,
                                 long long *errors)
{
    unsigned long long sum = 0;
    for (int i = 0; i < n; i++) {
        int expected = src == MPI_PROC_NULL ? -1 : value(src, phase, i);
        if (buf[i] != expected)
            ++*errors;
        sum += (unsigned long long)(i + 1) * (unsigned int)buf[i];
    }
    return sum;
}

/* Even ranks pair with the next rank; the last rank of an odd count has
 * no partner. */
static int pair_partner(int rank, int size)
{
    if (rank % 2 == 1)
        return rank - 1;
    return rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
}

int main(int argc, char **argv)
{
    int rank, size;
    int sendbuf[N], recvbuf[N];
    unsigned long long sums[NPHASE + 1] = {0}, total[NPHASE + 1];
    long long errors = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int right = (rank + 1) % size;
    const int left = (rank + size - 1) % size;
    const int partner = pair_partner(rank, size);
    MPI_Comm comm = MPI_COMM_WORLD;

    /* Blocking standard and synchronous sends, in pairs. */
    fill(sendbuf, N, rank, PH_SEND);
    clear(recvbuf, N);
    if (rank % 2 == 0) {
        MPI_Send(sendbuf, N, MPI_INT, partner, PH_SEND, comm);
        MPI_Recv(recvbuf, N, MPI_INT, partner, PH_SEND, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(recvbuf, N, MPI_INT, partner, PH_SEND, comm, MPI_STATUS_IGNORE);
        MPI_Send(sendbuf, N, MPI_INT, partner, PH_SEND, comm);
    }
    sums[PH_SEND] = digest(recvbuf, N, partner, PH_SEND, &errors);

    fill(sendbuf, N, rank, PH_SSEND);
    clear(recvbuf, N);
    if (rank % 2 == 0) {
        MPI_Ssend(sendbuf, N, MPI_INT, partner, PH_SSEND, comm);
        MPI_Recv(recvbuf, N, MPI_INT, partner, PH_SSEND, comm, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(recvbuf, N, MPI_INT, partner, PH_SSEND, comm, MPI_STATUS_IGNORE);
        MPI_Ssend(sendbuf, N, MPI_INT, partner, PH_SSEND, comm);
    }
    sums[PH_SSEND] = digest(recvbuf, N, partner, PH_SSEND, &errors);

    /* Buffered send around the ring: Bsend completes locally. */
    {
        int bufsize = (int)sizeof sendbuf + MPI_BSEND_OVERHEAD;
        char *attached = malloc((size_t)bufsize);
        void *detached;
        int detached_size;
        if (attached == NULL) {
            fprintf(stderr, "p2p: out of memory\n");
            MPI_Abort(comm, 2);
        }
        MPI_Buffer_attach(attached, bufsize);
        fill(sendbuf, N, rank, PH_BSEND);
        clear(recvbuf, N);
        MPI_Bsend(sendbuf, N, MPI_INT, right, PH_BSEND, comm);
        MPI_Recv(recvbuf, N, MPI_INT, left, PH_BSEND, comm, MPI_STATUS_IGNORE);
        MPI_Buffer_detach(&detached, &detached_size);
        if (detached != attached || detached_size != bufsize)
            errors++;
        free(attached);
        sums[PH_BSEND] = digest(recvbuf, N, left, PH_BSEND, &errors);
    }

    /* Ready send: every receive is posted before the barrier. */
    {
        MPI_Request req;
        fill(sendbuf, N, rank, PH_RSEND);
        clear(recvbuf, N);
        MPI_Irecv(recvbuf, N, MPI_INT, left, PH_RSEND, comm, &req);
        MPI_Barrier(comm);
        MPI_Rsend(sendbuf, N, MPI_INT, right, PH_RSEND, comm);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        sums[PH_RSEND] = digest(recvbuf, N, left, PH_RSEND, &errors);
    }

    /* Nonblocking ring; one MPI_Test whose outcome is not used. */
    {
        MPI_Request reqs[2];
        /* Not MPI_STATUSES_IGNORE: GCC 12 warns (-Wstringop-overflow) with MPICH. */
        MPI_Status statuses[2];
        int flag;
        fill(sendbuf, N, rank, PH_NONBLOCKING);
        clear(recvbuf, N);
        MPI_Irecv(recvbuf, N, MPI_INT, left, PH_NONBLOCKING, comm, &reqs[0]);
        MPI_Isend(sendbuf, N, MPI_INT, right, PH_NONBLOCKING, comm, &reqs[1]);
        MPI_Test(&reqs[0], &flag, MPI_STATUS_IGNORE);
        MPI_Waitall(2, reqs, statuses);
        sums[PH_NONBLOCKING] = digest(recvbuf, N, left, PH_NONBLOCKING, &errors);
    }

    /* Persistent requests, started three times: once with Startall, then
     * twice with two Starts (bytes are counted at every start). */
    {
        MPI_Request reqs[2];
        /* Not MPI_STATUSES_IGNORE: GCC 12 warns (-Wstringop-overflow) with MPICH. */
        MPI_Status statuses[2];
        MPI_Recv_init(recvbuf, N, MPI_INT, left, PH_PERSIST0, comm, &reqs[0]);
        MPI_Send_init(sendbuf, N, MPI_INT, right, PH_PERSIST0, comm, &reqs[1]);

        fill(sendbuf, N, rank, PH_PERSIST0);
        clear(recvbuf, N);
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, statuses);
        sums[PH_PERSIST0] = digest(recvbuf, N, left, PH_PERSIST0, &errors);

        fill(sendbuf, N, rank, PH_PERSIST1);
        clear(recvbuf, N);
        MPI_Start(&reqs[0]);
        MPI_Start(&reqs[1]);
        MPI_Waitall(2, reqs, statuses);
        sums[PH_PERSIST1] = digest(recvbuf, N, left, PH_PERSIST1, &errors);

        fill(sendbuf, N, rank, PH_PERSIST2);
        clear(recvbuf, N);
        MPI_Start(&reqs[0]);
        MPI_Start(&reqs[1]);
        MPI_Waitall(2, reqs, statuses);
        sums[PH_PERSIST2] = digest(recvbuf, N, left, PH_PERSIST2, &errors);

        MPI_Request_free(&reqs[0]);
        MPI_Request_free(&reqs[1]);
    }

    /* Probe, Get_count, Iprobe (which must find the probed message), Recv.
     * The message length depends on the sender; the receive posts the whole
     * buffer, which is longer than the message. */
    {
        MPI_Request req;
        MPI_Status status;
        int count = -1, flag = 0;
        int mylen = N / 2 + rank % 5;
        int expected_len = N / 2 + left % 5;
        fill(sendbuf, N, rank, PH_PROBE);
        clear(recvbuf, N);
        MPI_Isend(sendbuf, mylen, MPI_INT, right, PH_PROBE, comm, &req);
        MPI_Probe(left, PH_PROBE, comm, &status);
        MPI_Get_count(&status, MPI_INT, &count);
        if (count != expected_len || status.MPI_SOURCE != left
            || status.MPI_TAG != PH_PROBE)
            errors++;
        MPI_Iprobe(left, PH_PROBE, comm, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            errors++;
        MPI_Recv(recvbuf, N, MPI_INT, left, PH_PROBE, comm, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        sums[PH_PROBE] = digest(recvbuf, expected_len, left, PH_PROBE, &errors);
    }

    /* Combined send-receive around the ring. */
    fill(sendbuf, N, rank, PH_SENDRECV);
    clear(recvbuf, N);
    MPI_Sendrecv(sendbuf, N, MPI_INT, right, PH_SENDRECV,
                 recvbuf, N, MPI_INT, left, PH_SENDRECV, comm, MPI_STATUS_IGNORE);
    sums[PH_SENDRECV] = digest(recvbuf, N, left, PH_SENDRECV, &errors);

    fill(recvbuf, N, rank, PH_REPLACE);
    MPI_Sendrecv_replace(recvbuf, N, MPI_INT, right, PH_REPLACE, left, PH_REPLACE,
                         comm, MPI_STATUS_IGNORE);
    sums[PH_REPLACE] = digest(recvbuf, N, left, PH_REPLACE, &errors);

    /* Nonblocking synchronous send around the ring of a communicator whose
     * ranks are in the reverse order of MPI_COMM_WORLD's: its next rank is
     * the world's left neighbour (the report's peers are world ranks). */
    {
        MPI_Comm rev;
        MPI_Request reqs[2];
        MPI_Status statuses[2];
        int me;
        MPI_Comm_split(comm, 0, size - 1 - rank, &rev);
        MPI_Comm_rank(rev, &me);
        fill(sendbuf, N, rank, PH_REVERSED);
        clear(recvbuf, N);
        MPI_Irecv(recvbuf, N, MPI_INT, (me + size - 1) % size, PH_REVERSED, rev, &reqs[0]);
        MPI_Issend(sendbuf, N, MPI_INT, (me + 1) % size, PH_REVERSED, rev, &reqs[1]);
        MPI_Waitall(2, reqs, statuses);
        sums[PH_REVERSED] = digest(recvbuf, N, right, PH_REVERSED, &errors);
        MPI_Comm_free(&rev);
    }

    sums[NPHASE] = (unsigned long long)errors;
    MPI_Reduce(sums, total, NPHASE + 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    if (rank == 0) {
        printf("p2p np=%d\n", size);
        for (int p = 0; p < NPHASE; p++)
            printf("%-18s checksum %llu\n", phase_name[p], total[p]);
        printf("errors %llu\n", total[NPHASE]);
        fflush(stdout);
    }
    MPI_Finalize();
    return rank == 0 && total[NPHASE] != 0 ? 1 : 0;
}
