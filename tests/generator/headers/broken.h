/* Quirk: a header that does not parse. The error is on line 7. */
#include "fake_types.h"

int PMPI_Barrier(MPI_Comm comm);
int PMPI_Comm_rank(MPI_Comm comm, int *rank);

int PMPI_Comm_size(MPI_Comm comm, int *size)) ;
