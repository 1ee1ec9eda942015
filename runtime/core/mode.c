/* Dispatch of the wrappers: see core/mode.h. */
#include <pthread.h>
#include <stdlib.h>

#include "core/callstacks.h"
#include "core/clock.h"
#include "core/mode.h"
#include "core/state.h"

static pthread_mutex_t mode_lock = PTHREAD_MUTEX_INITIALIZER;
static int monitor_on;
static int trace_on;
static int trace_inline;   /* the traced body may record (no limit in force) */

/* Profiling is on at load (mw_level starts at 1): the slow way is right in
 * every case, as the slots' starting point. */
int mpiwatch_fortran_mode = MW_FMODE_SLOW;
int mw_mode_fortran_slow_only;

/* The Fortran libraries' slot tables (one per binding). */
enum { MW_FORTRAN_SLOT_TABLES = 8 };
static struct {
    const mw_fortran_slot *slots;
    int count;
    unsigned char *handed;   /* per entry: its binding reaches the C wrapper (probed) */
} fortran_tables[MW_FORTRAN_SLOT_TABLES];
static int fortran_table_count;
static int handoff_forbidden;   /* a stale handed word was found (core/handoff.h) */

static void point_fortran_slots(int table, int fortran)
{
    const mw_fortran_slot *s = fortran_tables[table].slots;
    const unsigned char *handed = fortran_tables[table].handed;
    for (int i = 0; i < fortran_tables[table].count; i++) {
        void *to = s[i].way[fortran];
        if (fortran == MW_FMODE_FAST && !handoff_forbidden && handed != NULL && handed[i] &&
            s[i].handoff != NULL)
            to = s[i].handoff;
        __atomic_store_n(s[i].slot, to, __ATOMIC_RELAXED);
    }
}

static void apply_locked(void)
{
    int level = __atomic_load_n(&mw_level, __ATOMIC_RELAXED);
    /* Deeper call sites unwind the stack: only the slow body does. The trace
     * takes every call: the traced body with the TSC, no monitor and no
     * limit, else the slow one (and the Fortran bodies' slow way). */
    int tsc_ok = mw_clock_use_tsc && MW_HAVE_TSC && mw_callsite_depth == 1;
    int traced = tsc_ok && trace_on && trace_inline && !monitor_on;
    int tsc = tsc_ok && !trace_on;
    for (int i = 0; i < MW_FN_COUNT; i++) {
        const mw_impl *f = mw_impls[i];
        if (f == NULL)
            continue;
        mw_fn to = !level    ? f->quiet
                   : traced  ? f->traced
                   : !tsc    ? f->slow
                   : monitor_on ? f->watched
                                : f->fast;
        __atomic_store_n(f->slot, to, __ATOMIC_RELAXED);
    }
    int fortran = !level ? MW_FMODE_OFF
                  : tsc && !monitor_on && !mw_mode_fortran_slow_only && mw_state.started &&
                            !mw_state.finished
                      ? MW_FMODE_FAST
                      : MW_FMODE_SLOW;
    __atomic_store_n(&mpiwatch_fortran_mode, fortran, __ATOMIC_RELAXED);
    for (int t = 0; t < fortran_table_count; t++)
        point_fortran_slots(t, fortran);
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

void mw_mode_set_trace(int on, int inline_record)
{
    pthread_mutex_lock(&mode_lock);
    trace_on = on != 0;
    trace_inline = inline_record != 0;
    apply_locked();
    pthread_mutex_unlock(&mode_lock);
}

void mw_mode_add_fortran_slots(const mw_fortran_slot *slots, int count)
{
    pthread_mutex_lock(&mode_lock);
    /* More tables than bindings: a library loaded twice keeps its slots
     * where they start (the profiled body), which is right in every mode. */
    if (slots != NULL && count > 0 && fortran_table_count < MW_FORTRAN_SLOT_TABLES) {
        fortran_tables[fortran_table_count].slots = slots;
        fortran_tables[fortran_table_count].count = count;
        fortran_tables[fortran_table_count].handed = calloc((size_t)count, 1);   /* NULL: no hand-over */
        point_fortran_slots(fortran_table_count++, __atomic_load_n(&mpiwatch_fortran_mode, __ATOMIC_RELAXED));
    }
    pthread_mutex_unlock(&mode_lock);
}

void mw_mode_fortran_handed(const void *handoff)
{
    pthread_mutex_lock(&mode_lock);
    for (int t = 0; t < fortran_table_count; t++) {
        const mw_fortran_slot *s = fortran_tables[t].slots;
        for (int i = 0; i < fortran_tables[t].count; i++)
            if (s[i].handoff == handoff && fortran_tables[t].handed != NULL)
                fortran_tables[t].handed[i] = 1;
        point_fortran_slots(t, __atomic_load_n(&mpiwatch_fortran_mode, __ATOMIC_RELAXED));
    }
    pthread_mutex_unlock(&mode_lock);
}

int mw_mode_forbid_handoff(void)
{
    pthread_mutex_lock(&mode_lock);
    int was_used = 0;
    for (int t = 0; t < fortran_table_count; t++)
        for (int i = 0; i < fortran_tables[t].count; i++)
            was_used |= fortran_tables[t].handed != NULL && fortran_tables[t].handed[i];
    int now = was_used && !handoff_forbidden;
    if (now) {
        handoff_forbidden = 1;
        apply_locked();
    }
    pthread_mutex_unlock(&mode_lock);
    return now;
}
