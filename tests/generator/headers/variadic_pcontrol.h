/* Quirk: the one variadic MPI function. */
#include "fake_types.h"

int PMPI_Pcontrol(const int level, ...);
