/* Per-thread call statistics.
 *
 * Each thread that makes an MPI call gets its own table, indexed by function
 * id, so the hot path takes no lock and shares no cache line. Tables are
 * registered in a list and merged when the report is built. */
#ifndef MW_STATS_H
#define MW_STATS_H

#include <stdint.h>

#include "mw_compiler.h"

typedef struct mw_fn_stats {
    uint64_t calls;
    uint64_t ticks;      /* total time inside the call */
    uint64_t max_ticks;
    uint64_t min_inv;    /* ~min_ticks: zero-initialised tables need no set-up */
} mw_fn_stats;

typedef struct mw_thread {
    struct mw_thread *next;
    mw_fn_stats fn[];    /* MW_FN_COUNT entries */
} mw_thread;

/* This thread's table, or NULL before its first profiled call. */
extern MW_HIDDEN _Thread_local mw_thread *mw_self MW_TLS_MODEL;

/* Allocate and register this thread's table; NULL (after a warning) if that fails. */
MW_HIDDEN mw_thread *mw_thread_attach(void);

/* Sum every thread's table into out[MW_FN_COUNT] (min/max merged). */
MW_HIDDEN void mw_stats_merge(mw_fn_stats *out);

/* Zero every thread's table (the profile starts again). */
MW_HIDDEN void mw_stats_reset(void);

static inline void mw_stats_add(int id, uint64_t ticks)
{
    mw_thread *t = mw_self;
    if (MW_UNLIKELY(t == NULL) && (t = mw_thread_attach()) == NULL)
        return;
    mw_fn_stats *s = &t->fn[id];
    s->calls++;
    s->ticks += ticks;
    if (ticks > s->max_ticks)
        s->max_ticks = ticks;
    if (~ticks > s->min_inv)
        s->min_inv = ~ticks;
}

#endif
