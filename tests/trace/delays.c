/* Injected delays for the wait-state analysis (tests/trace/check-wait-states.sh):
 *   delays PATTERN MS
 * runs 10 iterations on 4 or more ranks (balanced: 2 or more); in each, every rank calls
 * MPI_Comm_rank (the start of its work), the delaying rank sleeps MS
 * milliseconds, then the pattern's call:
 *   late-sender    rank 0 sleeps, then MPI_Send to 1; rank 1 waits in MPI_Recv
 *   late-sender-irecv  the same, but rank 1 posts an MPI_Irecv from
 *                  MPI_ANY_SOURCE and waits in the MPI_Wait that completes it
 *                  (with a status: the trace learns the source from it)
 *   late-sender-test  the same, but rank 1 polls with MPI_Test until its
 *                  MPI_Irecv completes (the trace folds the polls)
 *   late-sender-split  rank 0 sleeps, then MPI_Send to rank 2 on the even
 *                  ranks' communicator, numbered backwards (rank 2 is its
 *                  0, rank 0 its 1); rank 2 waits in MPI_Recv
 *   late-sender-sendrecv  a ring: each rank's MPI_Sendrecv sends to the
 *                  next rank and receives from MPI_ANY_SOURCE (the status
 *                  names the previous rank); rank 0 sleeps, rank 1 waits in
 *                  its MPI_Sendrecv's receive (and the lateness goes round:
 *                  rank 2 waits for rank 1 from the next iteration on)
 *   late-receiver  rank 1 sleeps, then MPI_Recv; rank 0 waits in MPI_Ssend
 *   late-receiver-issend  the same, but rank 0 sends with MPI_Issend and
 *                  waits in the MPI_Wait that completes it
 *   nxn            rank 2 sleeps, then MPI_Allreduce; the others wait in it
 *   bcast          rank 0, the root, sleeps, then MPI_Bcast; the others wait
 *   barrier        rank 3 sleeps, then MPI_Barrier; the others wait
 *   reduce         rank 3 sleeps, then MPI_Reduce to 0; the root 0 waits
 *   balanced       no rank sleeps: an MPI_Allreduce of 8 MB; rank 0 also prints
 *                  "balanced WAITED MPI": by the program's own clock, the time
 *                  the ranks waited in it for the last to enter, and all their
 *                  time in it (what the analysis's Wait at N x N share
 *                  measures, with or without mpiwatch)
 *   balanced-paced the same, each iteration's call at the same moment of
 *                  CLOCK_MONOTONIC on every rank (0.1 s apart): the ranks
 *                  arrive together, as on a machine with a core per rank
 * The delaying rank prints "delay RANK SLEPT LINE PREV WAITED BEHIND": what
 * it slept in all (measured: a loaded machine oversleeps), the line of its
 * delayed call, the line of the MPI call before it, the waiting the others
 * did, measured by the program itself, and how much later than the
 * delaying rank the waiting ranks began their iterations, summed. Each rank
 * notes on CLOCK_MONOTONIC (one clock for all processes of a host) when it
 * began each iteration's work (after MPI_Comm_rank), and when it entered
 * and left the delayed call; a waiting rank waited from its entry to the
 * delaying rank's (at most until it left). That is the expectation the
 * trace's analysis must meet. It differs from D x iterations x waiting
 * ranks by what the machine adds: WAITED = waiting ranks x SLEPT - BEHIND
 * (but for a waiting rank that entered after the late one), as a waiting
 * rank that got the previous message late begins late itself. */
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

