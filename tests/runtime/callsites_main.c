/* Call sites: MPI_Send from three places, in two functions of two source
 * files of the program (this one and callsites_util.c) and in a shared
 * library (callsites_lib.c). Each rank sends to the next and receives from
 * the previous, so every send is matched. Lines marked SITE are what the
 * report must name (tests/runtime/check-callsites.sh); the library's send
 * is called from two lines marked CALLER, which MPIWATCH_CALLSITE_DEPTH=2
 * tells apart. */
#include <mpi.h>
#include <stdio.h>

void util_send(const double *buf, int next, int prev, int rank);
void lib_send(const double *buf, int next, int prev, int rank);

/* Not inlined: the site must belong to a function of its own. */
__attribute__((noinline)) static void main_send(const double *buf, int next, int prev)
{
    double in[64];
    for (int i = 0; i < 5; i++) {
        MPI_Send(buf, 8, MPI_DOUBLE, next, 1, MPI_COMM_WORLD); /* SITE main_send */
        MPI_Recv(in, 8, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    double buf[64] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    main_send(buf, next, prev);
    util_send(buf, next, prev, rank);
    lib_send(buf, next, prev, rank); /* CALLER lib_first */
    lib_send(buf, next, prev, rank); /* CALLER lib_second */
    if (rank == 0)
        printf("callsites: done on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
