/* A job whose MPI share is known: ITER rounds of "work" (a sleep of WORK ms)
 * then MPI_Barrier. In round i, rank i % size works LATE ms longer, so every
 * other rank waits about LATE ms in the barrier; rank SLOW (if >= 0) works
 * SLOWMS ms longer in every round, so everyone else waits for it.
 *
 *   share ITER WORK LATE [SLOW SLOWMS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void work(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: share ITER WORK-MS LATE-MS [SLOW-RANK SLOW-MS]\n");
        MPI_Finalize();
        return 2;
    }
    int iter = atoi(argv[1]), slow = argc > 5 ? atoi(argv[4]) : -1;
    long base = atol(argv[2]), late = atol(argv[3]), slow_ms = argc > 5 ? atol(argv[5]) : 0;
    for (int i = 0; i < iter; i++) {
        work(base + (i % size == rank ? late : 0) + (rank == slow ? slow_ms : 0));
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("share: %d rounds on %d ranks\n", iter, size);
    MPI_Finalize();
    return 0;
}
