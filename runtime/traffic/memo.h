/* The fast bodies of the commonest data-moving calls (sends, receives,
 * send-receives, reductions to all), built on the call site's memo
 * (core/thread_stats.h, mw_memo): the site is found before the PMPI call,
 * its memo is checked against the call's datatype and communicator (two
 * compares instead of two hashed look-ups; memos are emptied when a handle
 * is freed, core/thread_stats.h), and what the statistics need after the
 * call (the site, counts, ranks) is kept in the thread's block
 * (mw_tls.xfer), so that no register has to survive the call. After a successful call the bytes, the size histogram, the site's
 * size mask and the bytes per destination are added inline.
 *
 * Anything unusual goes out of line with the same rules as traffic/inline.h
 * (mw_xfer_finish: MPI_PROC_NULL, MPI_ANY_SOURCE, a reduction of nothing),
 * and a memo that cannot be filled (a communicator with processes outside
 * MPI_COMM_WORLD, a send-receive with two datatypes, unknown facts) sends
 * the call to the general (slow) body. Only for the fast body (MW_FAST),
 * outside ThreadSanitizer builds, on x86-64; elsewhere the bodies use the
 * notes of traffic/inline.h. */
#ifndef MW_TRAFFIC_MEMO_H
#define MW_TRAFFIC_MEMO_H

#include <mpi.h>

#include "core/clock.h"
#include "core/thread_stats.h"
#include "core/tls.h"
#include "traffic/traffic.h"

#if MW_SITE_TRAMPOLINE && MW_HAVE_TSC
#define MW_HAVE_MEMO 1
#else
#define MW_HAVE_MEMO 0
#endif

/* What a memo's calls move (mw_memo.kind); MW_MEMO_FORTRAN: its keys are
 * Fortran handles (MPI_Fint), converted when the memo is filled. */
enum { MW_MEMO_SEND = 1, MW_MEMO_RECV, MW_MEMO_SENDRECV, MW_MEMO_ALLREDUCE };
#define MW_MEMO_FORTRAN 0x100

/* Fill e's memo for the type, comm and kind stored in it (out of line,
 * through mw_memo_fill_x86, which keeps every register but rax): e when
 * done, NULL when the calls cannot use a memo (the memo is then empty). */
MW_HIDDEN mw_site *mw_memo_fill(mw_site *e);

/* The out-of-line end of a successful call whose ranks the inline path does
 * not handle: the notes and mw_account of traffic/inline.h, from the call
 * kept in mw_tls.xfer; releases the guard and returns ret. */
MW_HIDDEN MW_NOINLINE int mw_xfer_finish(int ret, int id);

/* A C handle as a memo key: an int handle (MPICH) zero-extended, as
 * mw_memo_site compares it, so that no sign extension is computed. */
#define MW_MEMO_KEY(h) \
    (sizeof(h) == 4 ? (uintptr_t)(h) & 0xffffffffu : (uintptr_t)(h))

#if MW_HAVE_MEMO
/* The site of this call, its memo valid for type and comm (C handles, or
 * Fortran ones with MW_MEMO_FORTRAN in kind); NULL: take the general way. */
static MW_ALWAYS_INLINE mw_site *mw_memo_site(int id, const void *ra, int kind,
                                              uintptr_t type, uintptr_t comm)
{
    mw_thread *t = mw_self;
    mw_site *e = mw_site_of(t, id, ra);
    /* Where handles are ints (MPICH), 32-bit compares: no sign extension of
     * the arguments (and Fortran handles are 32-bit values anyway). */
    int narrow = sizeof(MPI_Datatype) == 4 && sizeof(MPI_Comm) == 4;
    if (MW_LIKELY(narrow ? e->memo.type32[0] == (uint32_t)type &&
                               e->memo.comm32[0] == (uint32_t)comm
                         : e->memo.type == type && e->memo.comm == comm))
        return e;
    if (narrow) {
        e->memo.type32[0] = (uint32_t)type;
        e->memo.type32[1] = 0;
        e->memo.comm32[0] = (uint32_t)comm;
        e->memo.comm32[1] = 0;
    } else {
        e->memo.type = type;
        e->memo.comm = comm;
    }
    e->memo.kind = kind;
    __asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
                     "call mw_memo_fill_x86\n\t"
                     "lea 128(%%rsp), %%rsp"
                     : "+a"(e)
                     :
                     : "memory", "cc");
    return e;
}

/* Keep what the end needs across the PMPI call. */
static MW_ALWAYS_INLINE void mw_xfer_keep(mw_site *e, int64_t count, int peer)
{
    mw_tls.xfer.site = e;
    mw_tls.xfer.count = count;
    mw_tls.xfer.peer = peer;
}

/* The time in, for the fast body: the guard word takes the TSC. rdx keeps
 * its value (every memo body's third argument is in it): rdtsc's high half
 * is exchanged into another register, two instructions where the compiler
 * would move two arguments out of the way and back. */
static MW_ALWAYS_INLINE void mw_xfer_clock_in(void)
{
    uint32_t lo;
    uint64_t hi;
    __asm__ volatile("mov %%rdx, %1\n\t"
                     "rdtsc\n\t"
                     "xchg %%rdx, %1"
                     : "=a"(lo), "=&r"(hi));
    mw_tls.guard.half[0] = lo;
    mw_tls.guard.half[1] = (uint32_t)hi;
}

