/* What the generated generated/fortran_calls.c uses of the bridge: a
 * Fortran call's clock lives in the bridge (its entry point started it
 * through mpiwatch_fortran_enter), and the generated functions that finish
 * the call with the C wrapper's statements read it here. Internal to
 * libmpiwatch. */
#ifndef MW_FORTRAN_CALLS_H
#define MW_FORTRAN_CALLS_H

#include "core/compiler.h"
#include "traffic/traffic.h"

/* Stop the clock of this thread's Fortran call: call gets its times in and out. */
MW_HIDDEN void mw_fortran_stop_clock(mw_call *call);

/* Start it again (after the before-hooks, which are not timed). */
MW_HIDDEN void mw_fortran_restart_clock(void);

#endif
