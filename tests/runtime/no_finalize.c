/* no_finalize.c: initialises MPI, makes a few calls and returns from main
 * without calling MPI_Finalize. Rank 0 prints "done" before the barrier, so
 * the line is in the launcher's pipe before any rank can exit: MPICH's
 * launcher may kill the other ranks as soon as one exits without
 * MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        printf("done\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}
