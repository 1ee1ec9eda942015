/* The OTF2 archive at MPI_Finalize (trace/otf2_archive.h). It is written by
 * the client's converter (client/trace_otf2.c, compiled into libmpiwatch
 * too), by every rank (client/otf2_parallel.c shares its parts) or by rank
 * 0 alone, so an archive written at MPI_Finalize and one converted
 * afterwards by `mpiwatch --trace DIR --otf2 OUT` read the same. */
#include "trace/otf2_archive.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../client/trace_otf2.h"
#include "../../client/trace_read.h"
#include "core/state.h"
#include "core/warn.h"
#include "core/yielding_collectives.h"
#include "trace/otf2_collectives.h"
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

void mw_trace_otf2_archive(int reduced, int ranks_traced)
{
    /* Tracing is on everywhere or nowhere (lifecycle/settings_agreement.c):
     * an untraced job skips the collective below. */
    if (!mw_state.config.trace)
        return;
    const char *run = mw_trace_run(), *own = mw_trace_file();
    char out[4700];
    if (run != NULL)
        snprintf(out, sizeof out, "%s.otf2", run);
    /* Every rank in parallel when every rank has its file; else rank 0 alone. */
    int ready = reduced && mwc_trace_otf2_built && run != NULL && own != NULL &&
                mw_state.config.trace_otf2, everyone = 0;
    if (mw_allreduce(&ready, &everyone, 1, MPI_INT, MPI_MIN, mw_private_comm()) ==
            MPI_SUCCESS && everyone) {
        if (mw_trace_otf2_parallel(own, out, mw_private_comm()) != 0)
            mw_warn("rank %d's part of the trace's OTF2 archive %s/traces.otf2 was not written "
                    "whole (why is said above); the per-rank files are kept: `mpiwatch --trace "
                    "%s --otf2 DIR` converts them again", mw_state.world_rank, out, run);
        return;
    }
    if (!reduced || !mwc_trace_otf2_built || run == NULL || !mw_state.config.trace_otf2 ||
        mw_state.world_rank != 0)
        return;
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
