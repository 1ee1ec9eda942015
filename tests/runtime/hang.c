/* hang.c: a hung job. Rank 0 waits in MPI_Recv for a message nobody sends;
 * the others wait in MPI_Barrier for rank 0, which never comes. Each rank
 * first makes 10 MPI_Allreduce calls; rank 0 prints "hung" once all are
 * done. Ended from outside (a signal, or the launcher's). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, one = 1, sum, value;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 10; i++)
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("hung\n");
        fflush(stdout);
        MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
