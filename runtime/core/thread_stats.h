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

/* Histogram bucket b >= 1 holds messages of [2^(b-1), 2^b) bytes; 0 holds empty ones;
 * the last one also holds every larger message. */
#define MW_HIST_BUCKETS 48
/* A thread counts into one bucket per bit of a size, so that the call path
 * finds the bucket with one bsr and no clamp (mw_size_bucket); the buckets
 * from MW_HIST_BUCKETS - 1 up are merged into the last when read
 * (mw_hist_bucket_of, mw_sizes_fold). */
#define MW_HIST_SLOTS 64
#define MW_TYPE_BITS 6
#define MW_TYPE_CACHE (1 << MW_TYPE_BITS)     /* datatype sizes, per thread, direct-mapped */
#define MW_GROUP_BITS 4
#define MW_GROUP_CACHE (1 << MW_GROUP_BITS)   /* communicator/window facts, per thread */

typedef struct mw_fn_stats {
    uint64_t calls;
    uint64_t ticks;      /* total time inside the call */
    uint64_t max_ticks;
    uint64_t min_ticks;  /* UINT64_MAX before the first call (set when the table is made) */
    uint64_t sent;       /* bytes sent (or written) */
    uint64_t recv;       /* bytes received (or read) */
    uint64_t sizes;      /* bit b set: a message of histogram slot b (a call site's sizes;
                          * read through mw_sizes_fold) */
} mw_fn_stats;

/* The report's bucket of a thread's histogram slot. */
static inline int mw_hist_bucket_of(int slot)
{
    return slot < MW_HIST_BUCKETS ? slot : MW_HIST_BUCKETS - 1;
}

/* A sizes mask of slots as a mask of the report's buckets. */
static inline uint64_t mw_sizes_fold(uint64_t sizes)
{
    const uint64_t last = 1ull << (MW_HIST_BUCKETS - 1);
    return sizes >= last ? (sizes & (last - 1)) | last : sizes;
}

/* Call sites: the statistics of each (function, return address into the
 * caller) pair, in a per-thread open-addressing table. A call whose site
 * finds the table full is counted in its function's own entry (fn[id],
 * "other sites"), so the sites and fn[] together hold every call once. */
#define MW_SITE_BITS 10
#define MW_SITES (1 << MW_SITE_BITS)
#define MW_SITE_PROBES 16     /* slots tried after the home slot, out of line */

typedef struct mw_site {
    mw_fn_stats s;       /* first: a found site is its statistics, no offset to add */
    uint64_t key;        /* return address + (function id << 48); 0 = empty */
} mw_site;

_Static_assert(sizeof(mw_site) == 64, "a call site fills one cache line");

/* Cached entries are valid for the mw_handle_gen in mw_thread.handles_gen
 * (core/handles.h): a thread that finds it changed empties its caches first. */

typedef struct mw_group_slot {
    uintptr_t key;       /* the handle (tagged by kind); 0 = empty */
    unsigned gen;        /* mw_handle_gen when filled, for mw_comm_peek */
    int size;            /* of the group peers are ranks in (remote group for intercomms);
                          * 0 when unknown */
    const int *world;    /* world rank of each of the size ranks (mw_identity_map when
                          * identical, shared and never freed) */
    int rank;            /* this process's rank in the communicator; -1 for windows */
    int inter;           /* an intercommunicator */
} mw_group_slot;

typedef struct mw_thread {
    struct mw_thread *next;
    /* The thread's TLS block while it lives (NULL once it has exited), for
     * the monitor's view of its call in progress; under the registry lock. */
    struct mw_tls_block *tls;
    uint32_t number;     /* threads numbered in the order of their first MPI call */
    unsigned handles_gen;          /* mw_handle_gen the caches below are valid for */
    /* Datatype sizes: slot i holds type_key[i] (MPI_DATATYPE_NULL when empty)
     * and its size type_size[i], in two arrays so that one scaled index
     * reaches both. */
    MPI_Datatype type_key[MW_TYPE_CACHE];
    int64_t type_size[MW_TYPE_CACHE];
    mw_group_slot groups[MW_GROUP_CACHE];
    /* Bytes and messages sent to each world rank d: pairs[2d] and pairs[2d + 1]
     * (one base for both). Allocated when the thread attaches after MPI_Init,
     * else at its first message to a peer; NULL (world_size 0) before. */
    uint64_t *pairs;
    int world_size;      /* pairs holds 2 x world_size counters */
    /* Per function, its message-size histogram (MW_HIST_SLOTS counts): all allocated when the thread
     * attaches (one zeroed block, its pages touched only when used), so that
     * the call path never tests them. */
    uint64_t *hist[MW_FN_COUNT];
    struct mw_regions *regions;    /* allocated at the thread's first region */
    unsigned nsites;               /* call sites in use, listed in site_used */
    uint64_t sites_full;           /* calls counted in fn[] because the table was full */
    uint16_t site_used[MW_SITES];  /* the slots in use, in the order they were taken */
    _Alignas(64) mw_site sites[MW_SITES];
    mw_fn_stats fn[];    /* MW_FN_COUNT entries: calls not kept by call site */
} mw_thread;




