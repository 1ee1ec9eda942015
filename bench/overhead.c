/* overhead: the per-call cost of cheap MPI calls, for measuring what a
 * profiling layer (mpiwatch, LD_PRELOADed) adds to them.
 *
 * Loops (each a separate, never-inlined function, so that callgrind can
 * collect exactly the instructions inside one of them with
 * --toggle-collect=bench_loop_NAME):
 *
 *   comm_rank   MPI_Comm_rank(MPI_COMM_WORLD, &rank)
 *   test_null   MPI_Test on MPI_REQUEST_NULL
 *   iprobe      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ...) with no message pending
 *   pingpong    0-byte MPI_Send/MPI_Recv between ranks 0 and 1; the figure is
 *               the ROUND-TRIP time (4 MPI calls on the critical path)
 *   sendrecv_self  0-byte MPI_Sendrecv to oneself: a call that moves data
 *   isend_irecv 8-byte MPI_Irecv + MPI_Isend to oneself, MPI_Waitall
 *   send_recv   8-byte MPI_Irecv, MPI_Send, MPI_Isend, MPI_Recv to oneself,
 *               MPI_Waitall (nothing blocks, so a singleton runs it)
 *   send_recv_dup  the same on an MPI_Comm_dup of MPI_COMM_WORLD
 *   allreduce   1-int MPI_Allreduce on MPI_COMM_WORLD
 *               (the data loops run only when named in --loops or --callgrind;
 *               their MPI calls go through bench_call_X, see below)
 *
 * Repetitions are kept short (about a millisecond each by default) and many,
 * so that on a shared machine some of them fall between two interruptions:
 * the minimum is then the undisturbed cost.
 *
 * Timing mode (default): every rank runs the cheap loops at the same time
 * (ranks are separated by barriers between loops); rank 0 prints, for each
 * loop, the MINIMUM over the repetitions of the time per iteration (the
 * median is printed too, for information). One line per loop:
 *
 *   loop=comm_rank iterations=N repetitions=R calls_per_iter=1 unit=call
 *       ns_per_iter=MIN median_ns=MEDIAN pcontrol_off=0|1 ranks=P
 *
 * unit says what one iteration is: "call" for the cheap loops (ns_per_iter is
 * then ns per call), "round_trip" for pingpong (ns_per_iter is the round-trip
 * latency; calls_per_iter=4 MPI calls lie on its critical path).
 *
 * Callgrind mode (--callgrind LOOP): MPI_Init, one call of bench_loop_LOOP
 * with --iterations iterations, MPI_Finalize; nothing else. Run it twice under
 * valgrind --tool=callgrind --toggle-collect=bench_loop_LOOP with N and 2N
 * iterations: (I(2N) - I(N)) / N is the instruction count per call, with
 * start-up and first-call costs (lazy binding, table allocation) cancelled.
 * Cheap loops only; it runs on one rank (a singleton is fine).
 *
 * All-loops mode (--callgrind-all N): the same for every single-rank loop in
 * one process, for the test suite's cost guard (tests/runtime/check-cost.sh):
 * each loop runs three times in a row, N iterations to warm up (lazy binding,
 * tables, the call sites' memos), then N, then 2N, and each run is announced
 * first on stdout as "run=K loop=NAME iterations=n" (K from 1). Under
 * valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_run_loop
 * --dump-after=bench_run_loop, callgrind's dump K holds run K alone (every run
 * goes through bench_run_loop, since --dump-after takes one name, not a
 * pattern).
 *
 * Timing uses clock_gettime(CLOCK_MONOTONIC), not MPI_Wtime, so that the
 * profiling layer never wraps the clock. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_NOINLINE __attribute__((noipa))
#elif defined(__GNUC__)
#define BENCH_NOINLINE __attribute__((noinline))
#else
#define BENCH_NOINLINE
#endif

#define PINGPONG_TAG 17

/* Results go here so that no loop can be optimised away. */
static volatile long sink;

/* External linkage and no inlining/cloning: the symbol names are what
 * callgrind's --toggle-collect matches. */
