/* The trace's OTF2 archive written at MPI_Finalize (docs/trace.md, "OTF2"). */
#ifndef MW_TRACE_OTF2_ARCHIVE_H
#define MW_TRACE_OTF2_ARCHIVE_H

#include "core/compiler.h"

/* On every rank, once every rank has closed its trace file (after the
 * report's reduction; reduced: it succeeded on this rank; ranks_traced:
 * how many ranks wrote a file, on rank 0): the run's per-rank files as the
 * archive "<folder>/<name>.otf2/traces.otf2", unless MPIWATCH_TRACE_OTF2=0
 * or this build has no OTF2. When every rank has its file, each writes its
 * own locations' event files and rank 0 the definitions (an MPI_MIN
 * reduction of one int decides, on every job); else rank 0 converts every
 * file it sees. A failure, or files rank 0 does not see, warns once; the
 * job and its report go on. */
MW_HIDDEN void mw_trace_otf2_archive(int reduced, int ranks_traced);

#endif
