/* The trace's OTF2 archive written by every rank at MPI_Finalize
 * (client/otf2_parallel.h), its collectives over the runtime's private
 * communicator. Compiled into client/libmwotf2.la, with OTF2's flags. */
#ifndef MW_TRACE_OTF2_COLLECTIVES_H
#define MW_TRACE_OTF2_COLLECTIVES_H

#include <mpi.h>

#include "core/compiler.h"

/* This rank's part of the archive out/traces.otf2, path its trace file;
 * every rank of comm calls it. 0 written, 1 not (said on stderr). */
MW_HIDDEN int mw_trace_otf2_parallel(const char *path, const char *out, MPI_Comm comm);

#endif
