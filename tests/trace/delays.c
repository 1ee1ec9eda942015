/* Injected delays for the wait-state analysis (tests/trace/check-wait-states.sh):
 *   delays PATTERN MS
 * runs 10 iterations on 4 or more ranks; in each, every rank calls
 * MPI_Comm_rank (the start of its work), the delaying rank sleeps MS
 * milliseconds, then the pattern's call:
 *   late-sender    rank 0 sleeps, then MPI_Send to 1; rank 1 waits in MPI_Recv
 *   late-sender-irecv  the same, but rank 1 posts an MPI_Irecv from
 *                  MPI_ANY_SOURCE and waits in the MPI_Wait that completes it
 *                  (with a status: the trace learns the source from it)
 *   late-receiver  rank 1 sleeps, then MPI_Recv; rank 0 waits in MPI_Ssend
 *   nxn            rank 2 sleeps, then MPI_Allreduce; the others wait in it
 *   bcast          rank 0, the root, sleeps, then MPI_Bcast; the others wait
 *   barrier        rank 3 sleeps, then MPI_Barrier; the others wait
 *   reduce         rank 3 sleeps, then MPI_Reduce to 0; the root 0 waits
 *   balanced       no rank sleeps: an MPI_Allreduce of 8 MB
 * The delaying rank prints "delay RANK SLEPT LINE PREV WAITED": what it slept
 * in all (measured: a loaded machine oversleeps), the line of its delayed
 * call, the line of the MPI call before it, and the waiting the others did,
 * measured by the program itself: each rank notes on CLOCK_MONOTONIC (one
 * clock for all processes of a host) when it entered and left each
 * delayed call, and a waiting rank waited from its entry to the delaying
 * rank's (at most until it left). That is the expectation the trace's
 * analysis must meet: on a loaded machine the waiting ranks themselves may
 * enter late (they got the previous message late), so the sleep alone
 * overstates it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC (not MPI_Wtime, which the trace would record
 * as the MPI call before the delayed one). */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Sleep, and say for how long. */
static double nap(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    double t0 = now();
    nanosleep(&ts, NULL);
    return now() - t0;
}

enum { ITERATIONS = 10 };

/* The waiting rank w did in the delayed calls: from its entry to the late
 * rank's, at most until it left (times[rank][i] = {enter, leave}). */
static double waited(double (*times)[ITERATIONS][2], int late, int w)
{
    double sum = 0;
    for (int i = 0; i < ITERATIONS; i++) {
        double until = times[late][i][0] < times[w][i][1] ? times[late][i][0] : times[w][i][1];
        sum += until > times[w][i][0] ? until - times[w][i][0] : 0;
    }
    return sum;
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
                  : strcmp(pattern, "reduce") == 0      ? 3
                                                        : 0;
    int line = 0, prev = 0, value = 1, total;
    static double big[1 << 20], sum[1 << 20];
    double mine[ITERATIONS][2] = {{0}};
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < ITERATIONS; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank); prev = __LINE__;
        if (rank == delayer && strcmp(pattern, "balanced") != 0)
            slept += nap(d);
        mine[i][0] = now();
        if (strcmp(pattern, "late-sender") == 0) {
            if (rank == 0) {
                MPI_Send(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD); line = __LINE__;
            } else if (rank == 1) {
                MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else if (strcmp(pattern, "late-sender-irecv") == 0) {
            if (rank == 0) {
                MPI_Send(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD); line = __LINE__;
            } else if (rank == 1) {
                MPI_Request req;   /* the status names the source the trace then knows */
                MPI_Status status;
                MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &req);
                MPI_Wait(&req, &status);
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
        } else if (strcmp(pattern, "reduce") == 0) {
            MPI_Reduce(&value, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD); line = __LINE__;
        } else if (strcmp(pattern, "balanced") == 0) {
            MPI_Allreduce(big, sum, 1 << 20, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); line = __LINE__;
        }
        mine[i][1] = now();
    }
    double (*times)[ITERATIONS][2] = malloc((size_t)size * sizeof *times);
    MPI_Gather(mine, 2 * ITERATIONS, MPI_DOUBLE, times, 2 * ITERATIONS, MPI_DOUBLE, delayer,
               MPI_COMM_WORLD);
    if (rank == delayer) {
        /* who waits: the receiver for a late sender, the sender for a late
         * receiver, the root for a late contributor, every other rank in
         * the other collectives */
        double sum = 0;
        if (strncmp(pattern, "late-sender", 11) == 0)
            sum = waited(times, 0, 1);
        else if (strcmp(pattern, "late-receiver") == 0)
            sum = waited(times, 1, 0);
        else if (strcmp(pattern, "reduce") == 0)
            sum = waited(times, 3, 0);
        else
            for (int w = 0; w < size; w++)
                sum += w != delayer ? waited(times, delayer, w) : 0;
        printf("delay %d %.6f %d %d %.6f\n", rank, slept, line, prev, sum);
    }
    free(times);
    MPI_Finalize();
    return 0;
}
