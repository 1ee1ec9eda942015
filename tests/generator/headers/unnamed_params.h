/* Quirk: prototypes without parameter names. */
#include "fake_types.h"

int PMPI_Send(const void *, int, MPI_Datatype, int, int, MPI_Comm);
int PMPI_Group_incl(MPI_Group, int, const int [], MPI_Group *);
