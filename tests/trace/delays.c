/* Injected delays for the wait-state analysis (tests/trace/check-wait-states.sh):
 *   delays PATTERN MS
 * runs 10 iterations on 4 or more ranks; in each, every rank calls
 * MPI_Comm_rank (the start of its work), the delaying rank sleeps MS
 * milliseconds, then the pattern's call:
 *   late-sender    rank 0 sleeps, then MPI_Send to 1; rank 1 waits in MPI_Recv
 *   late-receiver  rank 1 sleeps, then MPI_Recv; rank 0 waits in MPI_Ssend
 *   nxn            rank 2 sleeps, then MPI_Allreduce; the others wait in it
 *   bcast          rank 0, the root, sleeps, then MPI_Bcast; the others wait
 *   barrier        rank 3 sleeps, then MPI_Barrier; the others wait
 *   balanced       no rank sleeps: an MPI_Allreduce of 8 MB
 * The delaying rank prints "delay RANK SECONDS LINE PREV": what it slept in
 * all (measured: a loaded machine oversleeps), the line of its delayed call
 * and the line of the MPI call before it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Sleep, and say for how long (timed without MPI_Wtime, which the trace
 * would record as the MPI call before the delayed one). */
static double nap(double seconds)
{
    struct timespec t0, t1, ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    nanosleep(&ts, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || size < 4) {
        if (argc != 3)
            fprintf(stderr, "usage: delays PATTERN MS\n");
        else
            fprintf(stderr, "delays: needs 4 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *pattern = argv[1];
    double d = atof(argv[2]) / 1e3, slept = 0;
    int delayer = strcmp(pattern, "late-receiver") == 0 ? 1
                  : strcmp(pattern, "nxn") == 0         ? 2
                  : strcmp(pattern, "barrier") == 0     ? 3
                                                        : 0;
    int line = 0, prev = 0, value = 1, total;
    static double big[1 << 20], sum[1 << 20];
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 10; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank); prev = __LINE__;
        if (rank == delayer && strcmp(pattern, "balanced") != 0)
            slept += nap(d);
        if (strcmp(pattern, "late-sender") == 0) {
            if (rank == 0) {
                MPI_Send(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD); line = __LINE__;
            } else if (rank == 1) {
                MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else if (strcmp(pattern, "late-receiver") == 0) {
            if (rank == 0) {
                MPI_Ssend(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            } else if (rank == 1) {
                MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); line = __LINE__;
            }
        } else if (strcmp(pattern, "nxn") == 0) {
            MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); line = __LINE__;
        } else if (strcmp(pattern, "bcast") == 0) {
            MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD); line = __LINE__;
        } else if (strcmp(pattern, "barrier") == 0) {
            MPI_Barrier(MPI_COMM_WORLD); line = __LINE__;
        } else if (strcmp(pattern, "balanced") == 0) {
            MPI_Allreduce(big, sum, 1 << 20, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); line = __LINE__;
        }
    }
    if (rank == delayer)
        printf("delay %d %.6f %d %d\n", rank, slept, line, prev);
    MPI_Finalize();
    return 0;
}
