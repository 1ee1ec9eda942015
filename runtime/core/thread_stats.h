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

/* What a call site's data-moving calls last named, and the facts behind it
 * (traffic/memo.h): the fast bodies compare the call's datatype and
 * communicator with it instead of looking them up. Emptied (type 0) by
 * mw_memos_forget whenever a handle is freed, by any thread, or the
 * thread's caches drop a rank map. Filled and read by the owning thread. */
typedef struct mw_memo {
    union {              /* the datatype (a send-receive's both); 0 = empty */
        uintptr_t type;
        uint32_t type32[2];   /* int handles (MPICH): compared and stored as 32 bits */
    };
    union {
        uintptr_t comm;
        uint32_t comm32[2];
    };
    /* The last call counted here whose shape (element count and peer, as
     * mw_tls.xfer.shape holds them) can be counted again from what it added:
     * its bytes, its histogram slot and its destination's row (sends).
     * MW_MEMO_NO_SHAPE when none. Read on every call: the first cache line. */
    uint64_t shape;
    uint64_t bytes;
    uint64_t *slot;
    uint64_t *pair;
    int64_t size;        /* bytes in one element of type */
    int32_t peers;       /* ranks in comm's peer group (> 0) */
    int32_t kind;        /* what the calls move (traffic/memo.h): set before a fill */
    /* For a new shape (the second cache line). */
    const int *world;    /* world rank of each of comm's peers (all in the world) */
    uint64_t *hist;      /* the function's histogram slots */
    uint64_t *pairs;     /* the thread's bytes and messages per destination */
    /* A send-receive that sends nothing counts its receive's message: the
     * bytes received, which its slot is for. */
    uint64_t recv_bytes;
    /* For the trace's record of a call of that shape (trace/memo_record.h):
     * the world rank of its peer (-1: none), and comm's id (mw_comm_id). */
    int32_t peer_world;
    int32_t comm_id;
    uint64_t unused[11];
} mw_memo;

typedef struct mw_site {
    mw_fn_stats s;       /* first: a found site is its statistics, no offset to add */
    uint64_t key;        /* return address + (function id << 48); 0 = empty */
    mw_memo memo;        /* in the next cache line */
} mw_site;

#define MW_SITE_SHIFT 8   /* log2 of the stride of sites[] */
_Static_assert(sizeof(mw_site) == 1 << MW_SITE_SHIFT, "a call site fills four cache lines");

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
    int fn_memos;                  /* a memo of fn[] has been filled */
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
    /* MW_FN_COUNT entries: calls not kept by call site (key: the function id
     * alone, no address), with a memo like a site's. */
    mw_site fn[];
} mw_thread;




/* Allocate and register this thread's block; NULL (after a warning) if that fails. */
MW_HIDDEN mw_thread *mw_thread_attach(void);

/* Allocate t's bytes and messages per destination once MPI_COMM_WORLD's
 * size is known; 1 when t has them. */
MW_HIDDEN int mw_pairs_attach(mw_thread *t);

/* Empty t's call-site memos: its caches dropped a rank map. */
MW_HIDDEN void mw_memos_forget(mw_thread *t);

/* A handle is being freed: empty every thread's call-site memos. */
MW_HIDDEN void mw_threads_forget_memos(void);

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
 * (its statistics are attached) or a stale handed word (core/handoff.h), 0
 * for a nested call or no memory. */
MW_HIDDEN int mw_guard_contended(void);

/* A call site found away from its home slot, or new: out of line. */
MW_HIDDEN MW_NOINLINE mw_site *mw_site_find(mw_thread *t, uint64_t key);

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
    return (size_t)((key << (MW_SITE_SHIFT - 2)) & ((uint64_t)(MW_SITES - 1) << MW_SITE_SHIFT));
}

/* The site of thread t a call of function id returning to ra goes into.
 * Only inside the guard, where mw_self is set (core/tls.h). */
static MW_ALWAYS_INLINE mw_site *mw_site_of(mw_thread *t, int id, const void *ra)
{
    uint64_t key = mw_site_key(id, ra);
    size_t home = mw_site_home(key);
    mw_site *e = (mw_site *)((char *)t->sites + home);
    if (MW_LIKELY(e->key == key))
        return e;
#if MW_SITE_TRAMPOLINE
    /* The key in rax, the thread from mw_self: no argument register used, so
     * that a body that looks its site up before its PMPI call keeps the
     * arguments where they are. */
    mw_site *s = (mw_site *)key;
    /* Step over the red zone: the body may keep data below the stack pointer. */
    __asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
                     "call mw_site_miss_x86\n\t"
                     "lea 128(%%rsp), %%rsp"
                     : "+a"(s)
                     :
                     : "memory", "cc");
    return s;
#else
    return mw_site_find(t, key);
#endif
}

/* The statistics a call of function id returning to ra goes into. */
static MW_ALWAYS_INLINE mw_fn_stats *mw_stats_of(int id, const void *ra)
{
    return &mw_site_of(mw_self, id, ra)->s;
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
