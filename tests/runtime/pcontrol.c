/* pcontrol.c: fixed sequences of calls around MPI_Pcontrol, for the
 * configuration and report-file tests. Rank 0 prints one line per run.
 *
 *   pcontrol level    Comm_rank, Comm_size, 3 Barrier, 2 Allreduce, then
 *                     Pcontrol(1), then 7 Barrier (level.expect,
 *                     level0.expect)
 *   pcontrol toggle   profiling switched off and on twice with Pcontrol(0)
 *                     and Pcontrol(1) (toggle.expect)
 *
 * Pcontrol(2) is not used: it writes snapshot files. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void barriers(int n)
{
    for (int i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_WORLD);
}

static void allreduces(int n, int *errors, int size)
{
    for (int i = 0; i < n; i++) {
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        *errors += sum != size;
    }
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    const char *mode = argc > 1 ? argv[1] : "level";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(mode, "toggle") == 0) {
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        MPI_Pcontrol(0);          /* counted: profiling was on when it was entered */
        barriers(3);              /* off */
        MPI_Pcontrol(1);          /* not counted: entered while off */
        barriers(5);              /* on */
        allreduces(1, &errors, size);
        MPI_Pcontrol(0);          /* counted */
        allreduces(2, &errors, size);
        barriers(2);              /* off */
        MPI_Pcontrol(1);          /* not counted */
        barriers(4);              /* on */
    } else {
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        barriers(3);
        allreduces(2, &errors, size);
        MPI_Pcontrol(1);
        barriers(7);
    }
    if (rank == 0)
        printf("pcontrol %s: errors %d\n", mode, errors);
    MPI_Finalize();
    return errors != 0;
}
