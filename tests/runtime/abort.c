/* abort.c: rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) while rank 0 waits in
 * an MPI_Recv that nothing will match; the job must end with a non-zero
 * status instead of hanging. Needs at least 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, value = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "abort: needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        usleep(200000);   /* let rank 0 get into MPI_Recv */
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else if (rank == 0) {
        MPI_Recv(&value, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    printf("rank %d: not aborted\n", rank);
    MPI_Finalize();
    return 0;
}
