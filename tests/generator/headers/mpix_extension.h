/* Quirk: an implementation's extension, not in the standard. */
#include "fake_types.h"

int PMPIX_Comm_revoke(MPI_Comm comm);
int PMPIX_Frobnicate(int knob);
int PMPI_Barrier(MPI_Comm comm);
