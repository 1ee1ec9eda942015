/* Prints, on rank 0, the arguments the program sees after MPI_Init (or
 * MPI_Init_thread when MW_ARGS_THREAD is set): mpiwatch's flags must be gone. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, provided;
    if (getenv("MW_ARGS_THREAD") != NULL)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("argc %d:", argc);
        for (int i = 1; i < argc; i++)
            printf(" [%s]", argv[i]);
        printf("%s\n", argv[argc] == NULL ? "" : " (argv[argc] is not NULL)");
    }
    MPI_Finalize();
    return 0;
}
