/* traffic.c: the C twin of traffic_mpif.f90, traffic_usempi.f90 and
 * traffic_f08.f90. All four make the same MPI calls with the same counts,
 * types, peers and tags, so that their JSON reports must agree exactly on
 * calls, bytes, message sizes and rank pairs (compare_traffic.py).
 * Covers: blocking, non-blocking and persistent point-to-point (with
 * MPI_ANY_SOURCE and a status, MPI_STATUS_IGNORE, MPI_PROC_NULL), a
 * send-receive, collectives with MPI_IN_PLACE and v/w variants, one-sided
 * and MPI-IO. Keep the four in step. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, np, left, right, i, errors = 0;
    int a[8], b[8], c[64], counts[64], displs[64], rcounts[64], rdispls[64];
    int wcounts[64], wdispls[64];
    MPI_Datatype wtypes[64];
    double d[2];
    MPI_Request reqs[4];
    MPI_Status status;
    MPI_Win win;
    MPI_File fh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    left = (rank - 1 + np) % np;
    right = (rank + 1) % np;
    for (i = 0; i < 8; i++)
        a[i] = rank * 10 + i;

    /* Blocking: 5 ints right, each paired with a non-blocking call (a
     * blocking send to oneself may wait forever); the receive takes any
     * source and has a status. */
    MPI_Irecv(b, 5, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send(a, 5, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Isend(a, 5, MPI_INT, right, 8, MPI_COMM_WORLD, &reqs[0]);
    MPI_Recv(b, 5, MPI_INT, MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &status);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    if (status.MPI_SOURCE != left || b[0] != left * 10)
        errors++;
    MPI_Send(a, 3, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD);

    /* Non-blocking: 7 ints left, 2 doubles right. */
    d[0] = rank;
    d[1] = 0.5;
    MPI_Irecv(b, 7, MPI_INT, right, 3, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(a, 7, MPI_INT, left, 3, MPI_COMM_WORLD, &reqs[1]);
    MPI_Irecv(c, 2, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(d, 2, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &reqs[3]);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    if (b[6] != right * 10 + 6)
        errors++;

    /* Send-receive: 4 ints right, 6 ints from left (4 arrive), with a status
     * and without (the Fortran MPI_STATUS_IGNORE must be recognised). */
    MPI_Sendrecv(a, 4, MPI_INT, right, 5, b, 6, MPI_INT, left, 5, MPI_COMM_WORLD, &status);
    MPI_Sendrecv(a, 4, MPI_INT, right, 9, b, 6, MPI_INT, left, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(a, 1, MPI_INT, MPI_PROC_NULL, 6, b, 1, MPI_INT, MPI_PROC_NULL, 6,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);

    /* Persistent: 6 ints right, started three times. */
    MPI_Recv_init(b, 6, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send_init(a, 6, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[1]);
    for (i = 0; i < 2; i++) {
        MPI_Startall(2, reqs);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    }
    MPI_Start(&reqs[0]);
    MPI_Start(&reqs[1]);
    MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
    MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);

    /* Collectives. */
    MPI_Bcast(a, 4, MPI_INT, 0, MPI_COMM_WORLD);
    d[0] = 1.0;
    d[1] = rank;
    MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (d[0] != np)
        errors++;
    MPI_Reduce(a, b, 3, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    for (i = 0; i < np; i++) {
        counts[i] = i + 1;
        displs[i] = i * 8;
    }
    MPI_Gatherv(a, rank + 1, MPI_INT, c, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allgatherv(a, rank + 1, MPI_INT, c, counts, displs, MPI_INT, MPI_COMM_WORLD);
    c[rank] = rank;
    MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, c, 1, MPI_INT, MPI_COMM_WORLD);
    for (i = 0; i < np; i++) {
        counts[i] = 1;
        displs[i] = i;
        rcounts[i] = 1;
        rdispls[i] = i;
        wcounts[i] = 2;
        wdispls[i] = i * 8;
        wtypes[i] = MPI_INT;
    }
    MPI_Alltoallv(a, counts, displs, MPI_INT, c, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallw(c, wcounts, wdispls, wtypes, b, wcounts, wdispls, wtypes, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(c, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    /* One-sided: 2 ints put right, 1 int got from left. */
    MPI_Win_create(c, 64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(a, 2, MPI_INT, right, 0, 2, MPI_INT, win);
    MPI_Get(b, 1, MPI_INT, left, 4, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    /* MPI-IO: 5 ints written and read back at the rank's own offset. */
    MPI_File_open(MPI_COMM_WORLD, "mw_traffic.dat", MPI_MODE_CREATE | MPI_MODE_RDWR,
                  MPI_INFO_NULL, &fh);
    MPI_File_write_at(fh, (MPI_Offset)rank * 20, a, 5, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, (MPI_Offset)rank * 20, b, 5, MPI_INT, &status);
    MPI_File_close(&fh);
    if (b[4] != a[4])
        errors++;

    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d errors %d\n", np, errors);
    MPI_Finalize();
    return 0;
}
