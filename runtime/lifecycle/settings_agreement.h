/* The settings every rank must share, agreed on at MPI_Init. */
#ifndef MW_SETTINGS_AGREEMENT_H
#define MW_SETTINGS_AGREEMENT_H

#include "core/compiler.h"

/* Collective over MPI_COMM_WORLD, in mw_on_init before the trace and the
 * monitor start: a setting that makes collective calls (MPIWATCH_TRACE,
 * the monitor's publishing, MPIWATCH_NODE_SIZE) and differs between the
 * ranks is turned off on every rank, with one warning from rank 0. */
MW_HIDDEN void mw_settings_agree(void);

#endif
