/* Where MPI_Finalize's time goes: the report's phases timed on each rank,
 * printed by rank 0 when MPIWATCH_REPORT_TIMING=1 (bench/run-finalize.sh
 * shows them). Costs two clock reads per phase, once per job. */
#ifndef MW_REPORT_PHASES_H
#define MW_REPORT_PHASES_H

#include <stddef.h>

#include "core/compiler.h"

/* Start timing (at MPI_Finalize): notes the peak memory so far. */
MW_HIDDEN void mw_phase_begin(void);

/* The time since the previous mark (or the first) is the phase called name. */
MW_HIDDEN void mw_phase_mark(const char *name);

/* Bytes rank 0 received for the call sites (added by their merge). */
MW_HIDDEN void mw_phase_received(size_t bytes);

/* Memory the call-site merge holds: + when allocated, - when freed; the
 * largest total is printed. */
MW_HIDDEN void mw_phase_hold(long long bytes);

/* On rank 0 with MPIWATCH_REPORT_TIMING=1: one line to stderr with each
 * phase in ms, the bytes received and the process's peak memory. */
MW_HIDDEN void mw_phase_print(void);

#endif
