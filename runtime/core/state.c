/* The runtime's process-wide state, defined here so that every layer can
 * read it without depending on the life cycle that fills it in. */
#include "core/state.h"

mw_process_state mw_state = {.world_rank = -1, .comm = MPI_COMM_NULL};
int mw_level = 1;
const char *mw_fortran_layers;
