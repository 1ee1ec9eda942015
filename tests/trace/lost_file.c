/* A rank whose trace file is gone by MPI_Finalize (a node's local disk
 * cleaned, say): messages on a ring, then rank 2 removes its own file,
 * found as the one "*.trace.2" in the current folder (the trace's folder
 * in check-trace-otf2.sh), and says so. Its part of the OTF2 archive
 * cannot be written; the others' must be, and the job go on. Exit 0. */
#include <glob.h>
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, token = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int step = 0; step < 10; step++) {
        if (rank == 0) {
            MPI_Send(&token, 1, MPI_INT, 1 % size, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 2) {
        glob_t found;
        if (glob("*.trace.2", 0, NULL, &found) == 0 && found.gl_pathc == 1 &&
            unlink(found.gl_pathv[0]) == 0)
            printf("rank 2 removed %s\n", found.gl_pathv[0]);
        else
            printf("rank 2 found no one trace file to remove\n");
        globfree(&found);
    }
    MPI_Finalize();
    return 0;
}
