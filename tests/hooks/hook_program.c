/* Exercises the hook examples: one Isend per rank to its right neighbour
 * (tag 7, 1024 ints), 2 barriers on MPI_COMM_WORLD and 3 allreduces on a
 * duplicate of it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, out[1024], in[1024], sum = 0;
    MPI_Comm dup;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 1024; i++)
        out[i] = rank + i;
    MPI_Isend(out, 1024, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &req);
    MPI_Recv(in, 1024, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    for (int i = 0; i < 3; i++)
        MPI_Allreduce(&in[0], &sum, 1, MPI_INT, MPI_SUM, dup);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    if (rank == 0)
        printf("sum %d\n", sum);
    MPI_Finalize();
    return 0;
}
