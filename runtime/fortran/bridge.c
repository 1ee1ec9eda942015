/* What libmpiwatch gives its Fortran library (see fortran/bridge.h): the
 * re-entry guard, the clock and the life-cycle calls, behind exported
 * functions, since the Fortran entry points live in another library. */
#include <string.h>

#include "fortran/bridge.h"
#include "fortran/calls.h"
#include "fortran/convert.h"
#include "mw_functions.h"
#include "core/handles.h"
#include "core/mode.h"
#include "core/state.h"
#include "core/warn.h"
#include "mw_wrap.h"

/* The call in flight on this thread. The guard admits one profiled call per
 * thread at a time, so one slot per thread is enough. */
static _Thread_local mw_call mw_fcall MW_TLS_MODEL;

/* Nonzero when an attached Fortran library was generated for another
 * function table: its calls are forwarded but not counted. */
static int mw_fortran_refused;

int mpiwatch_fortran_attach(int fn_count, const char *mpi, const char *layering)
{
    if (fn_count != MW_FN_COUNT || mpi == NULL || strcmp(mpi, mw_mpi_description) != 0) {
        if (!mw_fortran_refused)
            mw_warn("the Fortran library was generated for another build (%d functions, %s; "
                    "this libmpiwatch has %d, %s): Fortran calls are not profiled",
                    fn_count, mpi ? mpi : "?", MW_FN_COUNT, mw_mpi_description);
        mw_fortran_refused = 1;
        mw_mode_fortran_slow_only = 1;   /* the fast bodies do not check */
        mw_mode_update();
        return 0;
    }
    mw_fortran_layers = layering;
    return 1;
}

void mpiwatch_fortran_slots(const mw_fortran_slot *slots, int count)
{
    /* A refused library's slots stay at its profiled bodies, which forward
     * its calls uncounted. */
    if (!mw_fortran_refused)
        mw_mode_add_fortran_slots(slots, count);
}

/* Between MPI_Init and the report, the MPI converts handles (Open MPI's
 * _f2c functions abort outside that span). */
static inline int mw_fortran_ready_now(void)
{
    return mw_state.started && !mw_state.finished;
}

int mpiwatch_fortran_enter(int id)
{
    if (MW_UNLIKELY(mw_fortran_refused) || !mw_enter())
        return 0;
    /* The function only: its arguments are Fortran's until the call returns
     * (no communicator published: no peer, tag or root either). */
    mw_publish_args(MW_SLOW, MW_INFLIGHT_HAS_COMM, 0, 0, 0, 0);
    mw_publish(MW_SLOW, id);
    mw_start(&mw_fcall);
    mw_publish_time(MW_SLOW, &mw_fcall);
    return MW_LIKELY(mw_fortran_ready_now()) ? MW_F_READY : MW_F_COUNT_ONLY;
}

int mpiwatch_fortran_ready(void)
{
    return !mw_fortran_refused && mw_fortran_ready_now();
}

void mpiwatch_fortran_exit(int id, const void *site)
{
    mw_stop(&mw_fcall);
    if (MW_UNLIKELY(id < 0 || id >= MW_FN_COUNT)) {
        mw_unpublish(MW_SLOW);
        mw_guard_release();
        return;
    }
    mw_exit_at(&mw_fcall, id, site);
}

void mw_fortran_stop_clock(mw_call *call)
{
    mw_stop(&mw_fcall);
    call->t_in = mw_fcall.t_in;
    call->t_out = mw_fcall.t_out;
}

void mw_fortran_restart_clock(void)
{
    mw_start(&mw_fcall);
}

void mpiwatch_fortran_after_init(int profiled, int id)
{
    int initialized = 0;

    if (profiled)
        mw_stop(&mw_fcall);
    if (PMPI_Initialized(&initialized) == MPI_SUCCESS && initialized)
        mw_on_init();
    if (profiled) {
        if (id >= 0 && id < MW_FN_COUNT) {
            mw_exit(&mw_fcall, id);
        } else {
            mw_unpublish(MW_SLOW);
            mw_guard_release();
        }
    }
}

int mpiwatch_fortran_before_finalize(int id, const void *site)
{
    if (!mw_fortran_refused && id >= 0 && id < MW_FN_COUNT && mw_enter()) {
        mw_start(&mw_fcall);
        mw_fcall.t_out = mw_fcall.t_in;
        mw_exit_at(&mw_fcall, id, site);
    }
    mw_on_finalize();
    return mpiwatch_fortran_hold();
}

int mpiwatch_fortran_before_abort(int id, const void *site, const void *errorcode)
{
    if (!mw_fortran_refused && id >= 0 && id < MW_FN_COUNT && mw_enter()) {
        mw_start(&mw_fcall);
        mw_fcall.t_out = mw_fcall.t_in;
        mw_exit_at(&mw_fcall, id, site);
    }
#if MW_MPI_FORTRAN
    mw_on_abort(errorcode != NULL ? (int)*(const MPI_Fint *)errorcode : 0);
#else   /* no MPI_Fint (the MPI 5.0 ABI): no Fortran library calls this */
    mw_on_abort(errorcode != NULL ? *(const int *)errorcode : 0);
#endif
    return mpiwatch_fortran_hold();
}

int mpiwatch_fortran_hold(void)
{
    return mw_enter_guard();
}

void mpiwatch_fortran_release(void)
{
    mw_guard_release();
}

int mpiwatch_fortran_comm_peers(MPI_Comm comm)
{
    mw_thread *t = mw_thread_self();
    return t ? mw_comm_peer_size(t, comm) : 0;
}

void mpiwatch_fortran_pcontrol(int level)
{
    mw_on_pcontrol(level);
}

void mpiwatch_fortran_note_sentinel(int kind, intptr_t address)
{
    mw_f_note_sentinel(kind, address);
}

void mw_fortran_targets_mismatch(const char *binding, int count, int expected)
{
    mw_warn("the Fortran library's %s binding has %d fast entry points, this libmpiwatch "
            "%d: its calls are profiled the slow way", binding, count, expected);
    mw_mode_fortran_slow_only = 1;
    mw_mode_update();
}

_Thread_local mw_f_cache mw_fcache MW_TLS_MODEL;

void mw_f_cache_refresh(void)
{
    memset(&mw_fcache, 0, sizeof mw_fcache);
    mw_fcache.gen = __atomic_load_n(&mw_handle_gen, __ATOMIC_RELAXED);
}

#if MW_MPI_FORTRAN
#ifndef PMPI_Comm_f2c
MPI_Comm mw_f_comm_miss(MPI_Fint f)
{
    MPI_Comm c = PMPI_Comm_f2c(f);
    if ((unsigned)f < MW_F_CACHE && c != MPI_COMM_NULL)
        mw_fcache.comm[f] = c;
    return c;
}
#endif

#ifndef PMPI_Type_f2c
MPI_Datatype mw_f_type_miss(MPI_Fint f)
{
    MPI_Datatype t = PMPI_Type_f2c(f);
    if ((unsigned)f < MW_F_CACHE && t != MPI_DATATYPE_NULL)
        mw_fcache.type[f] = t;
    return t;
}
#endif
#endif
