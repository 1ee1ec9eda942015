/* Quirk: MPI names the header #defines, so they cannot be wrapped.
 * MPI_Comm_f2c is a macro with no prototype at all (as in MPICH);
 * MPI_Aint_add has a PMPI_ prototype but MPI_Aint_add is a macro too
 * (as in Open MPI). */
#include "fake_types.h"

#define MPI_Comm_f2c(comm) (MPI_Comm)(comm)
#define MPI_Aint_add(base, disp) ((MPI_Aint)((char *)(base) + (disp)))

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
int PMPI_Barrier(MPI_Comm comm);
