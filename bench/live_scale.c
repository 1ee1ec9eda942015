/* The job bench/run-live-scale.sh watches: SECONDS of traffic (each rank
 * computes a little, passes 1 kB round a ring and joins an MPI_Allreduce),
 * then rank STUCK waits HOLD seconds in an MPI_Recv from rank 0 (which
 * sleeps before it sends) while the others wait in MPI_Barrier; then the
 * job ends normally, so that its report can be held against the client's
 * totals. Markers on stdout tell the script where the job is:
 *   "live_scale: running"        rank 0, every rank past MPI_Init
 *   "live_scale: rank R stuck"   rank STUCK, just before its MPI_Recv
 *   "live_scale: done"           rank 0, just before MPI_Finalize
 *
 * WAIT "sleep" (default "spin") makes the others wait in an MPI_Ibarrier
 * tested every 100 ms between sleeps: with hundreds of ranks on each core,
 * MPI's busy waiting in MPI_Barrier leaves the monitor's threads a time
 * slice every few seconds; sleeping waiters leave them the cores, as a
 * rank per core does on a cluster.
 *
 *     live_scale SECONDS HOLD STUCK [spin|sleep] */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* MPI_Barrier, or an MPI_Ibarrier tested between 100 ms sleeps. */
static void barrier(int sleepy)
{
    if (!sleepy) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&(struct timespec){0, 100000000L}, NULL);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: live_scale SECONDS HOLD STUCK [spin|sleep]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double seconds = atof(argv[1]);
    unsigned hold = (unsigned)atoi(argv[2]);
    int stuck = atoi(argv[3]);
    int sleepy = argc > 4 && strcmp(argv[4], "sleep") == 0;
    if (argc > 4 && !sleepy && strcmp(argv[4], "spin") != 0) {
        if (rank == 0)
            fprintf(stderr, "live_scale: WAIT is spin or sleep, not '%s'\n", argv[4]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (stuck <= 0 || stuck >= size) {
        if (rank == 0)
            fprintf(stderr, "live_scale: STUCK must be a rank from 1 to %d\n", size - 1);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("live_scale: running\n");
        fflush(stdout);
    }
    char out[1024] = {0}, in[1024];
    double end = MPI_Wtime() + seconds, x = 0;
    int go = 1;
    while (go) {
        for (long i = 0; i < 1000000; i++)
            x += (double)i * 1e-9;
        MPI_Sendrecv(out, sizeof out, MPI_CHAR, (rank + 1) % size, 1, in, sizeof in, MPI_CHAR,
                     (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        go = MPI_Wtime() < end;   /* rank 0's clock decides, through the minimum */
        MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    int value = 0;
    if (rank == stuck) {
        printf("live_scale: rank %d stuck\n", rank);
        fflush(stdout);
        MPI_Recv(&value, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 0) {
        sleep(hold);
        MPI_Send(&value, 1, MPI_INT, stuck, 99, MPI_COMM_WORLD);
    }
    barrier(sleepy);
    if (rank == 0) {
        printf("live_scale: done (%g)\n", x);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
