/* reuse.c: freed handles whose values come back, at the same call sites.
 *
 * The fast path remembers, per call site, the datatype and communicator it
 * last saw and their facts (size, world ranks). Here each site sees a chain
 * of datatypes of different sizes and of communicators whose ranks map to
 * the world differently, each freed before the next is made, so that the
 * MPI is free to hand out the same handle value again: the report's bytes
 * and pairs are exact only if a freed handle's facts are forgotten.
 * Rank 0 prints a deterministic summary; the exit status is non-zero if a
 * message arrived wrong.
 */
#include <mpi.h>
#include <stdio.h>

#define TYPES 6   /* contiguous types of 1..TYPES ints */
#define COMMS 4   /* communicators, alternately reversed and in world order */

static int errors;

/* One message of count elements to the right neighbour in comm and one
 * from the left, through the same three call sites whatever comm and type. */
static void __attribute__((noinline)) ring(int count, MPI_Datatype type, MPI_Comm comm)
{
    int rank, size, out[2 * TYPES], in[2 * TYPES];
    MPI_Request request;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < 2 * TYPES; i++) {
        out[i] = rank * 100 + i;
        in[i] = -1;
    }
    MPI_Isend(out, count, type, (rank + 1) % size, 1, comm, &request);
    MPI_Recv(in, count, type, (rank + size - 1) % size, 1, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (in[0] != (rank + size - 1) % size * 100)
        errors++;
}

/* The same for a send-receive: one call site. */
static void __attribute__((noinline)) shift(MPI_Datatype type, MPI_Comm comm)
{
    int rank, size, out[TYPES], in[TYPES];
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < TYPES; i++)
        out[i] = rank;
    MPI_Sendrecv(out, 1, type, (rank + 1) % size, 2, in, 1, type, (rank + size - 1) % size, 2,
                 comm, MPI_STATUS_IGNORE);
    if (in[0] != (rank + size - 1) % size)
        errors++;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int k = 1; k <= TYPES; k++) {
        MPI_Datatype type;
        MPI_Type_contiguous(k, MPI_INT, &type);
        MPI_Type_commit(&type);
        ring(2, type, MPI_COMM_WORLD);
        shift(type, MPI_COMM_WORLD);
        MPI_Type_free(&type);
    }
    for (int j = 0; j < COMMS; j++) {
        MPI_Comm comm;
        int one = 1, sum = 0;
        MPI_Comm_split(MPI_COMM_WORLD, 0, j % 2 ? rank : size - 1 - rank, &comm);
        ring(1, MPI_INT, comm);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
        if (sum != size)
            errors++;
        MPI_Comm_free(&comm);
    }

    int all = 0;
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("reuse: %d types, %d communicators, %d errors\n", TYPES, COMMS, all);
    MPI_Finalize();
    return all != 0;
}
