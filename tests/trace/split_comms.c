/* Messages and rooted collectives on communicators other than
 * MPI_COMM_WORLD, whose ranks are not world ranks: the even and the odd
 * world ranks (MPI_Comm_split), and all ranks numbered backwards (key
 * -rank). On each, a ring of blocking and non-blocking messages (one
 * receive from MPI_ANY_SOURCE) whose sizes differ per communicator, an
 * MPI_Bcast rooted at the communicator's rank 1 and an MPI_Reduce at its
 * rank 0. Prints one line per rank; exit 0. For check-trace-otf2.sh. */
#include <mpi.h>
#include <stdio.h>

/* Steps of a ring on comm, messages of n ints; the sum of what arrived. */
static long ring(MPI_Comm comm, int n)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[8], in[8];
    long sum = 0;
    for (int step = 0; step < 5; step++) {
        MPI_Request req[2];
        MPI_Status st[2];   /* the wildcard receive's source is in its status */
        for (int i = 0; i < n; i++)
            out[i] = rank * 10 + step;
        MPI_Irecv(in, n, MPI_INT, MPI_ANY_SOURCE, 7, comm, &req[0]);
        MPI_Isend(out, n, MPI_INT, right, 7, comm, &req[1]);
        MPI_Waitall(2, req, st);
        sum += in[0];
        if (rank % 2 == 0) {
            MPI_Send(out, n, MPI_INT, right, 8, comm);
            MPI_Recv(in, n, MPI_INT, left, 8, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, n, MPI_INT, left, 8, comm, MPI_STATUS_IGNORE);
            MPI_Send(out, n, MPI_INT, right, 8, comm);
        }
        sum += in[0];
    }
    int value = size > 1 && rank == 1 ? 42 : 0, total = 0;
    MPI_Bcast(&value, 1, MPI_INT, size > 1 ? 1 : 0, comm);
    MPI_Reduce(&value, &total, 1, MPI_INT, MPI_SUM, 0, comm);
    return sum + total;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm halves, backwards;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves);
    MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &backwards);
    long sum = ring(halves, 2 + rank % 2) + ring(backwards, 5) + ring(MPI_COMM_WORLD, 1);
    printf("rank %d: %ld\n", rank, sum);
    MPI_Comm_free(&halves);
    MPI_Comm_free(&backwards);
    MPI_Finalize();
    return 0;
}
