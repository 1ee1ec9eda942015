/* segv.c: a rank dying of SIGSEGV. Every rank calls MPI_Allreduce 100
 * times; then rank 1 writes through a null pointer while the others wait in
 * MPI_Barrier, until the launcher ends them. Rank 0 prints "crashing" first. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, one = 1, sum;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 100; i++)
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("crashing\n");
        fflush(stdout);
    }
    if (rank == 1) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
