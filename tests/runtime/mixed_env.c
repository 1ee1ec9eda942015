/* mixed_env.c: the ranks of one job started with different MPIWATCH_*
 * values, as an MPMD launch can give them: before MPI_Init each odd rank
 * (its rank from the launcher's environment: Open MPI's OMPI_COMM_WORLD_RANK,
 * MPICH's PMI_RANK) sets the variables named on the command line, NAME=VALUE
 * each. Then a barrier, an allreduce checked, and a line per rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (r == NULL)
        r = getenv("PMI_RANK");
    if (r != NULL && atoi(r) % 2 == 1) {
        for (int i = 1; i < argc; i++) {
            char *eq = strchr(argv[i], '=');
            if (eq != NULL) {
                *eq = '\0';
                setenv(argv[i], eq + 1, 1);
            }
        }
    }
    int rank, size, one = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d: sum %s\n", rank, sum == size ? "right" : "wrong");
    MPI_Finalize();
    return 0;
}
