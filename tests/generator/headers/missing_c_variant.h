/* Quirk: an MPI without the large-count variants (MPI 3.1 style):
 * PMPI_Send is declared, PMPI_Send_c and PMPI_Recv_c are not. */
#include "fake_types.h"

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest,
              int tag, MPI_Comm comm);
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source,
              int tag, MPI_Comm comm, MPI_Status *status);
