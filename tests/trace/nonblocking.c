/* What the trace joins: non-blocking sends and receives completed by
 * MPI_Waitall, MPI_Waitany, MPI_Wait and a polling MPI_Test loop, receives
 * from MPI_ANY_SOURCE (whose source only the completion's status says),
 * rooted collectives (blocking and not) with roots other than 0.
 * With --polls N: rank 0 also tests a receive N times before its sender
 * sends (after a barrier), so that every one of those tests finds nothing.
 * Prints one line per rank; exit 0. For tests/trace/check-trace-ring.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long polls = argc == 3 && strcmp(argv[1], "--polls") == 0 ? atol(argv[2]) : 0;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    long sum = 0;
    for (int step = 0; step < 20; step++) {
        int in[2], out[2] = {rank * 100 + step, rank * 100 + step + 1};
        MPI_Request req[4];
        MPI_Status st[4];
        /* one receive with a wildcard source: its source is the status's */
        MPI_Irecv(&in[0], 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&in[1], 1, MPI_INT, right, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&out[0], 1, MPI_INT, right, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&out[1], 1, MPI_INT, left, 2, MPI_COMM_WORLD, &req[3]);
        if (step % 3 == 0) {
            MPI_Waitall(4, req, st);
        } else if (step % 3 == 1) {
            for (int done = 0; done < 4; done++) {
                int index;
                MPI_Waitany(4, req, &index, &st[0]);
            }
        } else {
            int flag = 0;
            while (!flag)
                MPI_Test(&req[0], &flag, &st[0]);
            MPI_Wait(&req[1], MPI_STATUS_IGNORE);   /* its source is its own argument */
            MPI_Waitall(2, &req[2], MPI_STATUSES_IGNORE);
        }
        sum += in[0] + in[1];
    }
    int root = 2 % size, value = rank, total = 0;
    MPI_Bcast(&value, 1, MPI_INT, root, MPI_COMM_WORLD);
    MPI_Reduce(&rank, &total, 1, MPI_INT, MPI_SUM, 1 % size, MPI_COMM_WORLD);
    MPI_Request breq;
    MPI_Ibcast(&value, 1, MPI_INT, size - 1, MPI_COMM_WORLD, &breq);
    MPI_Wait(&breq, MPI_STATUS_IGNORE);
    if (polls > 0 && size > 1 && rank <= 1) {
        int token = 7, flag = 0;
        MPI_Request r;
        if (rank == 0) {
            MPI_Irecv(&token, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &r);
            for (long i = 0; i < polls; i++)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            MPI_Send(&token, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
        else
            MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (polls > 0) {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("rank %d: sum %ld\n", rank, sum);
    MPI_Finalize();
    return 0;
}