/* Sleep until t on CLOCK_MONOTONIC. */
static void until(double t)
{
    struct timespec ts = {(time_t)t, (long)((t - (time_t)t) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
        ;
}

enum { ITERATIONS = 10 };
/* balanced-paced's period, seconds: longer than an 8 MB MPI_Allreduce */
#define PACE 0.1

/* The waiting rank w did in the delayed calls: from its entry to the late
 * rank's, at most until it left (times[rank][i] = {began, enter, leave}). */
static double waited(double (*times)[ITERATIONS][3], int late, int w)
{
    double sum = 0;
    for (int i = 0; i < ITERATIONS; i++) {
        double until = times[late][i][1] < times[w][i][2] ? times[late][i][1] : times[w][i][2];
        sum += until > times[w][i][1] ? until - times[w][i][1] : 0;
    }
    return sum;
}

/* Balanced: every rank's waiting in each iteration's call for the last to
 * enter (*waiting), and all their time in it (*in_call). */
static void waited_for_last(double (*times)[ITERATIONS][3], int size, double *waiting,
                            double *in_call)
{
    *waiting = *in_call = 0;
    for (int i = 0; i < ITERATIONS; i++) {
        double last = times[0][i][1];
        for (int w = 1; w < size; w++)
            last = times[w][i][1] > last ? times[w][i][1] : last;
        for (int w = 0; w < size; w++) {
            double until = last < times[w][i][2] ? last : times[w][i][2];
            *waiting += until - times[w][i][1];
            *in_call += times[w][i][2] - times[w][i][1];
        }
    }
}

/* How much later than the late rank rank w began its iterations' work. */
static double behind(double (*times)[ITERATIONS][3], int late, int w)
{
    double sum = 0;
    for (int i = 0; i < ITERATIONS; i++)
        sum += times[w][i][0] - times[late][i][0];
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* balanced runs on 2 ranks too: waiting without oversubscription */
    int least = argc == 3 && strncmp(argv[1], "balanced", 8) == 0 ? 2 : 4;
    if (argc != 3 || size < least) {
        if (argc != 3)
            fprintf(stderr, "usage: delays PATTERN MS\n");
        else
            fprintf(stderr, "delays: %s needs %d ranks or more\n", argv[1], least);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *pattern = argv[1];
    double d = atof(argv[2]) / 1e3, slept = 0;
    int delayer = strncmp(pattern, "late-receiver", 13) == 0 ? 1
                  : strcmp(pattern, "nxn") == 0         ? 2
                  : strcmp(pattern, "barrier") == 0     ? 3
                  : strcmp(pattern, "reduce") == 0      ? 3
                                                        : 0;
    int line = 0, prev = 0, value = 1, total;
    static double big[1 << 20], sum[1 << 20];
    double mine[ITERATIONS][3] = {{0}};
    MPI_Comm even = MPI_COMM_NULL;   /* late-sender-split's */
    if (strcmp(pattern, "late-sender-split") == 0) {
        int me;
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        MPI_Comm_split(MPI_COMM_WORLD, me % 2 == 0 ? 0 : MPI_UNDEFINED, -me, &even);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* balanced-paced: iteration i's call at start + i x PACE on every rank */
    int paced = strcmp(pattern, "balanced-paced") == 0;
    double start = now() + PACE;
    if (paced)
        MPI_Bcast(&start, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < ITERATIONS; i++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank); prev = __LINE__;
        mine[i][0] = now();
        if (paced)
            until(start + i * PACE);
        else if (rank == delayer && strncmp(pattern, "balanced", 8) != 0)
            slept += nap(d);
        mine[i][1] = now();
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
        } else if (strcmp(pattern, "late-sender-split") == 0) {
            if (rank == 0) {
                MPI_Send(&value, 1, MPI_INT, 0, 5, even); line = __LINE__;
            } else if (rank == 2) {
                MPI_Recv(&value, 1, MPI_INT, 1, 5, even, MPI_STATUS_IGNORE);
            }
        } else if (strcmp(pattern, "late-sender-test") == 0) {
            if (rank == 0) {
                MPI_Send(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD); line = __LINE__;
            } else if (rank == 1) {
                MPI_Request req;
                int done = 0;
                MPI_Irecv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &req);
                while (!done)
                    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
            }
        } else if (strcmp(pattern, "late-sender-sendrecv") == 0) {
            int out = value, next = (rank + 1) % size;
            MPI_Status status;
            MPI_Sendrecv(&out, 1, MPI_INT, next, 5, &value, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &status); line = __LINE__;
        } else if (strcmp(pattern, "late-receiver") == 0) {
            if (rank == 0) {
                MPI_Ssend(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            } else if (rank == 1) {
                MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); line = __LINE__;
            }
        } else if (strcmp(pattern, "late-receiver-issend") == 0) {
            if (rank == 0) {
                MPI_Request req;
                MPI_Issend(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &req);
                MPI_Wait(&req, MPI_STATUS_IGNORE);
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
        } else if (strncmp(pattern, "balanced", 8) == 0) {
            MPI_Allreduce(big, sum, 1 << 20, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); line = __LINE__;
        }
        mine[i][2] = now();
    }
    double (*times)[ITERATIONS][3] = malloc((size_t)size * sizeof *times);
    MPI_Gather(mine, 3 * ITERATIONS, MPI_DOUBLE, times, 3 * ITERATIONS, MPI_DOUBLE, delayer,
               MPI_COMM_WORLD);
    if (rank == delayer) {
        /* who waits: the receiver for a late sender, the sender for a late
         * receiver, the root for a late contributor, every other rank in
         * the other collectives */
        int only = strcmp(pattern, "late-sender-split") == 0 ? 2
                   : strncmp(pattern, "late-sender", 11) == 0 ? 1
                   : strncmp(pattern, "late-receiver", 13) == 0 ? 0
                   : strcmp(pattern, "reduce") == 0        ? 0
                                                           : -1;
        double sum = 0, late = 0;
        for (int w = 0; w < size; w++)
            if (w != delayer && (only < 0 || w == only)) {
                sum += waited(times, delayer, w);
                late += behind(times, delayer, w);
            }
        printf("delay %d %.6f %d %d %.6f %.6f\n", rank, slept, line, prev, sum, late);
        if (strncmp(pattern, "balanced", 8) == 0) {
            double waiting, in_call;
            waited_for_last(times, size, &waiting, &in_call);
            printf("balanced %.6f %.6f\n", waiting, in_call);
        }
    }
    free(times);
    if (even != MPI_COMM_NULL)
        MPI_Comm_free(&even);
    MPI_Finalize();
    return 0;
}
