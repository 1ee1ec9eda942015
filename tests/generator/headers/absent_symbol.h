/* Quirk: a declared function the library does not define (the tests give
 * a --symbols-file listing PMPI_Send but not PMPI_Status_f082f). */
#include "fake_types.h"

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm);
int PMPI_Status_f082f(const MPI_Fint *f08_status, MPI_Fint *f_status);
