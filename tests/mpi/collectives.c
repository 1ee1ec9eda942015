/* collectives.c: collective-operation end-to-end test for mpiwatch.
 *
 * Every rank calls every collective exactly once per use below, so each
 * function's call count is a multiple of np. Only integer data is reduced,
 * so results do not depend on the reduction order. Rank 0 prints a
 * deterministic summary; the exit status is non-zero if any check failed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"

#define N 16

enum phase {
    PH_BCAST, PH_REDUCE, PH_REDUCE_INPLACE, PH_ALLREDUCE, PH_ALLREDUCE_INPLACE,
    PH_GATHER, PH_GATHERV, PH_SCATTER, PH_SCATTERV, PH_ALLGATHER,
    PH_ALLGATHERV, PH_ALLTOALL, PH_ALLTOALLV, PH_REDUCE_SCATTER_BLOCK,
    PH_SCAN, PH_EXSCAN, PH_IBCAST, PH_IALLREDUCE, PH_GATHER_INPLACE,
    PH_GATHERV_INPLACE, PH_SCATTER_INPLACE, PH_SCATTERV_INPLACE, PH_ALLGATHER_INPLACE,
    PH_ALLGATHERV_INPLACE, PH_ALLTOALL_INPLACE, PH_ALLTOALLV_INPLACE, PH_REDUCE_SCATTER,
    NPHASE
};

static const char *const phase_name[NPHASE] = {
    "bcast", "reduce", "reduce_in_place", "allreduce", "allreduce_in_place",
    "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv",
    "alltoall", "alltoallv", "reduce_scatter_block", "scan", "exscan",
    "ibcast", "iallreduce", "gather_in_place", "gatherv_in_place",
    "scatter_in_place", "scatterv_in_place", "allgather_in_place",
    "allgatherv_in_place", "alltoall_in_place", "alltoallv_in_place", "reduce_scatter"
};

/* Element i of what rank r contributes in `phase` (kept small enough that
 * sums over a few hundred ranks fit in an int). */
static int value(int r, int phase, int i)
{
    return (r + 1) * 1009 + phase * 101 + i * 7;
}

/* Sum over ranks 0..n-1 of value(r, phase, i). */
static int value_sum(int n, int phase, int i)
{
    int s = 0;
    for (int r = 0; r < n; r++)
        s += value(r, phase, i);
    return s;
}

/* Number of elements rank r sends to rank d in the v-variants. */
static int vcount(int r, int d)
{
    return (r + 2 * d) % 3 + 1;
}