/* The time out: the call's time into its site; returns the site. */
static MW_ALWAYS_INLINE mw_site *mw_xfer_clock_out(void)
{
    uint64_t t_out = mw_now_tsc();
    mw_site *e = mw_tls.xfer.site;
    mw_stats_add(&e->s, t_out - mw_tls.guard.word);
    return e;
}

/* One message of bytes at site e: the histogram and the site's sizes. */
static MW_ALWAYS_INLINE void mw_xfer_message(mw_site *e, uint64_t bytes)
{
    size_t b = mw_size_bucket(bytes);
    uint64_t *h = &e->memo.hist[b];
    MW_OWN_STORE(*h, MW_OWN_LOAD(*h) + 1);
    MW_OWN_STORE(e->s.sizes, MW_OWN_LOAD(e->s.sizes) | 1ull << b);
}

/* A send's bytes to world rank w. */
static MW_ALWAYS_INLINE void mw_xfer_pair(mw_site *e, int w, uint64_t bytes)
{
    uint64_t *p = e->memo.pairs + 2 * (size_t)(unsigned)w;
    MW_OWN_STORE(p[0], MW_OWN_LOAD(p[0]) + bytes);
    __asm__("" : "+r"(p));   /* two adds to memory (traffic/inline.h) */
    MW_OWN_STORE(p[1], MW_OWN_LOAD(p[1]) + 1);
}

/* The end of a fast send: dest kept by mw_xfer_keep. */
static MW_ALWAYS_INLINE int mw_xfer_end_send(int ret, int id)
{
    mw_site *e = mw_xfer_clock_out();
    if (MW_LIKELY(ret == MPI_SUCCESS)) {
        int dest = mw_tls.xfer.peer;
        if (MW_UNLIKELY((unsigned)dest >= (unsigned)e->memo.peers))
            return mw_xfer_finish(ret, id);   /* MPI_PROC_NULL */
        uint64_t bytes = (uint64_t)(mw_tls.xfer.count * e->memo.size);
        MW_OWN_STORE(e->s.sent, MW_OWN_LOAD(e->s.sent) + bytes);
        mw_xfer_message(e, bytes);
        mw_xfer_pair(e, e->memo.world[dest], bytes);
    }
    mw_depth = 0;
    return ret;
}

/* The end of a fast receive: source kept by mw_xfer_keep, the status in
 * mw_tls.xfer.status (the matched source matters only for MPI_ANY_SOURCE). */
static MW_ALWAYS_INLINE int mw_xfer_end_recv(int ret, int id)
{
    mw_site *e = mw_xfer_clock_out();
    if (MW_LIKELY(ret == MPI_SUCCESS)) {
        if (MW_UNLIKELY((unsigned)mw_tls.xfer.peer >= (unsigned)e->memo.peers))
            return mw_xfer_finish(ret, id);   /* any source, none */
        uint64_t bytes = (uint64_t)(mw_tls.xfer.count * e->memo.size);
        MW_OWN_STORE(e->s.recv, MW_OWN_LOAD(e->s.recv) + bytes);
        mw_xfer_message(e, bytes);
    }
    mw_depth = 0;
    return ret;
}

/* The end of a fast send-receive: dest and sendcount by mw_xfer_keep,
 * source and recvcount in peer2 and count2. */
static MW_ALWAYS_INLINE int mw_xfer_end_sendrecv(int ret, int id)
{
    mw_site *e = mw_xfer_clock_out();
    if (MW_LIKELY(ret == MPI_SUCCESS)) {
        int dest = mw_tls.xfer.peer;
        if (MW_UNLIKELY((unsigned)dest >= (unsigned)e->memo.peers ||
                        mw_tls.xfer.peer2 == MPI_PROC_NULL))
            return mw_xfer_finish(ret, id);
        uint64_t sent = (uint64_t)(mw_tls.xfer.count * e->memo.size);
        uint64_t recv = (uint64_t)(mw_tls.xfer.count2 * e->memo.size);
        MW_OWN_STORE(e->s.sent, MW_OWN_LOAD(e->s.sent) + sent);
        __asm__("" : "+r"(e));   /* as above */
        MW_OWN_STORE(e->s.recv, MW_OWN_LOAD(e->s.recv) + recv);
        mw_xfer_message(e, sent ? sent : recv);
        mw_xfer_pair(e, e->memo.world[dest], sent);
    }
    mw_depth = 0;
    return ret;
}

/* The end of a fast reduction to all: count by mw_xfer_keep. */
static MW_ALWAYS_INLINE int mw_xfer_end_allreduce(int ret, int id)
{
    mw_site *e = mw_xfer_clock_out();
    if (MW_LIKELY(ret == MPI_SUCCESS)) {
        uint64_t bytes = (uint64_t)(mw_tls.xfer.count * e->memo.size);
        if (MW_UNLIKELY(bytes == 0))
            return mw_xfer_finish(ret, id);   /* no message */
        MW_OWN_STORE(e->s.sent, MW_OWN_LOAD(e->s.sent) + bytes);
        __asm__("" : "+r"(e));   /* two adds to memory, not four vector instructions */
        MW_OWN_STORE(e->s.recv, MW_OWN_LOAD(e->s.recv) + bytes);
        mw_xfer_message(e, bytes);
    }
    mw_depth = 0;
    return ret;
}
#endif

#endif
