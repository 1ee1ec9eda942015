/* The OTF2 archive at MPI_Finalize (trace/otf2_archive.h). It is written by
 * the client's converter (client/trace_otf2.c, compiled into libmpiwatch
 * too), so an archive written at MPI_Finalize and one converted afterwards
 * by `mpiwatch --trace DIR --otf2 OUT` are the same by construction. */
#include "trace/otf2_archive.h"

#include <stdio.h>

#include "../../client/trace_otf2.h"
#include "core/state.h"
#include "core/warn.h"
#include "trace/trace.h"

void mw_trace_otf2_archive(void)
{
    const char *run = mw_trace_run();
    if (!mwc_trace_otf2_built || run == NULL || !mw_state.config.trace_otf2 ||
        mw_state.world_rank != 0)
        return;
    char out[4700];
    snprintf(out, sizeof out, "%s.otf2", run);
    if (mwc_trace_otf2(run, out, NULL, 1) != 0)
        mw_warn("the trace's OTF2 archive %s/traces.otf2 was not written whole (why is said "
                "above); the per-rank files are kept: `mpiwatch --trace %s --otf2 DIR` converts "
                "them again", out, run);
}