/* The same, symmetric in r and d, as in-place Alltoallv requires. */
static int vsym(int r, int d)
{
    return (r + d) % 3 + 1;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "collectives: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

int main(int argc, char **argv)
{
    int rank, size;
    struct tally t = {{0}, 0};
    MPI_Comm comm = MPI_COMM_WORLD;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    int *a = xmalloc(sizeof(int) * N);
    int *b = xmalloc(sizeof(int) * N);
    int *big = xmalloc(sizeof(int) * (size_t)size * N);
    int *big2 = xmalloc(sizeof(int) * (size_t)size * N);
    int *counts = xmalloc(sizeof(int) * (size_t)size);
    int *displs = xmalloc(sizeof(int) * (size_t)size);
    int *rcounts = xmalloc(sizeof(int) * (size_t)size);
    int *rdispls = xmalloc(sizeof(int) * (size_t)size);

    MPI_Barrier(comm);

    /* Bcast from rank 0. */
    for (int i = 0; i < N; i++)
        a[i] = rank == 0 ? value(0, PH_BCAST, i) : -1;
    MPI_Bcast(a, N, MPI_INT, 0, comm);
    for (int i = 0; i < N; i++)
        see(&t, PH_BCAST, i, a[i], value(0, PH_BCAST, i));

    /* Reduce to rank 0, then again with MPI_IN_PLACE at the root. */
    for (int i = 0; i < N; i++) {
        a[i] = value(rank, PH_REDUCE, i);
        b[i] = -1;
    }
    MPI_Reduce(a, b, N, MPI_INT, MPI_SUM, 0, comm);
    if (rank == 0)
        for (int i = 0; i < N; i++)
            see(&t, PH_REDUCE, i, b[i], value_sum(size, PH_REDUCE, i));

    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_REDUCE_INPLACE, i);
    if (rank == 0) {
        MPI_Reduce(MPI_IN_PLACE, a, N, MPI_INT, MPI_SUM, 0, comm);
        for (int i = 0; i < N; i++)
            see(&t, PH_REDUCE_INPLACE, i, a[i], value_sum(size, PH_REDUCE_INPLACE, i));
    } else {
        MPI_Reduce(a, NULL, N, MPI_INT, MPI_SUM, 0, comm);
    }

    /* Allreduce (MAX), then Allreduce in place (SUM). */
    for (int i = 0; i < N; i++) {
        a[i] = value(rank, PH_ALLREDUCE, i);
        b[i] = -1;
    }
    MPI_Allreduce(a, b, N, MPI_INT, MPI_MAX, comm);
    for (int i = 0; i < N; i++)
        see(&t, PH_ALLREDUCE, i, b[i], value(size - 1, PH_ALLREDUCE, i));

    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_ALLREDUCE_INPLACE, i);
    MPI_Allreduce(MPI_IN_PLACE, a, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < N; i++)
        see(&t, PH_ALLREDUCE_INPLACE, i, a[i], value_sum(size, PH_ALLREDUCE_INPLACE, i));

    /* Gather and Gatherv to rank 0. */
    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_GATHER, i);
    MPI_Gather(a, N, MPI_INT, big, N, MPI_INT, 0, comm);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                see(&t, PH_GATHER, r * N + i, big[r * N + i], value(r, PH_GATHER, i));

    for (int r = 0, off = 0; r < size; r++) {
        counts[r] = vcount(r, 0);
        displs[r] = off;
        off += counts[r];
    }
    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_GATHERV, i);
    MPI_Gatherv(a, vcount(rank, 0), MPI_INT, big, counts, displs, MPI_INT, 0, comm);
    if (rank == 0)
        for (int r = 0; r < size; r++)
            for (int i = 0; i < counts[r]; i++)
                see(&t, PH_GATHERV, displs[r] + i, big[displs[r] + i],
                    value(r, PH_GATHERV, i));

    /* Gather and Gatherv in place, to the last rank. Arguments that are not
     * significant (the root's send count and type, the other ranks' receive
     * count and type) get values that must be ignored. */
    const int last = size - 1;
    for (int i = 0; i < size * N; i++)
        big[i] = -1;
    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_GATHER_INPLACE, i);
    if (rank == last) {
        for (int i = 0; i < N; i++)
            big[last * N + i] = a[i];
        MPI_Gather(MPI_IN_PLACE, 5, MPI_DOUBLE, big, N, MPI_INT, last, comm);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < N; i++)
                see(&t, PH_GATHER_INPLACE, r * N + i, big[r * N + i],
                    value(r, PH_GATHER_INPLACE, i));
    } else {
        MPI_Gather(a, N, MPI_INT, NULL, 7, MPI_DOUBLE, last, comm);
    }

    for (int r = 0, off = 0; r < size; r++) {
        counts[r] = vcount(r, 0);
        displs[r] = off;
        off += counts[r];
    }
    for (int i = 0; i < size * N; i++)
        big[i] = -1;
    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_GATHERV_INPLACE, i);
    if (rank == last) {
        for (int i = 0; i < counts[last]; i++)
            big[displs[last] + i] = a[i];
        MPI_Gatherv(MPI_IN_PLACE, 5, MPI_DOUBLE, big, counts, displs, MPI_INT, last, comm);
        for (int r = 0; r < size; r++)
            for (int i = 0; i < counts[r]; i++)
                see(&t, PH_GATHERV_INPLACE, displs[r] + i, big[displs[r] + i],
                    value(r, PH_GATHERV_INPLACE, i));
    } else {
        MPI_Gatherv(a, vcount(rank, 0), MPI_INT, NULL, NULL, NULL, MPI_DOUBLE, last, comm);
    }

    /* Scatter and Scatterv from rank 0. */
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            big[r * N + i] = rank == 0 ? value(r, PH_SCATTER, i) : -1;
    MPI_Scatter(big, N, MPI_INT, b, N, MPI_INT, 0, comm);
    for (int i = 0; i < N; i++)
        see(&t, PH_SCATTER, i, b[i], value(rank, PH_SCATTER, i));

    for (int r = 0, off = 0; r < size; r++) {
        counts[r] = vcount(0, r);
        displs[r] = off;
        for (int i = 0; i < counts[r]; i++)
            big[off + i] = value(r, PH_SCATTERV, i);
        off += counts[r];
    }
    for (int i = 0; i < N; i++)
        b[i] = -1;
    MPI_Scatterv(big, counts, displs, MPI_INT, b, vcount(0, rank), MPI_INT, 0, comm);
    for (int i = 0; i < vcount(0, rank); i++)
        see(&t, PH_SCATTERV, i, b[i], value(rank, PH_SCATTERV, i));

    /* Scatter and Scatterv in place, from the last rank. */
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            big[r * N + i] = rank == last ? value(r, PH_SCATTER_INPLACE, i) : -1;
    for (int i = 0; i < N; i++)
        b[i] = -1;
    if (rank == last) {
        MPI_Scatter(big, N, MPI_INT, MPI_IN_PLACE, 5, MPI_DOUBLE, last, comm);
        for (int i = 0; i < N; i++)
            see(&t, PH_SCATTER_INPLACE, i, big[last * N + i], value(last, PH_SCATTER_INPLACE, i));
    } else {
        MPI_Scatter(NULL, 7, MPI_DOUBLE, b, N, MPI_INT, last, comm);
        for (int i = 0; i < N; i++)
            see(&t, PH_SCATTER_INPLACE, i, b[i], value(rank, PH_SCATTER_INPLACE, i));
    }

    for (int r = 0, off = 0; r < size; r++) {
        counts[r] = vcount(0, r);
        displs[r] = off;
        for (int i = 0; i < counts[r]; i++)
            big[off + i] = rank == last ? value(r, PH_SCATTERV_INPLACE, i) : -1;
        off += counts[r];
    }
    for (int i = 0; i < N; i++)
        b[i] = -1;
    if (rank == last) {
        MPI_Scatterv(big, counts, displs, MPI_INT, MPI_IN_PLACE, 5, MPI_DOUBLE, last, comm);
        for (int i = 0; i < counts[last]; i++)
            see(&t, PH_SCATTERV_INPLACE, i, big[displs[last] + i],
                value(last, PH_SCATTERV_INPLACE, i));
    } else {
        MPI_Scatterv(NULL, NULL, NULL, MPI_DOUBLE, b, vcount(0, rank), MPI_INT, last, comm);
        for (int i = 0; i < vcount(0, rank); i++)
            see(&t, PH_SCATTERV_INPLACE, i, b[i], value(rank, PH_SCATTERV_INPLACE, i));
    }

    /* Allgather and Allgatherv. */
    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_ALLGATHER, i);
    MPI_Allgather(a, N, MPI_INT, big, N, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            see(&t, PH_ALLGATHER, r * N + i, big[r * N + i], value(r, PH_ALLGATHER, i));

    for (int r = 0, off = 0; r < size; r++) {
        counts[r] = vcount(r, 1);
        displs[r] = off;
        off += counts[r];
    }
    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_ALLGATHERV, i);
    MPI_Allgatherv(a, vcount(rank, 1), MPI_INT, big, counts, displs, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            see(&t, PH_ALLGATHERV, displs[r] + i, big[displs[r] + i],
                value(r, PH_ALLGATHERV, i));

    /* Allgather and Allgatherv in place: each rank's block is already in
     * place; the send count and type must be ignored. */
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            big[r * N + i] = r == rank ? value(rank, PH_ALLGATHER_INPLACE, i) : -1;
    MPI_Allgather(MPI_IN_PLACE, 5, MPI_DOUBLE, big, N, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++)
            see(&t, PH_ALLGATHER_INPLACE, r * N + i, big[r * N + i],
                value(r, PH_ALLGATHER_INPLACE, i));

    for (int r = 0, off = 0; r < size; r++) {
        counts[r] = vcount(r, 1);
        displs[r] = off;
        for (int i = 0; i < counts[r]; i++)
            big[off + i] = r == rank ? value(rank, PH_ALLGATHERV_INPLACE, i) : -1;
        off += counts[r];
    }
    MPI_Allgatherv(MPI_IN_PLACE, 5, MPI_DOUBLE, big, counts, displs, MPI_INT, comm);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < counts[r]; i++)
            see(&t, PH_ALLGATHERV_INPLACE, displs[r] + i, big[displs[r] + i],
                value(r, PH_ALLGATHERV_INPLACE, i));

    /* Alltoall: block d of rank r's buffer goes to rank d. */
    const int blk = 2;
    for (int d = 0; d < size; d++)
        for (int i = 0; i < blk; i++)
            big[d * blk + i] = value(rank, PH_ALLTOALL, d * blk + i);
    MPI_Alltoall(big, blk, MPI_INT, big2, blk, MPI_INT, comm);
    for (int s = 0; s < size; s++)
        for (int i = 0; i < blk; i++)
            see(&t, PH_ALLTOALL, s * blk + i, big2[s * blk + i],
                value(s, PH_ALLTOALL, rank * blk + i));

    /* Alltoallv: rank r sends vcount(r, d) elements to rank d. */
    for (int d = 0, off = 0, roff = 0; d < size; d++) {
        counts[d] = vcount(rank, d);
        displs[d] = off;
        for (int i = 0; i < counts[d]; i++)
            big[off + i] = value(rank, PH_ALLTOALLV, d * 3 + i);
        off += counts[d];
        rcounts[d] = vcount(d, rank);
        rdispls[d] = roff;
        roff += rcounts[d];
    }
    MPI_Alltoallv(big, counts, displs, MPI_INT, big2, rcounts, rdispls, MPI_INT, comm);
    for (int s = 0; s < size; s++)
        for (int i = 0; i < rcounts[s]; i++)
            see(&t, PH_ALLTOALLV, rdispls[s] + i, big2[rdispls[s] + i],
                value(s, PH_ALLTOALLV, rank * 3 + i));

    /* Alltoall and Alltoallv in place: the data is sent from, and replaced
     * in, the receive buffer; the send arguments must be ignored. */
    for (int d = 0; d < size; d++)
        for (int i = 0; i < blk; i++)
            big2[d * blk + i] = value(rank, PH_ALLTOALL_INPLACE, d * blk + i);
    MPI_Alltoall(MPI_IN_PLACE, 5, MPI_DOUBLE, big2, blk, MPI_INT, comm);
    for (int s = 0; s < size; s++)
        for (int i = 0; i < blk; i++)
            see(&t, PH_ALLTOALL_INPLACE, s * blk + i, big2[s * blk + i],
                value(s, PH_ALLTOALL_INPLACE, rank * blk + i));

    for (int d = 0, roff = 0; d < size; d++) {
        rcounts[d] = vsym(rank, d);
        rdispls[d] = roff;
        for (int i = 0; i < rcounts[d]; i++)
            big2[roff + i] = value(rank, PH_ALLTOALLV_INPLACE, d * 3 + i);
        roff += rcounts[d];
    }
    MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DOUBLE, big2, rcounts, rdispls, MPI_INT, comm);
    for (int s = 0; s < size; s++)
        for (int i = 0; i < rcounts[s]; i++)
            see(&t, PH_ALLTOALLV_INPLACE, rdispls[s] + i, big2[rdispls[s] + i],
                value(s, PH_ALLTOALLV_INPLACE, rank * 3 + i));

    /* Reduce_scatter_block: rank r gets the sum of everyone's block r. */
    for (int d = 0; d < size; d++)
        for (int i = 0; i < blk; i++)
            big[d * blk + i] = value(rank, PH_REDUCE_SCATTER_BLOCK, d * blk + i);
    MPI_Reduce_scatter_block(big, b, blk, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < blk; i++)
        see(&t, PH_REDUCE_SCATTER_BLOCK, i, b[i],
            value_sum(size, PH_REDUCE_SCATTER_BLOCK, rank * blk + i));

    /* Reduce_scatter: rank r gets the sum of everyone's block r, which has
     * r % 3 + 1 elements. */
    for (int d = 0, off = 0; d < size; d++) {
        counts[d] = d % 3 + 1;
        for (int i = 0; i < counts[d]; i++)
            big[off + i] = value(rank, PH_REDUCE_SCATTER, d * 3 + i);
        off += counts[d];
    }
    MPI_Reduce_scatter(big, b, counts, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < counts[rank]; i++)
        see(&t, PH_REDUCE_SCATTER, i, b[i], value_sum(size, PH_REDUCE_SCATTER, rank * 3 + i));

    /* Scan (inclusive) and Exscan (exclusive; undefined on rank 0). */
    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_SCAN, i);
    MPI_Scan(a, b, N, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < N; i++)
        see(&t, PH_SCAN, i, b[i], value_sum(rank + 1, PH_SCAN, i));

    for (int i = 0; i < N; i++)
        a[i] = value(rank, PH_EXSCAN, i);
    MPI_Exscan(a, b, N, MPI_INT, MPI_SUM, comm);
    if (rank > 0)
        for (int i = 0; i < N; i++)
            see(&t, PH_EXSCAN, i, b[i], value_sum(rank, PH_EXSCAN, i));

    /* Nonblocking collectives, each completed with MPI_Wait. */
    {
        MPI_Request req;
        MPI_Ibarrier(comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);

        for (int i = 0; i < N; i++)
            a[i] = rank == 0 ? value(0, PH_IBCAST, i) : -1;
        MPI_Ibcast(a, N, MPI_INT, 0, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            see(&t, PH_IBCAST, i, a[i], value(0, PH_IBCAST, i));

        for (int i = 0; i < N; i++)
            a[i] = value(rank, PH_IALLREDUCE, i);
        MPI_Iallreduce(a, b, N, MPI_INT, MPI_SUM, comm, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            see(&t, PH_IALLREDUCE, i, b[i], value_sum(size, PH_IALLREDUCE, i));
    }

    if (rank == 0)
        printf("collectives np=%d\n", size);
    int failed = tally_report(&t, NPHASE, phase_name, rank, comm);

    free(a);
    free(b);
    free(big);
    free(big2);
    free(counts);
    free(displs);
    free(rcounts);
    free(rdispls);
    MPI_Finalize();
    return failed;
}
