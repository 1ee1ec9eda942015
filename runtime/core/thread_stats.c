/* Registry of the per-thread statistics blocks. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/thread_stats.h"
#include "core/warn.h"


static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static mw_thread *registry;

mw_thread *mw_thread_attach(void)
{
    static int warned;
    mw_thread *t = calloc(1, sizeof *t + (size_t)MW_FN_COUNT * sizeof t->fn[0]);
    if (t == NULL) {
        if (!warned++)
            mw_warn("out of memory for a thread's statistics; its calls are not profiled");
        return NULL;
    }
    for (int i = 0; i < MW_FN_COUNT; i++)
        t->fn[i].min_ticks = UINT64_MAX;
    pthread_mutex_lock(&registry_lock);
    t->next = registry;
    registry = t;
    pthread_mutex_unlock(&registry_lock);
    mw_self = t;
    mw_depth = 0;   /* was MW_GUARD_NEW: an attached thread is never inside a call */
    return t;
}

int mw_guard_contended(void)
{
    if (mw_self != NULL || mw_thread_attach() == NULL)
        return 0;   /* nested; or no memory, and the guard stays MW_GUARD_NEW */
    mw_depth = 1;
    return 1;
}

void mw_threads_each(void (*fn)(mw_thread *t, void *arg), void *arg)
{
    pthread_mutex_lock(&registry_lock);
    for (mw_thread *t = registry; t != NULL; t = t->next)
        fn(t, arg);
    pthread_mutex_unlock(&registry_lock);
}

/* Other threads may be updating their tables (the monitor's periodic
 * snapshots): relaxed atomic loads, plain moves on x86. */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static void merge_one(mw_thread *t, void *arg)
{
    mw_fn_stats *out = arg;
    for (int i = 0; i < MW_FN_COUNT; i++) {
        const mw_fn_stats *s = &t->fn[i];
        uint64_t max = LOAD(s->max_ticks), min = LOAD(s->min_ticks);
        out[i].calls += LOAD(s->calls);
        out[i].ticks += LOAD(s->ticks);
        out[i].sent += LOAD(s->sent);
        out[i].recv += LOAD(s->recv);
        if (max > out[i].max_ticks)
            out[i].max_ticks = max;
        if (min < out[i].min_ticks)
            out[i].min_ticks = min;
    }
}

void mw_stats_merge(mw_fn_stats *out)
{
    memset(out, 0, (size_t)MW_FN_COUNT * sizeof *out);
    for (int i = 0; i < MW_FN_COUNT; i++)
        out[i].min_ticks = UINT64_MAX;
    mw_threads_each(merge_one, out);
}