void bench_loop_comm_rank(long n);
void bench_loop_test_null(long n);
void bench_loop_iprobe(long n);
void bench_loop_pingpong(long n);
void bench_loop_sendrecv_self(long n);
void bench_loop_isend_irecv(long n);
void bench_loop_send_recv(long n);
void bench_loop_send_recv_dup(long n);
void bench_loop_allreduce(long n);

/* The data loops call MPI through these, one per MPI function and never
 * inlined, so that callgrind's inclusive cost of each (run-overhead.sh reads
 * it with callgrind_annotate) is the cost of one MPI function, wrapper
 * included; the few instructions of the extra call level are the same with
 * and without mpiwatch. */
int bench_call_isend(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, MPI_Request *req);
int bench_call_irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request *req);
int bench_call_send(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm);
int bench_call_recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm);
int bench_call_waitall(int count, MPI_Request *reqs);
int bench_call_allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Comm comm);

BENCH_NOINLINE int bench_call_isend(const void *buf, int count, MPI_Datatype type, int dest,
                                    int tag, MPI_Comm comm, MPI_Request *req)
{
    return MPI_Isend(buf, count, type, dest, tag, comm, req);
}

BENCH_NOINLINE int bench_call_irecv(void *buf, int count, MPI_Datatype type, int source, int tag,
                                    MPI_Comm comm, MPI_Request *req)
{
    return MPI_Irecv(buf, count, type, source, tag, comm, req);
}

BENCH_NOINLINE int bench_call_send(const void *buf, int count, MPI_Datatype type, int dest,
                                   int tag, MPI_Comm comm)
{
    return MPI_Send(buf, count, type, dest, tag, comm);
}

BENCH_NOINLINE int bench_call_recv(void *buf, int count, MPI_Datatype type, int source, int tag,
                                   MPI_Comm comm)
{
    return MPI_Recv(buf, count, type, source, tag, comm, MPI_STATUS_IGNORE);
}

BENCH_NOINLINE int bench_call_waitall(int count, MPI_Request *reqs)
{
    /* Statuses rather than MPI_STATUSES_IGNORE, which GCC 12 takes for an
     * array too small (-Wstringop-overflow with MPICH's header). */
    MPI_Status statuses[2];
    return MPI_Waitall(count < 2 ? count : 2, reqs, statuses);
}

BENCH_NOINLINE int bench_call_allreduce(const void *in, void *out, int count, MPI_Datatype type,
                                        MPI_Comm comm)
{
    return MPI_Allreduce(in, out, count, type, MPI_SUM, comm);
}

BENCH_NOINLINE void bench_loop_comm_rank(long n)
{
    long acc = 0;
    for (long i = 0; i < n; i++) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        acc += rank;
    }
    sink = acc;
}

BENCH_NOINLINE void bench_loop_test_null(long n)
{
    long acc = 0;
    for (long i = 0; i < n; i++) {
        MPI_Request req = MPI_REQUEST_NULL;
        int flag = 0;
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        acc += flag;
    }
    sink = acc;
}

BENCH_NOINLINE void bench_loop_iprobe(long n)
{
    long acc = 0;
    for (long i = 0; i < n; i++) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        acc += flag;
    }
    sink = acc;
}

/* A 0-byte message to oneself: the cheapest call that moves data, so the
 * cost of what mpiwatch notes for transfers (and the monitor's traffic
 * events). */
BENCH_NOINLINE void bench_loop_sendrecv_self(long n)
{
    int rank;
    char out = 0, in = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < n; i++)
        MPI_Sendrecv(&out, 0, MPI_CHAR, rank, PINGPONG_TAG, &in, 0, MPI_CHAR, rank, PINGPONG_TAG,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sink = in;
}

/* An 8-byte MPI_Irecv and MPI_Isend to oneself, then MPI_Waitall: works
 * as a singleton (nothing blocks before both are posted). */
