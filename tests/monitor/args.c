/* Prints, on rank 0, the arguments the program sees after MPI_Init (or
 * MPI_Init_thread with MPI_THREAD_FUNNELED when MW_ARGS_THREAD is set):
 * mpiwatch's flags must be gone; then the thread level it was given and
 * the one MPI_Query_thread reports.
 * The line is printed with one call: the launcher may pass the ranks' output
 * through unbuffered, and another rank's endpoint line must not land inside
 * it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, provided = -1, query = -1;
    if (getenv("MW_ARGS_THREAD") != NULL)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Query_thread(&query);
    if (rank == 0) {
        char line[4096];
        size_t n = (size_t)snprintf(line, sizeof line, "argc %d:", argc);
        for (int i = 1; i < argc && n < sizeof line; i++)
            n += (size_t)snprintf(line + n, sizeof line - n, " [%s]", argv[i]);
        if (n < sizeof line)
            snprintf(line + n, sizeof line - n, "%s",
                     argv[argc] == NULL ? "" : " (argv[argc] is not NULL)");
        printf("%s\nlevel provided %d query %d\n", line, provided, query);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
