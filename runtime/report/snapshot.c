/* MPI_Pcontrol(2): "flush" the profile. MPI_Pcontrol is not collective, so
 * each rank that calls it writes a snapshot of its own profile so far, in
 * the report formats, named ...-rank<R>-snapshot<K>. */
#include "core/clock.h"
#include "report/report.h"
#include "core/state.h"

void mw_snapshot(void)
{
    static int count;
    static mw_job_summary job;

    if (!mw_state.started || mw_state.finished || mw_state.config.formats == 0)
        return;
    mw_report_local(mw_clock_seconds(mw_now() - mw_app_start()), &job);
    job.snapshot = ++count;
    job.program = mw_state.program;
    job.timer = mw_clock_name();
    mw_report_write(&job, mw_state.config.outdir);
    mw_report_free(&job);
}
