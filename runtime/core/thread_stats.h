/* Per-thread statistics.
 *
 * Each thread that makes an MPI call gets its own block: a table indexed by
 * function id, its handle caches, its bytes per destination rank and its
 * message-size histograms. The hot path takes no lock and shares no cache
 * line. Blocks are registered in a list and merged when the report is built. */
#ifndef MW_STATS_H
#define MW_STATS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"
#include "mw_functions.h"
#include "core/tls.h"

/* Histogram bucket b >= 1 holds messages of [2^(b-1), 2^b) bytes; 0 holds empty ones. */
#define MW_HIST_BUCKETS 48
#define MW_TYPE_CACHE 64      /* datatype sizes, per thread, direct-mapped */
#define MW_GROUP_CACHE 16     /* communicator/window rank maps, per thread */

typedef struct mw_fn_stats {
    uint64_t calls;
    uint64_t ticks;      /* total time inside the call */
    uint64_t max_ticks;
    uint64_t min_ticks;  /* UINT64_MAX before the first call (set when the table is made) */
    uint64_t sent;       /* bytes sent (or written) */
    uint64_t recv;       /* bytes received (or read) */
} mw_fn_stats;

typedef struct mw_type_slot {
    MPI_Datatype type;
    int64_t size;
    unsigned gen;        /* mw_handle_gen when cached; stale entries miss */
} mw_type_slot;

typedef struct mw_group_slot {
    uintptr_t key;       /* the handle (tagged by kind); 0 = empty */
    unsigned gen;
    int size;            /* of the group peers are ranks in (remote group for intercomms) */
    int *world;          /* world rank of each rank, or NULL when identical */
} mw_group_slot;

typedef struct mw_thread {
    struct mw_thread *next;
    mw_type_slot types[MW_TYPE_CACHE];
    mw_group_slot groups[MW_GROUP_CACHE];
    uint64_t *sent_to;   /* bytes sent to each world rank (after MPI_Init), or NULL */
    uint64_t *msgs_to;   /* messages sent to each world rank */
    int world_size;      /* length of sent_to/msgs_to */
    uint64_t *hist[MW_FN_COUNT];   /* per function, allocated on its first message */
    struct mw_regions *regions;    /* allocated at the thread's first region */
    mw_fn_stats fn[];    /* MW_FN_COUNT entries */
} mw_thread;



/* Allocate and register this thread's block; NULL (after a warning) if that fails. */
MW_HIDDEN mw_thread *mw_thread_attach(void);

/* Call fn on every thread's block, under the registry lock. */
MW_HIDDEN void mw_threads_each(void (*fn)(mw_thread *t, void *arg), void *arg);

/* Sum every thread's table into out[MW_FN_COUNT] (min/max merged; min_ticks
 * stays UINT64_MAX for a function never called). */
MW_HIDDEN void mw_stats_merge(mw_fn_stats *out);

static inline mw_thread *mw_thread_self(void)
{
    mw_thread *t = mw_self;
    if (MW_UNLIKELY(t == NULL))
        t = mw_thread_attach();
    return t;
}

/* Take the guard when it is not plainly free: 1 for a thread's first call
 * (its statistics are attached), 0 for a nested call or no memory. */
MW_HIDDEN int mw_guard_contended(void);

/* Only inside the guard, where mw_self is set (core/tls.h). */
static inline void mw_stats_add(int id, uint64_t ticks)
{
    mw_fn_stats *s = &mw_self->fn[id];
    s->calls++;
    s->ticks += ticks;
    if (ticks > s->max_ticks)
        s->max_ticks = ticks;
    if (ticks < s->min_ticks)
        s->min_ticks = ticks;
}

#endif
