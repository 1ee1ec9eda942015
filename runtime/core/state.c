/* The runtime's process-wide state, defined here so that every layer can
 * read it without depending on the life cycle that fills it in. */
#include "core/state.h"
#include "core/yielding_collectives.h"

mw_process_state mw_state = {.world_rank = -1, .comm = MPI_COMM_NULL};
int mw_level = 1;
const char *mw_fortran_layers;

MPI_Comm mw_private_comm(void)
{
    static int tried;
    if (!tried) {
        tried = 1;
        if (mw_comm_dup(MPI_COMM_WORLD, &mw_state.comm) == MPI_SUCCESS)
            PMPI_Comm_set_errhandler(mw_state.comm, MPI_ERRORS_RETURN);
        else
            mw_state.comm = MPI_COMM_NULL;
    }
    return mw_state.comm;
}