/* Allocate and register this thread's block; NULL (after a warning) if that fails. */
MW_HIDDEN mw_thread *mw_thread_attach(void);

/* Allocate t's bytes and messages per destination once MPI_COMM_WORLD's
 * size is known; 1 when t has them. */
MW_HIDDEN int mw_pairs_attach(mw_thread *t);

/* Call fn on every thread's block, under the registry lock. */
MW_HIDDEN void mw_threads_each(void (*fn)(mw_thread *t, void *arg), void *arg);

/* Sum every thread's bytes and messages per destination into bytes[n] and
 * messages[n] (n world ranks); safe while the threads keep calling. */
MW_HIDDEN void mw_pairs_merge(uint64_t *bytes, uint64_t *messages, int n);

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

/* A call site found away from its home slot, or new: out of line. */
MW_HIDDEN MW_NOINLINE mw_fn_stats *mw_site_find(mw_thread *t, uint64_t key);

/* On x86-64, the call sites' miss path goes through mw_site_miss_x86, a
 * trampoline that keeps every register but rax: the hot path then needs no
 * callee-saved register for the values it holds across the rare call (the
 * return value of PMPI_X, the ticks), which saves 6 instructions a call.
 * Not under ThreadSanitizer, whose instrumentation may use vector registers. */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !MW_NO_SITE_TRAMPOLINE
#define MW_SITE_TRAMPOLINE 1
#else
#define MW_SITE_TRAMPOLINE 0
#endif

/* A call site's key: its return address, with the function above it (an
 * address may call several functions, through a pointer). */
static MW_ALWAYS_INLINE uint64_t mw_site_key(int id, const void *ra)
{
    return (uint64_t)(uintptr_t)ra + ((uint64_t)id << 48);
}

/* The byte offset of a key's home slot in sites[]: bits 2..11 of the return
 * address, which differ between call instructions less than 4 KiB apart
 * (a call is at least 5 bytes long); three instructions, no multiply. */
static MW_ALWAYS_INLINE size_t mw_site_home(uint64_t key)
{
    return (size_t)((key << 4) & ((uint64_t)(MW_SITES - 1) << 6));
}

/* The statistics a call of function id returning to ra goes into. Only
 * inside the guard, where mw_self is set (core/tls.h). */
static MW_ALWAYS_INLINE mw_fn_stats *mw_stats_of(int id, const void *ra)
{
    mw_thread *t = mw_self;
    uint64_t key = mw_site_key(id, ra);
    size_t home = mw_site_home(key);
    mw_site *e = (mw_site *)((char *)t->sites + home);
    if (MW_LIKELY(e->key == key))
        return &e->s;
#if MW_SITE_TRAMPOLINE
    mw_fn_stats *s;
    /* Step over the red zone: the body may keep data below the stack pointer. */
    __asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
                     "call mw_site_miss_x86\n\t"
                     "lea 128(%%rsp), %%rsp"
                     : "=a"(s)
                     : "D"(t), "S"(key)
                     : "memory", "cc");
    return s;
#else
    return mw_site_find(t, key);
#endif
}

/* The function id of a call site's key. */
static inline int mw_site_fn(uint64_t key)
{
    return (int)(key >> 48);
}

/* The return address of a call site's key. */
static inline uintptr_t mw_site_address(uint64_t key)
{
    return (uintptr_t)(key & ((1ull << 48) - 1));
}

/* Add the statistics s into out (sums, and min/max merged); s may be
 * changing in another thread (relaxed loads). */
MW_HIDDEN void mw_stats_merge_one(mw_fn_stats *out, const mw_fn_stats *s);

/* This thread's MPI time and calls so far, over every function and site. */
MW_HIDDEN void mw_thread_totals(const mw_thread *t, uint64_t *ticks, uint64_t *calls);

/* Statistics are written by their own thread only, and read at any time by
 * the monitor's sender thread with relaxed atomic loads (mw_stats_merge_one).
 * The writes are relaxed atomic loads and stores too: no lock prefix, no
 * fence. On x86-64, outside ThreadSanitizer builds, they are spelled as plain
 * accesses: an aligned 8-byte access is single-copy atomic there and each
 * field has one writer, so the machine code means the same, and GCC can then
 * fuse a load, add and store into one instruction, which the atomic spelling
 * forbids (6 more instructions per call, measured with callgrind). TSan
 * builds check the atomic spelling; other architectures always use it. */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__)
#define MW_OWN_LOAD(x) (x)
#define MW_OWN_STORE(x, v) ((x) = (v))
#else
#define MW_OWN_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define MW_OWN_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#endif

static inline void mw_stats_add(mw_fn_stats *s, uint64_t ticks)
{
    MW_OWN_STORE(s->calls, MW_OWN_LOAD(s->calls) + 1);
    MW_OWN_STORE(s->ticks, MW_OWN_LOAD(s->ticks) + ticks);
    if (ticks > MW_OWN_LOAD(s->max_ticks))
        MW_OWN_STORE(s->max_ticks, ticks);
    if (ticks < MW_OWN_LOAD(s->min_ticks))
        MW_OWN_STORE(s->min_ticks, ticks);
}

#endif
