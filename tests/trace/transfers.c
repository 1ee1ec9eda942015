/* What the trace records of each send, receive and reduction to all, as the
 * program knows it: every rank writes one line per call it makes into
 * transfers.expect.RANK in its working folder (mpirun may split the lines of
 * several ranks' stdout),
 *
 *     EXPECT rank function peer tag sent recv
 *
 * (peer a world rank, -1 for none; bytes), for check-trace-ring.sh to compare
 * with the records of the rank's trace file (trace_check.py transfers). The
 * calls repeat at fixed call sites, so that the traced bodies count and
 * record most of them from their sites' memos (runtime/trace/memo_record.h):
 * tags that change at a site whose shape does not, a receive from
 * MPI_ANY_TAG whose status tells the tag, one with its status ignored, a
 * communicator of the program's own, a shape that changes now and then,
 * non-blocking sends and receives (their requests are checked apart). */
#include <mpi.h>
#include <stdio.h>

#define ITERATIONS 30

static FILE *expected;

static void expect(int rank, const char *fn, int peer, int tag, long sent, long recv)
{
    fprintf(expected, "EXPECT %d %s %d %d %ld %ld\n", rank, fn, peer, tag, sent, recv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[64];
    snprintf(path, sizeof path, "transfers.expect.%d", rank);
    if ((expected = fopen(path, "w")) == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm mine;
    MPI_Comm_dup(MPI_COMM_WORLD, &mine);
    int ints[8] = {0};
    double doubles[2] = {0};
    for (int i = 0; i < ITERATIONS; i++) {
        /* One site, its tag changing every call, its count every tenth. */
        int count = i % 10 == 9 ? 8 : 4;
        MPI_Send(ints, count, MPI_INT, right, i % 3, MPI_COMM_WORLD);
        expect(rank, "MPI_Send", right, i % 3, count * 4L, 0);
        MPI_Status status;
        MPI_Recv(ints, 8, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
        expect(rank, "MPI_Recv", left, i % 3, 0, 32);
        /* The other way round on the program's communicator, the status
         * ignored. */
        MPI_Send(doubles, 2, MPI_DOUBLE, left, 7, mine);
        expect(rank, "MPI_Send", left, 7, 16, 0);
        MPI_Recv(doubles, 2, MPI_DOUBLE, right, 7, mine, MPI_STATUS_IGNORE);
        expect(rank, "MPI_Recv", right, 7, 0, 16);
        /* Started and completed: a receive from MPI_ANY_TAG (its start's
         * record says -1), a send whose tag changes. */
        int in[8], out[4] = {0};
        MPI_Request requests[2];
        MPI_Irecv(in, 8, MPI_INT, left, MPI_ANY_TAG, mine, &requests[0]);
        expect(rank, "MPI_Irecv", left, -1, 0, 32);
        MPI_Isend(out, 4, MPI_INT, right, 10 + i % 2, mine, &requests[1]);
        expect(rank, "MPI_Isend", right, 10 + i % 2, 16, 0);
        MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, mine);
        expect(rank, "MPI_Allreduce", -1, -1, 4, 4);
    }
    MPI_Comm_free(&mine);
    fclose(expected);
    MPI_Finalize();
    return 0;
}
