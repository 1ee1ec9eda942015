/* The OTF2 archive at MPI_Finalize (trace/otf2_archive.h). It is written by
 * the client's converter (client/trace_otf2.c, compiled into libmpiwatch
 * too), so an archive written at MPI_Finalize and one converted afterwards
 * by `mpiwatch --trace DIR --otf2 OUT` are the same by construction. */
#include "trace/otf2_archive.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../client/trace_otf2.h"
#include "../../client/trace_read.h"
#include "core/state.h"
#include "core/warn.h"
#include "trace/trace.h"

/* How many of the run's files rank 0 sees (mwc_trace_find: the converter's). */
static int files_seen(const char *run)
{
    char err[512];
    char **paths = NULL;
    int n = mwc_trace_find(run, &paths, err, sizeof err);
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return n > 0 ? n : 0;
}

void mw_trace_otf2_archive(int ranks_traced)
{
    const char *run = mw_trace_run();
    if (!mwc_trace_otf2_built || run == NULL || !mw_state.config.trace_otf2 ||
        mw_state.world_rank != 0)
        return;
    char out[4700];
    snprintf(out, sizeof out, "%s.otf2", run);
    int seen = files_seen(run);
    int failed = mwc_trace_otf2(run, out, NULL, 1) != 0;
    if (seen < ranks_traced)
        mw_warn("the trace's OTF2 archive %s/traces.otf2 has %d of the %d ranks' files: the "
                "others are not in %s as rank 0 sees it (a folder on each host?); convert "
                "them all with `mpiwatch --trace DIR --otf2 OUT`", out, seen, ranks_traced,
                mw_state.config.trace_dir);
    else if (failed)
        mw_warn("the trace's OTF2 archive %s/traces.otf2 was not written whole (why is said "
                "above); the per-rank files are kept: `mpiwatch --trace %s --otf2 DIR` converts "
                "them again", out, run);
}
