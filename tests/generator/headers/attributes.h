/* Quirk: GNU extensions around the prototypes, as real headers have them:
 * visibility before, deprecation after (over several lines), __extension__
 * and __restrict. */
#include "fake_types.h"

__extension__ typedef long long fake_offset;

__attribute__((visibility("default")))
int PMPI_Send(const void *__restrict buf, int count, MPI_Datatype datatype,
              int dest, int tag, MPI_Comm comm);

__attribute__((visibility("default")))
int PMPI_Barrier(MPI_Comm comm)
    __attribute__((__deprecated__(
        "MPI_Barrier is not deprecated; "
        "this attribute only spans several lines")));

int PMPI_Comm_rank(MPI_Comm comm, int *__restrict rank)
    __attribute__((__nonnull__(2)));
