/* Stale handed words: see core/handoff.h. */
#include "core/handoff.h"
#include "core/mode.h"
#include "core/warn.h"

void mw_handoff_stale(void)
{
    if (mw_mode_forbid_handoff())
        mw_warn("a Fortran call handed to the MPI's binding did not reach its C wrapper "
                "(the profiling mode changed during the call?); it may be missing from the "
                "report, and Fortran calls are counted by their own entry points from now on");
}
