/* A job that hangs on purpose, for the live monitor's hang diagnosis.
 *
 *   hang recv    rank 1 waits in MPI_Recv for a message from rank 3 with tag 99
 *                that never comes; every other rank waits in MPI_Barrier
 *   hang ssend   ranks 0 and 1 each MPI_Ssend to the other (a send-send cycle);
 *                other ranks wait in MPI_Barrier
 *   hang slow    like recv, but on a duplicate of MPI_COMM_WORLD with a
 *                translated peer (rank 1 receives from the last rank)
 *
 * Each rank prints "rank R hangs" just before, so a test knows when the hang
 * began. The test ends the job (the launcher's time limit, or a signal). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, value = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "recv";
    if (size < 4 && strcmp(mode, "ssend") != 0) {
        if (rank == 0)
            fprintf(stderr, "hang %s: needs at least 4 ranks\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Some traffic first: the hung calls come after ordinary ones. */
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d hangs\n", rank);
    fflush(stdout);
    if (strcmp(mode, "ssend") == 0 && rank < 2) {
        MPI_Ssend(&value, 1, MPI_INT, 1 - rank, 7, MPI_COMM_WORLD);
    } else if (strcmp(mode, "slow") == 0) {
        MPI_Comm dup, reversed;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        /* Ranks in reverse order: rank r of reversed is world rank size-1-r. */
        MPI_Comm_split(dup, 0, size - 1 - rank, &reversed);
        if (rank == 1)
            MPI_Recv(&value, 1, MPI_INT, 0, 99, reversed, MPI_STATUS_IGNORE);
        else
            MPI_Barrier(reversed);
    } else if (strcmp(mode, "ssend") != 0 && rank == 1) {
        MPI_Recv(&value, 1, MPI_INT, 3, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
