/* A ring on every rank of MPI_COMM_WORLD, for the live monitor's tests:
 * ITERATIONS times, each rank sends an int to the next rank and receives
 * one from the previous one, with an MPI_Allreduce every 100 iterations on
 * a duplicate of MPI_COMM_WORLD (so that events name two communicators);
 * SLEEP_US microseconds between iterations make a long run. Rank 0 prints
 * the result, which does not depend on mpiwatch.
 *
 *     ring [ITERATIONS [SLEEP_US]]     (defaults 1000 and 0) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long iterations = argc > 1 ? atol(argv[1]) : 1000;
    long sleep_us = argc > 2 ? atol(argv[2]) : 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long long total = 0;
    MPI_Comm work;
    MPI_Comm_dup(MPI_COMM_WORLD, &work);
    for (long i = 0; i < iterations; i++) {
        int out = rank + (int)i, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, next, 7, &in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        total += in;
        if (i % 100 == 99) {
            long long all = 0;
            MPI_Allreduce(&total, &all, 1, MPI_LONG_LONG, MPI_SUM, work);
            total = all % 1000003;
        }
        if (sleep_us > 0) {
            struct timespec ts = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
            nanosleep(&ts, NULL);
        }
    }
    MPI_Comm_free(&work);
    long long all = 0;
    MPI_Reduce(&total, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring: %d ranks, %ld iterations, checksum %lld\n", size, iterations, all);
    MPI_Finalize();
    return 0;
}
