/* Quirk: functions that return something other than int. */
#include "fake_types.h"

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp);
double MPI_Wtime(void);
double PMPI_Wtime(void);
