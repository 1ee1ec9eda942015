/* forever.c: every rank calls MPI_Allreduce in a loop until it is killed
 * (or, given a number of seconds, until that time has passed, then
 * MPI_Finalize). Rank 0 prints "calls N" after every 100 calls, flushed, so
 * that a test knows how many it had made at least before a signal; each
 * rank's calls stay within one of rank 0's (the reduction ties them).
 * Given "handler" instead, SIGTERM has the program's own handler, installed
 * before MPI_Init: it says so and exits with status 7. */
#include <mpi.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_term(int sig)
{
    static const char line[] = "own handler\n";
    (void)sig;
    (void)!write(1, line, sizeof line - 1);
    _exit(7);
}

int main(int argc, char **argv)
{
    int rank, one = 1, sum;
    long calls = 0;
    double limit = argc > 1 ? atof(argv[1]) : 0;

    if (argc > 1 && strcmp(argv[1], "handler") == 0)
        signal(SIGTERM, on_term);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double start = MPI_Wtime();
    for (;;) {
        int stop = limit > 0 && MPI_Wtime() - start > limit;
        MPI_Allreduce(&stop, &sum, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        calls++;
        if (sum)
            break;
        if (rank == 0 && calls % 100 == 0) {
            printf("calls %ld\n", calls);
            fflush(stdout);
        }
    }
    if (rank == 0)
        printf("finished after %ld calls\n", calls);
    MPI_Finalize();
    return 0;
}
