/* finalize: how long MPI_Finalize takes, as seen by rank 0 of the job (the
 * slowest rank decides when a job ends). Each rank does a little of every
 * kind of work first, so that the report has functions, bytes, pairs and
 * histograms to gather. With the argument "sites", each rank also calls
 * MPI_Allreduce from 50 more places in the code (50 more call sites).
 * Prints "finalize_ms=<max over ranks>". */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Ten, then fifty call instructions: each its own call site. */
#define SITE MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#define TEN_SITES SITE SITE SITE SITE SITE SITE SITE SITE SITE SITE
#define FIFTY_SITES TEN_SITES TEN_SITES TEN_SITES TEN_SITES TEN_SITES

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

int main(int argc, char **argv)
{
    int rank, size, x = 1, y = 0;
    double buf[256] = {0};

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 100; i++) {
        MPI_Sendrecv_replace(buf, 256, MPI_DOUBLE, (rank + 1) % size, 0,
                             (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    if (argc > 1 && strcmp(argv[1], "sites") == 0) {
        FIFTY_SITES
    }
    /* Everyone enters MPI_Finalize together; each rank times its own. */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now_ms();
    MPI_Finalize();
    double ms = now_ms() - t0;
    /* MPI is gone: each rank prints, the script takes the largest. */
    printf("rank=%d finalize_ms=%.3f\n", rank, ms);
    return 0;
}
