/* The runtime's life cycle (lifecycle/lifecycle.c): the one place that
 * starts, flushes and finishes the other layers. Called by the MPI_Init,
 * MPI_Init_thread, MPI_Finalize and MPI_Pcontrol wrappers, and by the
 * Fortran bridge. */
#ifndef MW_LIFECYCLE_H
#define MW_LIFECYCLE_H

#include "core/compiler.h"

/* After a successful PMPI_Init: state, private communicator, the monitor. */
MW_HIDDEN void mw_on_init(void);
/* Before PMPI_Finalize, while MPI still works: builds and writes the report. */
MW_HIDDEN void mw_on_finalize(void);
/* MPI_Pcontrol(level): 0 off, 1 on, 2 on and flush; others act like 1. */
MW_HIDDEN void mw_on_pcontrol(int level);

#endif
