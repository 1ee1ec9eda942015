/* For check-install-hooks.sh: rank 0 sends rank 1 three messages with tag 5
 * and one with tag 9 (MPI_Send), then both meet at a barrier. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, value = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 4; i++) {
        int tag = i < 3 ? 5 : 9;
        if (rank == 0)
            MPI_Send(&i, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        printf("last %d\n", value);
    MPI_Finalize();
    return 0;
}
