/* The program tests/compare/check-diff.sh compares with itself: a ring
 * exchange (MPI_Sendrecv) whose messages are SCALE times the base size, an
 * MPI_Allreduce called REPEAT times per step, and calls that never change
 * (MPI_Bcast, MPI_Reduce). Built with -DSCALE=4 or -DREPEAT=2 it makes the
 * run with one call site's messages 4 times larger and one function called
 * twice as often. Each MPI call starts its line, so the suite can insert a
 * line above every one (its "moved" build). */
#include <mpi.h>
#include <stdlib.h>

#ifndef SCALE
#define SCALE 1
#endif
#ifndef REPEAT
#define REPEAT 1
#endif
#define STEPS 50
#define BASE 256   /* doubles */

static void exchange(double *out, double *in, int n, int right, int left)
{
    MPI_Sendrecv(out, n, MPI_DOUBLE, right, 7, in, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

static double norm(double x)
{
    double sum = 0;
    for (int k = 0; k < REPEAT; k++)
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *out = calloc(BASE * SCALE, sizeof *out), *in = calloc(BASE * SCALE, sizeof *in);
    double param[4] = {1, 2, 3, 4}, total = 0;
    for (int step = 0; step < STEPS; step++) {
        exchange(out, in, BASE * SCALE, (rank + 1) % size, (rank + size - 1) % size);
        total += norm(in[0] + rank);
        MPI_Bcast(param, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    }
    double all = 0;
    MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
