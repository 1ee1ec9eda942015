/* The runtime's life cycle (lifecycle/lifecycle.c, thread_level.c): the one
 * place that starts, flushes and finishes the other layers. Called by the
 * MPI_Init, MPI_Init_thread, MPI_Query_thread, MPI_Finalize and MPI_Pcontrol
 * wrappers, and by the Fortran bridge. */
#ifndef MW_LIFECYCLE_H
#define MW_LIFECYCLE_H

#include "core/compiler.h"

/* MPI_Init/MPI_Init_thread, before PMPI_Init: the monitor's options, and
 * mpiwatch's flags taken out of argv. */
MW_HIDDEN void mw_on_init_args(int *argc, char ***argv);
/* The thread level MPI_Init_thread asks PMPI_Init_thread for: required, or
 * MPI_THREAD_MULTIPLE for the monitor's MPI ports. */
MW_HIDDEN int mw_init_thread_level(int required);
/* Must MPI_Init ask for MPI_THREAD_MULTIPLE (the monitor's MPI ports)? Then
 * it calls mw_init_threaded, PMPI_Init_thread(MULTIPLE), for PMPI_Init. */
MW_HIDDEN int mw_init_wants_threads(void);
MW_HIDDEN int mw_init_threaded(int *argc, char ***argv);
/* After MPI_Init_thread: the level the program would have been given without
 * mpiwatch (the least of what it asked for and what MPI provides), which
 * MPI_Query_thread then reports too; provided as is when mpiwatch asked for
 * nothing more. */
MW_HIDDEN int mw_init_app_level(int required, int provided);
/* After MPI_Query_thread: the program's level in place of mpiwatch's. */
MW_HIDDEN void mw_on_query_thread(int *provided);

/* After a successful PMPI_Init: state, private communicator, the monitor. */
MW_HIDDEN void mw_on_init(void);
/* Before PMPI_Finalize, while MPI still works: builds and writes the report. */
MW_HIDDEN void mw_on_finalize(void);
/* Before PMPI_Abort: this rank's partial profile, the last (docs/partial-reports.md). */
MW_HIDDEN void mw_on_abort(int errorcode);
/* MPI_Pcontrol(level): 0 off, 1 on, 2 on and flush; others act like 1. */
MW_HIDDEN void mw_on_pcontrol(int level);

#endif
