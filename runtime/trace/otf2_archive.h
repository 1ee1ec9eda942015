/* The trace's OTF2 archive written at MPI_Finalize (docs/trace.md, "OTF2"). */
#ifndef MW_TRACE_OTF2_ARCHIVE_H
#define MW_TRACE_OTF2_ARCHIVE_H

#include "core/compiler.h"

/* On rank 0, once every rank has closed its trace file (after the report's
 * reduction, which says how many ranks wrote one: ranks_traced): the run's
 * per-rank files as the archive "<folder>/<name>.otf2/traces.otf2", unless
 * MPIWATCH_TRACE_OTF2=0 or this build has no OTF2. A failure, or files rank
 * 0 does not see, warns once; the job and its report go on. */
MW_HIDDEN void mw_trace_otf2_archive(int ranks_traced);

#endif
