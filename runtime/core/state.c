/* The runtime's process-wide state, defined here so that every layer can
 * read it without depending on the life cycle that fills it in. */
#include "core/state.h"

mw_process_state mw_state = {.world_rank = -1, .comm = MPI_COMM_NULL};
int mw_level = 1;
/* The same word under an exported name: libmpiwatch_f's entry points read it
 * to go straight to the MPI while profiling is off (fortran/bridge.h). */
extern MW_EXPORT int mpiwatch_fortran_level __attribute__((alias("mw_level")));
const char *mw_fortran_layers;
