/* Every rank sends to every other rank a number of messages and a message
 * size of its own (from the pair's ranks), by point-to-point calls, and
 * writes what it sent into DIR/sent.RANK as "FROM TO BYTES MESSAGES" lines:
 * the matrix mpiwatch must write, counted by the program itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int messages(int from, int to)
{
    return 1 + (from + 2 * to) % 3;
}

static int ints(int from, int to)
{
    return 1 + (7 * from + 3 * to) % 40;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: alltoall_pairs DIR\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *buf = calloc(40, sizeof *buf), *in = calloc(40, sizeof *in);
    char path[4096];
    snprintf(path, sizeof path, "%s/sent.%d", argv[1], rank);
    FILE *out = fopen(path, "w");
    if (buf == NULL || in == NULL || out == NULL) {
        fprintf(stderr, "alltoall_pairs: rank %d cannot start\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Round k: send to rank + k, receive from rank - k. */
    for (int k = 1; k < size; k++) {
        int to = (rank + k) % size, from = (rank - k + size) % size;
        int nout = messages(rank, to), nin = messages(from, rank);
        for (int m = 0; m < nout || m < nin; m++) {
            MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            if (m < nin)
                MPI_Irecv(in, ints(from, rank), MPI_INT, from, m, MPI_COMM_WORLD, &r[0]);
            if (m < nout)
                MPI_Isend(buf, ints(rank, to), MPI_INT, to, m, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        }
        fprintf(out, "%d %d %d %d\n", rank, to, nout * ints(rank, to) * (int)sizeof(int), nout);
    }
    fclose(out);
    free(buf);
    free(in);
    MPI_Finalize();
    return 0;
}
