/* trace_bounds: many cheap calls and a long polling loop, for what the trace
 * keeps in memory and on disk (bench/run-trace-bounds.sh,
 * tests/trace/check-trace-bounds.sh).
 *
 *   trace_bounds CALLS POLLS
 *
 * Each rank makes CALLS calls of MPI_Comm_rank, then POLLS calls of MPI_Test
 * on a receive from itself that has no message yet (each finds nothing),
 * then sends that message and waits for it, and adds the results up on
 * rank 0: CALLS + POLLS + 6 calls besides MPI_Init and MPI_Finalize. stdout
 * is the result (rank 0's one line), the same with or without a profiling
 * layer. stderr gets the
 * rank's peak resident set (VmHWM) after each tenth of the calls:
 *
 *   vmhwm rank=R tenth=K kib=N
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The peak resident set of this process in KiB (0 when unknown). */
static long vmhwm_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = 0;
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

static long count_arg(const char *what, const char *s)
{
    char *end;
    long n = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || n < 0) {
        fprintf(stderr, "trace_bounds: %s wants a count, got '%s'\n", what, s);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: trace_bounds CALLS POLLS\n");
        return 2;
    }
    long calls = count_arg("CALLS", argv[1]), polls = count_arg("POLLS", argv[2]);
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);   /* not counted: CALLS are the loop's */

    long sum = 0;
    for (int tenth = 1; tenth <= 10; tenth++) {
        for (long i = calls * (tenth - 1) / 10; i < calls * tenth / 10; i++) {
            int r;
            MPI_Comm_rank(MPI_COMM_WORLD, &r);
            sum += r;
        }
        fprintf(stderr, "vmhwm rank=%d tenth=%d kib=%ld\n", rank, tenth, vmhwm_kib());
    }

    int in = -1, out = rank, flag = 0;
    long found = 0;
    MPI_Request req[2];
    MPI_Irecv(&in, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &req[0]);
    for (long i = 0; i < polls; i++) {
        MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
        found += flag;
    }
    MPI_Isend(&out, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);

    long mine[3] = {sum, found, in}, all[3];
    MPI_Reduce(mine, all, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks: %ld calls and %ld polls each, sum of ranks %ld, polls that found "
               "the message %ld, received %ld\n", size, calls, polls, all[0], all[1], all[2]);
    MPI_Finalize();
    return 0;
}
