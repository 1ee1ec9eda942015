/* A ring on every rank of MPI_COMM_WORLD, for the live monitor's tests:
 * ITERATIONS times, each rank sends an int to the next rank and receives
 * one from the previous one, with an MPI_Allreduce every 100 iterations on
 * a duplicate of MPI_COMM_WORLD (so that events name two communicators);
 * SLEEP_US microseconds between iterations make a long run. Rank 0 prints
 * the result, which does not depend on mpiwatch.
 *
 * With --until FILE the ring goes on after ITERATIONS, in rounds of 100
 * iterations that leave the result alone, until FILE exists: a test that
 * checks a running job ends it when its checks are done, however slow a busy
 * machine made them, instead of racing a fixed length of run. Rank 0 then
 * says on stderr how many rounds it made; --rounds K makes exactly K, so that
 * the same job can be run again. With --late-finalize S the last rank sleeps S
 * seconds before MPI_Finalize, after the others entered theirs. With
 * --local N each iteration also makes N MPI_Comm_rank calls: a stream of
 * events that fills the monitor's buffers in a second whatever the ring's
 * pace (on an oversubscribed machine a ring step waits for its neighbours).
 *
 *     ring [ITERATIONS [SLEEP_US]] [--until FILE | --rounds K] [--late-finalize S]
 *          [--local N]
 *     (defaults 1000 and 0) */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long local_calls;   /* --local */

/* One iteration: an int to the next rank, one from the previous, the local
 * calls, then the pause. */
static int step(int value, int next, int prev, long sleep_us)
{
    int in = -1, me;
    for (long i = 0; i < local_calls; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Sendrecv(&value, 1, MPI_INT, next, 7, &in, 1, MPI_INT, prev, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (sleep_us > 0) {
        struct timespec ts = {sleep_us / 1000000, (sleep_us % 1000000) * 1000};
        nanosleep(&ts, NULL);
    }
    return in;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *until = NULL;
    long rounds = 0, late = 0;
    int nargs = 0;
    char *args[2] = {NULL, NULL};
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--until") == 0 && a + 1 < argc)
            until = argv[++a];
        else if (strcmp(argv[a], "--rounds") == 0 && a + 1 < argc)
            rounds = atol(argv[++a]);
        else if (strcmp(argv[a], "--late-finalize") == 0 && a + 1 < argc)
            late = atol(argv[++a]);
        else if (strcmp(argv[a], "--local") == 0 && a + 1 < argc)
            local_calls = atol(argv[++a]);
        else if (nargs < 2 && argv[a][0] >= '0' && argv[a][0] <= '9')
            args[nargs++] = argv[a];
    }
    long iterations = args[0] ? atol(args[0]) : 1000;
    long sleep_us = args[1] ? atol(args[1]) : 0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long long total = 0;
    MPI_Comm work;
    MPI_Comm_dup(MPI_COMM_WORLD, &work);
    for (long i = 0; i < iterations; i++) {
        total += step(rank + (int)i, next, prev, sleep_us);
        if (i % 100 == 99) {
            long long all = 0;
            MPI_Allreduce(&total, &all, 1, MPI_LONG_LONG, MPI_SUM, work);
            total = all % 1000003;
        }
    }
    /* Rank 0 looks for the file after every round; all ranks stop together. */
    long done = 0;
    for (int go = until != NULL || rounds > 0; go;) {
        for (int i = 0; i < 100; i++)
            step(rank, next, prev, sleep_us);
        done++;
        if (until != NULL)
            go = rank == 0 ? access(until, F_OK) != 0 : 0;
        else
            go = done < rounds;
        MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MAX, work);
    }
    if (until != NULL && rank == 0)
        fprintf(stderr, "ring: %ld rounds of 100 after the %ld iterations\n", done, iterations);
    MPI_Comm_free(&work);
    long long all = 0;
    MPI_Reduce(&total, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring: %d ranks, %ld iterations, checksum %lld\n", size, iterations, all);
    if (late > 0 && rank == size - 1) {
        struct timespec ts = {late, 0};
        nanosleep(&ts, NULL);
    }
    MPI_Finalize();
    return 0;
}
