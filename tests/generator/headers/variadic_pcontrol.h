/* Quirk: the one variadic MPI function. */
#include "fake_types.h"

int MPI_Pcontrol(const int level, ...);
int PMPI_Pcontrol(const int level, ...);
