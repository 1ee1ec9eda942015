/* Quirk: a syntax error after a multi-line attribute. The error must be
 * reported at its own line (15), not shifted by the removed attribute. */
#include "fake_types.h"

__attribute__((visibility("default")))
int PMPI_Barrier(MPI_Comm comm)
    __attribute__((__deprecated__(
        "a deprecation message "
        "spread over "
        "several "
        "lines")));

int PMPI_Comm_rank(MPI_Comm comm, int *rank);

int PMPI_Comm_size(MPI_Comm comm int *size);
