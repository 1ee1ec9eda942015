/* Per-rank figures that differ on every rank (check-rank-figures): rank r
 * sends r + 1 messages of 8 (r + 1) bytes to rank r + 1 (mod P) and enters
 * the regions "part0" to "part<r-1>" once each (rank 0 none), so that each
 * rank's row, pair and number of regions in the report is its own. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void mpiwatch_region_begin(const char *name);
void mpiwatch_region_end(const char *name);

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int out = rank + 1, in = from + 1;
    char *sent = calloc((size_t)8 * out, 1), *got = malloc((size_t)8 * in);
    MPI_Request *requests = malloc((size_t)out * sizeof *requests);
    for (int i = 0; i < out; i++)
        MPI_Isend(sent, 8 * out, MPI_BYTE, to, 0, MPI_COMM_WORLD, &requests[i]);
    for (int i = 0; i < in; i++)
        MPI_Recv(got, 8 * in, MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(out, requests, MPI_STATUSES_IGNORE);
    for (int k = 0; k < rank; k++) {
        char name[16];
        snprintf(name, sizeof name, "part%d", k);
        mpiwatch_region_begin(name);
        MPI_Barrier(MPI_COMM_SELF);
        mpiwatch_region_end(name);
    }
    free(sent);
    free(got);
    free(requests);
    MPI_Finalize();
    return 0;
}
