/* ring: pass a token around the ranks, then agree on a checksum.
 * A small MPI program to try mpiwatch on:
 *     mpicc -o ring examples/ring.c
 *     mpirun -np 4 -x LD_PRELOAD=/usr/local/lib/libmpiwatch.so ./ring    (Open MPI)
 *     LD_PRELOAD=/usr/local/lib/libmpiwatch.so mpirun -n 4 ./ring          (MPICH) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, laps = argc > 1 ? atoi(argv[1]) : 100;
    long token = 0, checksum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0) {
            token = lap;
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
        }
    }
    MPI_Allreduce(&token, &checksum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring: %d ranks, %d laps, checksum %ld\n", size, laps, checksum);
    MPI_Finalize();
    return 0;
}
