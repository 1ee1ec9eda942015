/* pcontrol: MPI_Pcontrol(0) and (1) switch profiling off and on; calls made
 * while it is off are not in the report, and a persistent request created
 * while it is off still counts its bytes at every start made while it is on.
 * Each rank sends 64 ints to its right neighbour (itself when alone). */
#include <mpi.h>
#include <stdio.h>

#define N 64

int main(int argc, char **argv)
{
    int rank, size, out[N], in[N];
    long sum = 0, total = 0;
    MPI_Request req[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    MPI_Pcontrol(0);                      /* counted: entered while on */
    MPI_Barrier(MPI_COMM_WORLD);          /* not counted: off */
    MPI_Recv_init(in, N, MPI_INT, left, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Send_init(out, N, MPI_INT, right, 5, MPI_COMM_WORLD, &req[1]);
    MPI_Pcontrol(1);                      /* not counted: entered while off */
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            out[i] = 100 * round + rank + i;
        MPI_Startall(2, req);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < N; i++)
            sum += in[i];
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pcontrol np=%d sum %ld\n", size, total);
    MPI_Finalize();
    return 0;
}
