/* The runtime's thread-local state, in one block so that the hot path finds
 * it with a single TLS address computation (initial-exec: a GOT load and a
 * %fs-relative access; fine for a library linked or preloaded at start-up). */
#ifndef MW_TLS_H
#define MW_TLS_H

#include <stdint.h>

#include "core/compiler.h"

struct mw_thread;
struct mw_site;
struct mw_event_ring;

typedef struct mw_tls_block {
    struct mw_thread *self;  /* this thread's statistics, NULL before its first call */
    /* The re-entry guard: nonzero inside a profiled MPI call, so that MPI
     * calls made by the MPI itself count once. The fast path keeps its time
     * in here, as the TSC gives it (two halves), so that one pair of stores
     * both takes the guard and saves the time: nothing has to live in a
     * register across the PMPI call. A TSC reading is never 0. */
    union {
        uint64_t word;
        uint32_t half[2];    /* x86: low, high */
    } guard;
    /* What a fast body that moves data keeps across its PMPI call
     * (traffic/memo.h): in memory, so that no register has to survive the
     * call and the body saves none. */
    struct {
        struct mw_site *site;
        uint64_t key;            /* the call site a fast body left to its miss path */
        union {                  /* the call's shape, compared with its memo's as one word */
            uint64_t shape;
            struct {
                int32_t count32;   /* the element count, when it is an int */
                int32_t peer;      /* the rank argument (a send-receive: dest) */
            };
        };
        int64_t count;           /* the element count, when it is an MPI_Count */
        int64_t count2;          /* a send-receive's receive count */
        int32_t peer2;           /* and its source */
        int32_t tag;             /* the tag argument: kept by the traced bodies only */
        const void *status;      /* a receive's status argument */
    } xfer;
    /* This thread's monitor event ring; mw_ring_detached until its first
     * event (runtime/core/event_ring.h). */
    struct mw_event_ring *ring;
    /* The call this thread is inside, for the live monitor's INFLIGHT frames
     * (monitor/inflight.c): written by the monitored bodies only, before
     * the time in, and read by the sender thread without a lock. Which of
     * peer, tag, root and comm a call has is in mw_inflight_flags[id]. The
     * fast and watched bodies' time in is the guard word; the slow body's is
     * t_in (0: not published, or the call has ended). */
    struct {
        uint64_t t_in;
        uintptr_t comm;      /* the MPI_Comm, as an integer; 0: none */
        int32_t id, peer, tag, root;
    } now;
} mw_tls_block;

/* The guard word's states (docs/design.md, "The guard word"). A thread
 * starts with the guard taken (MW_GUARD_NEW) and no statistics, so that its
 * first call goes out of line (mw_guard_contended) to attach them, which
 * frees the guard: a free guard implies self != NULL, and the hot path need
 * not test self. Any other value is a TSC reading (a fast or watched body's
 * time in) or a handed word (top bit set: a Fortran call handed over,
 * core/handoff.h). */
#define MW_GUARD_FREE 0   /* outside any profiled call */
#define MW_GUARD_NEW 1    /* with self NULL: the thread has made no call yet */
#define MW_GUARD_HELD 1   /* taken by the slow body, or by mpiwatch's own MPI calls */

extern MW_HIDDEN _Thread_local mw_tls_block mw_tls MW_TLS_MODEL;

/* Where a thread's ring pointer starts (core/event_ring.h): a ring that is
 * always full, so that only a full ring's path has to tell it apart, and the
 * thread's first event goes out of line to attach a real one. Never written. */
extern MW_HIDDEN struct mw_event_ring mw_ring_detached;

#define mw_self (mw_tls.self)
/* The guard word, read or written whole where a state is not one of the
 * accessors' below: a time in, a handed word. */
#define mw_guard (mw_tls.guard.word)

/* Is this thread inside a profiled call (or its first)? */
static MW_ALWAYS_INLINE int mw_guard_taken(void)
{
    return mw_guard != MW_GUARD_FREE;
}

static MW_ALWAYS_INLINE void mw_guard_release(void)
{
    mw_guard = MW_GUARD_FREE;
}

/* Taken without a time in: the slow body, or mpiwatch's own MPI calls. */
static MW_ALWAYS_INLINE void mw_guard_hold(void)
{
    mw_guard = MW_GUARD_HELD;
}

#endif