BENCH_NOINLINE void bench_loop_isend_irecv(long n)
{
    int rank;
    double out = 1.0, in = 0.0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < n; i++) {
        MPI_Request reqs[2];
        bench_call_irecv(&in, 1, MPI_DOUBLE, rank, PINGPONG_TAG, MPI_COMM_WORLD, &reqs[0]);
        bench_call_isend(&out, 1, MPI_DOUBLE, rank, PINGPONG_TAG, MPI_COMM_WORLD, &reqs[1]);
        bench_call_waitall(2, reqs);
    }
    sink = (long)in;
}

/* An 8-byte MPI_Send and MPI_Recv to oneself that never block, so that a
 * singleton runs them: the send finds a receive already posted, the
 * receive a message already sent (MPI_Irecv, MPI_Send, MPI_Isend, MPI_Recv,
 * MPI_Waitall). */
static void send_recv_on(long n, MPI_Comm comm)
{
    int rank;
    double out = 1.0, in = 0.0, in2 = 0.0;
    MPI_Comm_rank(comm, &rank);
    for (long i = 0; i < n; i++) {
        MPI_Request reqs[2];
        bench_call_irecv(&in, 1, MPI_DOUBLE, rank, PINGPONG_TAG, comm, &reqs[0]);
        bench_call_send(&out, 1, MPI_DOUBLE, rank, PINGPONG_TAG, comm);
        bench_call_isend(&out, 1, MPI_DOUBLE, rank, PINGPONG_TAG + 1, comm, &reqs[1]);
        bench_call_recv(&in2, 1, MPI_DOUBLE, rank, PINGPONG_TAG + 1, comm);
        bench_call_waitall(2, reqs);
    }
    sink = (long)(in + in2);
}

BENCH_NOINLINE void bench_loop_send_recv(long n)
{
    send_recv_on(n, MPI_COMM_WORLD);
}

/* The same on a duplicate of MPI_COMM_WORLD: what a communicator other
 * than the world costs. The duplicate is made on the first call and kept,
 * so that it is not counted in the differential. */
BENCH_NOINLINE void bench_loop_send_recv_dup(long n)
{
    static MPI_Comm dup = MPI_COMM_NULL;
    if (dup == MPI_COMM_NULL)
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    send_recv_on(n, dup);
}

/* A 1-int MPI_Allreduce (on one rank under callgrind). */
BENCH_NOINLINE void bench_loop_allreduce(long n)
{
    int in = 1, out = 0;
    long acc = 0;
    for (long i = 0; i < n; i++) {
        bench_call_allreduce(&in, &out, 1, MPI_INT, MPI_COMM_WORLD);
        acc += out;
    }
    sink = acc;
}

