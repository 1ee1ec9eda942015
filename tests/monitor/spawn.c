/* A job that starts another: the parent's ranks spawn CHILDREN copies of
 * this program (argument "child"), both jobs stay up SECONDS, then part.
 * With MPIWATCH_MONITOR=file:PATH in the environment the children inherit
 * it; they must publish to a file of their own (check-monitor-options.sh).
 *
 *     spawn [CHILDREN [SECONDS]]     (defaults 2 and 3) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Comm parent, children;
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_parent(&parent);
    int is_child = argc > 1 && strcmp(argv[1], "child") == 0;
    int n = !is_child && argc > 1 ? atoi(argv[1]) : 2;
    unsigned seconds = argc > 2 ? (unsigned)atoi(argv[2]) : 3;
    if (parent == MPI_COMM_NULL) {
        char *child_argv[] = {"child", NULL};
        MPI_Comm_spawn(argv[0], child_argv, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children,
                       MPI_ERRCODES_IGNORE);
        sleep(seconds);
        MPI_Barrier(children);
        MPI_Comm_disconnect(&children);
        if (rank == 0)
            printf("spawn: the parent spawned %d children\n", n);
    } else {
        sleep(seconds);
        MPI_Barrier(parent);
        MPI_Comm_disconnect(&parent);
    }
    MPI_Finalize();
    return 0;
}
