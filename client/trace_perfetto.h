/* mpiwatch --trace DIR --perfetto OUT.json: a run's per-rank trace files as
 * Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing): one process
 * per rank, one thread per traced thread, a slice per call with its
 * arguments, and a flow arrow from each send to the receive that matched
 * it (docs/trace.md, "The converter"). */
#ifndef MWC_TRACE_PERFETTO_H
#define MWC_TRACE_PERFETTO_H

#include "timeline_select.h"

/* Only the calls sel takes (--ranks, --window: their ranks' processes, and
 * the arrows between two calls taken); what it leaves out is said on stderr
 * and in the file's otherData. The exit status: 0 written (every file read
 * whole), 1 some file could not be read or was damaged (what could be read
 * is written), or out could not be written. */
int mwc_trace_perfetto(const char *spec, const char *out, const mwc_timeline_select *sel,
                       int quiet);

#endif
