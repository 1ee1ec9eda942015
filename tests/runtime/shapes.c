/* shapes.c: calls whose count and peer change from one call to the next at
 * the same call sites.
 *
 * The fast path remembers, per call site, the count and peer of the last
 * call it counted and what that call added (bytes, size-histogram slot,
 * destination row), and adds the same again for a call of the same shape.
 * Here each site sees shapes that alternate, repeat, and come back: two
 * destinations and two counts in turn, send-receives that send nothing and
 * receive different amounts, MPI_PROC_NULL and MPI_ANY_SOURCE between
 * ordinary peers, and reductions of nothing between reductions of one int.
 * The report's bytes, pairs and size ranges must be those of the general
 * path (check-shapes.sh runs it both ways): they are only if a remembered
 * shape is used for calls of that shape alone. Rank 0 prints a summary; the
 * exit status is non-zero if a message arrived wrong.
 */
#include <mpi.h>
#include <stdio.h>

#define ROUNDS 6
#define MAXCOUNT 64

static int errors;

/* One send to each neighbour in turn from the same call site, with
 * counts that differ by destination and by round, and the matching
 * receives from one site, also in turn. */
static void __attribute__((noinline)) halo(int round, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[MAXCOUNT], in[2][MAXCOUNT];
    MPI_Request requests[2];
    const int peers[2] = {right, left};
    for (int i = 0; i < MAXCOUNT; i++)
        out[i] = rank;
    for (int k = 0; k < 2; k++)
        MPI_Irecv(in[k], MAXCOUNT, MPI_INT, k == 0 ? left : right, 5 + k, MPI_COMM_WORLD,
                  &requests[k]);
    for (int k = 0; k < 2; k++) {
        /* 1 or 16 ints to the right, 2 to the left, doubled on odd rounds. */
        int count = (k == 0 ? (round % 3 ? 1 : 16) : 2) * (round % 2 + 1);
        MPI_Send(out, count, MPI_INT, peers[k], 5 + k, MPI_COMM_WORLD);
    }
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    if (in[0][0] != left || in[1][0] != right)
        errors++;
}

/* Send-receives at two sites. The first sends nothing to the right and
 * receives up to 0, 3 or 8 ints from the left (both MPI_PROC_NULL in round
 * 4). The second sends count ints to the right and receives from the left;
 * in round 3 it receives from MPI_PROC_NULL (the message it sends is
 * received at a third site, posted before), in round 5 it sends to
 * MPI_PROC_NULL (the message it receives was sent from a fourth site,
 * without blocking). */
static void __attribute__((noinline)) gather_left(int round, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[MAXCOUNT], in[MAXCOUNT];
    const int counts[3] = {0, 3, 8};
    int nul = round == 4;
    for (int i = 0; i < MAXCOUNT; i++) {
        out[i] = rank;
        in[i] = -1;
    }
    MPI_Sendrecv(out, 0, MPI_INT, nul ? MPI_PROC_NULL : right, 7, in, counts[round % 3], MPI_INT,
                 nul ? MPI_PROC_NULL : left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    int count = 1 + round % 4, extra[MAXCOUNT];
    MPI_Request request = MPI_REQUEST_NULL;
    if (round == 5)
        MPI_Isend(out, count, MPI_INT, right, 8, MPI_COMM_WORLD, &request);
    if (round == 3)
        MPI_Irecv(extra, MAXCOUNT, MPI_INT, left, 8, MPI_COMM_WORLD, &request);
    MPI_Sendrecv(out, count, MPI_INT, round == 5 ? MPI_PROC_NULL : right, 8, in, MAXCOUNT,
                 MPI_INT, round == 3 ? MPI_PROC_NULL : left, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (round == 3)
        in[0] = extra[0];
    if (in[0] != left)
        errors++;
}

/* Receives from MPI_ANY_SOURCE and from a named source at one site. */
static void __attribute__((noinline)) any_or_named(int round, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[4] = {rank, rank, rank, rank}, in[4];
    MPI_Request request;
    MPI_Isend(out, 4, MPI_INT, right, 9, MPI_COMM_WORLD, &request);
    MPI_Recv(in, 4, MPI_INT, round % 2 ? MPI_ANY_SOURCE : left, 9, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (in[0] != left)
        errors++;
}

/* Reductions of one int and of nothing, at one site. */
static void __attribute__((noinline)) reduce(int round, int size)
{
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, round % 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (round % 2 && sum != size)
        errors++;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < ROUNDS; round++) {
        halo(round, rank, size);
        gather_left(round, rank, size);
        any_or_named(round, rank, size);
        reduce(round, size);
    }
    int all = 0;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("shapes: %d rounds, %d errors\n", ROUNDS, all);
    MPI_Finalize();
    return all != 0;
}
