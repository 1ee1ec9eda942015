/* mpiwatch --trace DIR --otf2 OUT: a run's per-rank trace files as an OTF2
 * archive (OUT/traces.otf2, for Vampir, Scalasca, otf2-print): a location
 * group per rank, a location per traced thread, a region per MPI function,
 * each communicator with its own group (otf2_comms.h), and the MPI events
 * OTF2 defines (docs/trace.md, "OTF2"). */
#ifndef MWC_TRACE_OTF2_H
#define MWC_TRACE_OTF2_H

/* The exit status: 0 written (every file read whole), 1 some file could not
 * be read or was damaged (what could be read is written), the archive could
 * not be written, or this mpiwatch was built without OTF2. program: the
 * traced executable, whose call sites become source code locations (NULL:
 * none; one that cannot name them is said on stderr, and not an error). */
int mwc_trace_otf2(const char *spec, const char *out, const char *program, int quiet);

/* 1 when this build has OTF2 (mwc_trace_otf2 writes archives), else 0. */
extern const int mwc_trace_otf2_built;

#endif
