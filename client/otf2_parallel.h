/* The OTF2 archive written by every rank at MPI_Finalize (docs/trace.md,
 * "OTF2"): each rank reads its own trace file and writes its locations'
 * event files, rank 0 the global definitions, through OTF2's collective
 * callbacks (the caller's, over the job's ranks). The ranks exchange what
 * the definitions need: the clock's base, the functions and communicators
 * each rank's events name in the order of their first use, which rank 0
 * numbers as the serial converter does (rank by rank), and each rank's
 * locations; each rank maps its own numbers to the job's with OTF2 mapping
 * tables. The archive reads as `mpiwatch --trace DIR --otf2 OUT` writes it
 * (trace_otf2.c, whose parts it shares: trace_otf2_parts.h). */
#ifndef MWC_OTF2_PARALLEL_H
#define MWC_OTF2_PARALLEL_H

#include <otf2/otf2.h>

/* Rank rank's part of the archive out/traces.otf2 of a job of size ranks;
 * path: its trace file. Every rank calls it, and takes part in every
 * collective whatever fails: a rank whose file cannot be read or whose
 * events cannot be written says why on stderr and its locations are empty.
 * 0: written whole; 1: this rank's part was not (or the archive could not
 * be made: said). */
int mwc_trace_otf2_rank(const char *path, const char *out, int rank, int size,
                        const OTF2_CollectiveCallbacks *cb, void *data,
                        OTF2_CollectiveContext *global);

#endif
