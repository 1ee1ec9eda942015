/* A job that keeps its cores busy, to run the test suite under load
 * (bench/run-suite-loaded.sh): each rank computes and joins an
 * MPI_Allreduce in a loop until FILE exists or SECONDS have passed.
 *
 *     spin FILE SECONDS */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: spin FILE SECONDS\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double end = MPI_Wtime() + atof(argv[2]), x = 0;
    int go = 1;
    while (go) {
        for (long i = 0; i < 10000000; i++)
            x += (double)i * 1e-9;
        go = access(argv[1], F_OK) != 0 && MPI_Wtime() < end;
        MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("spin: done (%g)\n", x);
    MPI_Finalize();
    return 0;
}
