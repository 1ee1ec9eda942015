/* The trace's user limits (docs/trace.md, "Using it"): MPIWATCH_TRACE_WINDOW
 * (seconds after MPI_Init) and MPIWATCH_TRACE_FUNCTIONS (names and
 * categories of the function table, included or excluded). The recorder
 * skips a call they leave out; the file's header says which applied. */
#ifndef MW_TRACE_LIMITS_H
#define MW_TRACE_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"

/* Read both variables; a bad value is warned about if loud, and that limit
 * is not applied. */
MW_HIDDEN void mw_trace_limits_load(int loud);

/* At the trace's start: the window in ticks from the clock origin. */
MW_HIDDEN void mw_trace_limits_begin(uint64_t origin, double ticks_per_second);

/* Is any limit in force (set by mw_trace_limits_begin)? The recorder asks
 * mw_trace_limits_skip only then. */
extern MW_HIDDEN int mw_trace_limited;

/* Does a call of function id entered at tick t_in lie outside the limits? */
MW_HIDDEN int mw_trace_limits_skip(int id, uint64_t t_in);

/* The limits in force, "VARIABLE=value" lines, "" for none: for the file. */
MW_HIDDEN const char *mw_trace_limits_text(void);

#endif