/* Ranks 0 and 1 exchange n zero-byte messages each way; other ranks idle. */
BENCH_NOINLINE void bench_loop_pingpong(long n)
{
    int rank;
    char byte = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        for (long i = 0; i < n; i++) {
            MPI_Send(&byte, 0, MPI_CHAR, 1, PINGPONG_TAG, MPI_COMM_WORLD);
            MPI_Recv(&byte, 0, MPI_CHAR, 1, PINGPONG_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (rank == 1) {
        for (long i = 0; i < n; i++) {
            MPI_Recv(&byte, 0, MPI_CHAR, 0, PINGPONG_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&byte, 0, MPI_CHAR, 0, PINGPONG_TAG, MPI_COMM_WORLD);
        }
    }
    sink = byte;
}

typedef struct loop_def {
    const char *name;
    void (*fn)(long);
    int calls_per_iter;   /* MPI calls on the critical path per iteration */
    const char *unit;     /* what one iteration is */
    int cheap;            /* usable in callgrind mode (single rank) */
    int by_default;       /* run when --loops is not given */
} loop_def;

static const loop_def loops[] = {
    {"comm_rank", bench_loop_comm_rank, 1, "call", 1, 1},
    {"test_null", bench_loop_test_null, 1, "call", 1, 1},
    {"iprobe", bench_loop_iprobe, 1, "call", 1, 1},
    {"pingpong", bench_loop_pingpong, 4, "round_trip", 0, 1},
    {"sendrecv_self", bench_loop_sendrecv_self, 1, "call", 1, 0},
    {"isend_irecv", bench_loop_isend_irecv, 3, "iteration", 1, 0},
    {"send_recv", bench_loop_send_recv, 5, "iteration", 1, 0},
    {"send_recv_dup", bench_loop_send_recv_dup, 5, "iteration", 1, 0},
    {"allreduce", bench_loop_allreduce, 1, "call", 1, 0},
};
#define NLOOPS ((int)(sizeof loops / sizeof loops[0]))

static const loop_def *find_loop(const char *name)
{
    for (int i = 0; i < NLOOPS; i++)
        if (strcmp(loops[i].name, name) == 0)
            return &loops[i];
    return NULL;
}

void bench_run_loop(void (*fn)(long), long n);

BENCH_NOINLINE void bench_run_loop(void (*fn)(long), long n)
{
    fn(n);
}

/* --callgrind-all: each single-rank loop with n (warm-up), n and 2n
 * iterations; the announcement is flushed before the run, so that the lines
 * and callgrind's dumps come in the same order. */
static void run_all_loops(long n)
{
    int run = 0;
    for (int l = 0; l < NLOOPS; l++) {
        if (!loops[l].cheap)
            continue;
        const long counts[3] = {n, n, 2 * n};
        for (int k = 0; k < 3; k++) {
            printf("run=%d loop=%s iterations=%ld\n", ++run, loops[l].name, counts[k]);
            fflush(stdout);
            bench_run_loop(loops[l].fn, counts[k]);
        }
    }
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *out, const char *prog)
{
    fprintf(out,
            "usage: %s [options]\n"
            "  --iterations N           iterations per cheap loop (default 100000);\n"
            "                           in callgrind mode, the loop's iteration count\n"
            "  --pingpong-iterations N  round trips per ping-pong loop (default iterations/50,\n"
            "                           at least 500)\n"
            "  --repetitions R          timed repetitions of every loop (default 21); the\n"
            "                           reported ns_per_iter is the minimum over them\n"
            "  --loops a,b,...          loops to run: comm_rank,test_null,iprobe,pingpong,\n"
            "                           sendrecv_self (default all but sendrecv_self;\n"
            "                           pingpong is skipped on 1 rank)\n"
            "  --pcontrol-off           call MPI_Pcontrol(0) after MPI_Init (profiling off)\n"
            "  --callgrind LOOP         run only bench_loop_LOOP once with --iterations\n"
            "                           iterations, untimed, no warm-up (cheap loops only)\n"
            "  --callgrind-all N        run every single-rank loop with N (warm-up), N and\n"
            "                           2N iterations, untimed, each run announced on stdout\n"
            "  --help                   this text\n",
            prog);
}

static int parse_long(const char *opt, const char *s, long min, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *s == '\0' || *end != '\0' || v < min) {
        fprintf(stderr, "overhead: %s wants an integer >= %ld, got '%s'\n", opt, min, s);
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    long iterations = 100000, pp_iterations = -1, repetitions = 21;
    int pcontrol_off = 0;
    const char *loop_list = NULL;
    const loop_def *callgrind_loop = NULL;
    long callgrind_all = 0;

    /* Options are parsed before MPI_Init so that --help and mistakes need no
     * MPI; every rank sees the same arguments and reaches the same verdict. */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, argv[0]);
            return 0;
        } else if (strcmp(a, "--pcontrol-off") == 0) {
            pcontrol_off = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "overhead: unknown option or missing value: '%s'\n", a);
            usage(stderr, argv[0]);
            return 2;
        }
        if (strcmp(a, "--iterations") == 0) {
            if (parse_long(a, v, 1, &iterations))
                return 2;
        } else if (strcmp(a, "--pingpong-iterations") == 0) {
            if (parse_long(a, v, 1, &pp_iterations))
                return 2;
        } else if (strcmp(a, "--repetitions") == 0) {
            if (parse_long(a, v, 1, &repetitions))
                return 2;
        } else if (strcmp(a, "--loops") == 0) {
            loop_list = v;
        } else if (strcmp(a, "--callgrind") == 0) {
            callgrind_loop = find_loop(v);
            if (callgrind_loop == NULL || !callgrind_loop->cheap) {
                fprintf(stderr, "overhead: --callgrind wants a single-rank loop (not "
                                "pingpong), got '%s'\n", v);
                return 2;
            }
        } else if (strcmp(a, "--callgrind-all") == 0) {
            if (parse_long(a, v, 1, &callgrind_all))
                return 2;
        } else {
            fprintf(stderr, "overhead: unknown option '%s'\n", a);
            usage(stderr, argv[0]);
            return 2;
        }
        i++;
    }
    if (pp_iterations < 0)
        pp_iterations = iterations / 50 > 500 ? iterations / 50 : 500;

    int selected[NLOOPS];
    for (int i = 0; i < NLOOPS; i++)
        selected[i] = loop_list == NULL && loops[i].by_default;
    if (loop_list != NULL) {
        char buf[256];
        if (strlen(loop_list) >= sizeof buf) {
            fprintf(stderr, "overhead: --loops list too long\n");
            return 2;
        }
        strcpy(buf, loop_list);
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok != NULL;
             tok = strtok_r(NULL, ",", &save)) {
            const loop_def *l = find_loop(tok);
            if (l == NULL) {
                fprintf(stderr, "overhead: unknown loop '%s'\n", tok);
                return 2;
            }
            selected[l - loops] = 1;
        }
    }

    MPI_Init(&argc, &argv);
    if (pcontrol_off)
        MPI_Pcontrol(0);

    if (callgrind_loop != NULL) {
        callgrind_loop->fn(iterations);
        MPI_Finalize();
        return 0;
    }
    if (callgrind_all > 0) {
        run_all_loops(callgrind_all);
        MPI_Finalize();
        return 0;
    }

    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    double *samples = malloc((size_t)NLOOPS * (size_t)repetitions * sizeof *samples);
    if (samples == NULL) {
        fprintf(stderr, "overhead: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    for (int l = 0; l < NLOOPS; l++) {
        if (selected[l] && !loops[l].cheap && size < 2) {
            if (rank == 0)
                fprintf(stderr, "overhead: skipping %s: it needs 2 ranks\n", loops[l].name);
            selected[l] = 0;
        }
    }

    /* Warm-up: binds every symbol, touches every code path and table once. */
    for (int l = 0; l < NLOOPS; l++) {
        if (!selected[l])
            continue;
        long n = loops[l].cheap ? iterations : pp_iterations;
        MPI_Barrier(MPI_COMM_WORLD);
        loops[l].fn(n / 10 > 0 ? n / 10 : 1);
    }

    /* Repetitions are interleaved across loops, so that a noisy stretch of
     * time does not fall on one loop only. */
    for (long r = 0; r < repetitions; r++) {
        for (int l = 0; l < NLOOPS; l++) {
            if (!selected[l])
                continue;
            long n = loops[l].cheap ? iterations : pp_iterations;
            MPI_Barrier(MPI_COMM_WORLD);
            uint64_t t0 = now_ns();
            loops[l].fn(n);
            uint64_t t1 = now_ns();
            samples[l * repetitions + r] = (double)(t1 - t0) / (double)n;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        for (int l = 0; l < NLOOPS; l++) {
            if (!selected[l])
                continue;
            double *s = &samples[l * repetitions];
            qsort(s, (size_t)repetitions, sizeof *s, cmp_double);
            double median = repetitions % 2 ? s[repetitions / 2]
                                            : (s[repetitions / 2 - 1] + s[repetitions / 2]) / 2;
            printf("loop=%s iterations=%ld repetitions=%ld calls_per_iter=%d unit=%s "
                   "ns_per_iter=%.3f median_ns=%.3f pcontrol_off=%d ranks=%d\n",
                   loops[l].name, loops[l].cheap ? iterations : pp_iterations, repetitions,
                   loops[l].calls_per_iter, loops[l].unit, s[0], median, pcontrol_off, size);
        }
        fflush(stdout);
    }
    free(samples);
    MPI_Finalize();
    return 0;
}
