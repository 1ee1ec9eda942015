/* Dispatch of the wrappers: see core/mode.h. */
#include <pthread.h>

#include "core/callstacks.h"
#include "core/clock.h"
#include "core/mode.h"
#include "core/state.h"

static pthread_mutex_t mode_lock = PTHREAD_MUTEX_INITIALIZER;
static int monitor_on;

/* Profiling is on at load (mw_level starts at 1): the slow way is right in
 * every case, as the slots' starting point. */
int mpiwatch_fortran_mode = MW_FMODE_SLOW;
int mw_mode_fortran_slow_only;

static void apply_locked(void)
{
    int level = __atomic_load_n(&mw_level, __ATOMIC_RELAXED);
    /* Deeper call sites unwind the stack: only the slow body does that. */
    int tsc = mw_clock_use_tsc && MW_HAVE_TSC && mw_callsite_depth == 1;
    for (int i = 0; i < MW_FN_COUNT; i++) {
        const mw_impl *f = mw_impls[i];
        if (f == NULL)
            continue;
        mw_fn to = !level ? f->quiet : !tsc ? f->slow : monitor_on ? f->watched : f->fast;
        __atomic_store_n(f->slot, to, __ATOMIC_RELAXED);
    }
    int fortran = !level ? MW_FMODE_OFF
                  : tsc && !monitor_on && !mw_mode_fortran_slow_only && mw_state.started &&
                            !mw_state.finished
                      ? MW_FMODE_FAST
                      : MW_FMODE_SLOW;
    __atomic_store_n(&mpiwatch_fortran_mode, fortran, __ATOMIC_RELAXED);
}

void mw_mode_update(void)
{
    pthread_mutex_lock(&mode_lock);
    apply_locked();
    pthread_mutex_unlock(&mode_lock);
}

void mw_mode_set_monitor(int on)
{
    pthread_mutex_lock(&mode_lock);
    monitor_on = on != 0;
    apply_locked();
    pthread_mutex_unlock(&mode_lock);
}
