/* MPI_Init's preparations and the thread level (lifecycle/lifecycle.h).
 * The live monitor's MPI ports accept in a background thread and need
 * MPI_THREAD_MULTIPLE: when the monitor wants them, that level is asked for,
 * while the program is told the level it would have had without mpiwatch,
 * by MPI_Init_thread and MPI_Query_thread alike. */
#include <mpi.h>

#include "lifecycle/lifecycle.h"
#include "monitor/monitor.h"

/* The level the program sees when mpiwatch raised it for itself; -1 when
 * it did not, and the MPI's own answers stand. */
static int app_level = -1;

void mw_on_init_args(int *argc, char ***argv)
{
    mw_monitor_options_load(argc, argv);
}

int mw_init_wants_threads(void)
{
    return mw_monitor_wants_threads();
}

int mw_init_thread_level(int required)
{
    return mw_monitor_wants_threads() ? MPI_THREAD_MULTIPLE : required;
}

int mw_init_threaded(int *argc, char ***argv)
{
    int provided = MPI_THREAD_SINGLE;
    int rc = PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    if (rc == MPI_SUCCESS)
        app_level = MPI_THREAD_SINGLE;   /* what MPI_Init gives (both MPIs) */
    return rc;
}

int mw_init_app_level(int required, int provided)
{
    if (!mw_monitor_wants_threads())
        return provided;
    app_level = required < provided ? required : provided;
    return app_level;
}

void mw_on_query_thread(int *provided)
{
    if (app_level >= 0 && provided != NULL)
        *provided = app_level;
}
