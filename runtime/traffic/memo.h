/* The fast bodies of the commonest data-moving calls (sends, receives,
 * send-receives, reductions to all), built on the call site's memo
 * (core/thread_stats.h, mw_memo): the site is found before the PMPI call,
 * its memo is checked against the call's datatype and communicator (two
 * compares instead of two hashed look-ups; memos are emptied when a handle
 * is freed, core/thread_stats.h), and what the statistics need after the
 * call (the site, counts, ranks) is kept in the thread's block
 * (mw_tls.xfer), so that no register has to survive the call. After a
 * successful call the bytes, the size histogram, the site's size mask and
 * the bytes per destination are added inline; a call of the same shape
 * (count and peer) as the last one counted at its site adds what that one
 * added, without computing it again (mw_memo.shape).
 *
 * A call of a new shape goes out of line (mw_xfer_new_shape), where the
 * rules of traffic/inline.h note and account it, and the memo caches what it
 * added when every call of its shape adds the same; a memo that cannot be
 * filled (a communicator with processes outside
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
#include "mw_mpi_interop.h"

#if MW_SITE_TRAMPOLINE && MW_HAVE_TSC
#define MW_HAVE_MEMO 1
#else
#define MW_HAVE_MEMO 0
#endif

/* What a memo's calls move (mw_memo.kind); MW_MEMO_FORTRAN: its keys are
 * Fortran handles (mw_handle_int: MPI_Fint), converted when the memo is filled. */
enum { MW_MEMO_SEND = 1, MW_MEMO_RECV, MW_MEMO_SENDRECV, MW_MEMO_ALLREDUCE };
#define MW_MEMO_FORTRAN 0x100

/* Fill e's memo for the type, comm and kind stored in it: e when done,
 * NULL when the calls cannot use a memo (the memo is then empty). */
MW_HIDDEN mw_site *mw_memo_fill(mw_site *e);

/* Out of line, when mw_memo_hit found nothing: the site of a call of
 * function id returning to ra (found or made), its memo filled for kind,
 * type and comm (keys as mw_memo_hit takes them); NULL: take the general
 * way. */
MW_HIDDEN MW_NOINLINE mw_site *mw_memo_prepare(int id, const void *ra, int kind,
                                               uintptr_t type, uintptr_t comm);

/* The call kept in mw_tls.xfer (kind), of a shape not its site's memo's:
 * noted into c by the rules of traffic/inline.h (tag: the tag argument, for
 * the trace's record; the statistics need none), accounted at its site and
 * remembered by the memo when it can serve such calls. The guard stays
 * taken. */
MW_HIDDEN void mw_xfer_account_new_shape(mw_call *c, int kind, int id, int wide, int tag);

/* The end of a call that failed: its time only; releases the guard and
 * returns ret. */
MW_HIDDEN MW_NOINLINE int mw_xfer_failed(int ret);

/* The end of a successful call (kind, kept in mw_tls.xfer with its receive
 * side) whose shape is not its site's memo's: noted and accounted by the
 * rules of traffic/inline.h, and what it added (bytes, histogram slot,
 * destination row) cached in the memo with its shape (unless wide: large
 * counts) when the memo can serve such calls. Releases the guard; returns
 * MPI_SUCCESS. Out of line, so that the inline end keeps nothing across it. */
MW_HIDDEN MW_NOINLINE int mw_xfer_new_shape(int kind, int id, int wide);

/* A C handle as a memo key: an int handle (MPICH) zero-extended, as
 * mw_memo_hit compares it, so that no sign extension is computed. */
#define MW_MEMO_KEY(h) \
    (sizeof(h) == 4 ? (uintptr_t)(h) & 0xffffffffu : (uintptr_t)(h))

/* A count argument that is an MPI_Count (the large-count calls): kept whole,
 * and its calls are not counted again from a shape. */
#define MW_XFER_WIDE(count) (sizeof(count) > 4)

/* A memo's shape that no call has: peer INT32_MIN is no rank. */
#define MW_MEMO_NO_SHAPE ((uint64_t)0x80000000u << 32)

#if MW_HAVE_MEMO
/* The site of this call, at its home slot, with its memo valid for type and
 * comm (C handles, or Fortran ones for a memo filled with MW_MEMO_FORTRAN);
 * NULL on any miss. Nothing is called here: on a miss the fast body calls
 * its out-of-line half (mw_memo_miss_X, which calls mw_memo_prepare), so
 * that its hit path keeps the arguments where they are and needs no
 * register of its own for the look-up. */
static MW_ALWAYS_INLINE mw_site *mw_memo_hit(uint64_t key, uintptr_t type, uintptr_t comm)
{
    mw_site *e = (mw_site *)((char *)mw_self->sites + mw_site_home(key));
    /* Where handles are ints (MPICH), 32-bit compares: no sign extension of
     * the arguments (and Fortran handles are 32-bit values anyway). */
    int narrow = sizeof(MPI_Datatype) == 4 && sizeof(MPI_Comm) == 4;
    if (MW_LIKELY(e->key == key &&
                  (narrow ? e->memo.type32[0] == (uint32_t)type &&
                                e->memo.comm32[0] == (uint32_t)comm
                          : e->memo.type == type && e->memo.comm == comm)))
        return e;
    return NULL;
}

/* The same for a Fortran entry point's memo (filled with MW_MEMO_FORTRAN:
 * the handles as the program passed them, zero-extended), from pointers to
 * its handle arguments: read only once the call site has matched, so that
 * they need no register during the look-up (the entry point's own pointer
 * arguments fill the argument registers). The low halves of 64-bit handle
 * keys (Open MPI) are compared: x86-64 is little-endian, and a Fortran
 * memo's high halves are 0. */
static MW_ALWAYS_INLINE mw_site *mw_memo_hit_fortran(uint64_t key, const mw_handle_int *type,
                                                     const mw_handle_int *comm)
{
    mw_site *e = (mw_site *)((char *)mw_self->sites + mw_site_home(key));
    if (MW_LIKELY(e->key == key && e->memo.type32[0] == (uint32_t)*type &&
                  e->memo.comm32[0] == (uint32_t)*comm))
        return e;
    return NULL;
}

/* Keep what the end needs across the PMPI call: the site and the call's
 * shape (count and peer, two 32-bit stores). */
static MW_ALWAYS_INLINE void mw_xfer_keep(mw_site *e, int64_t count, int peer, int wide)
{
    mw_tls.xfer.site = e;
    mw_tls.xfer.count32 = (int32_t)count;
    mw_tls.xfer.peer = peer;
    if (wide)
        mw_tls.xfer.count = count;
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

/* The element count kept by mw_xfer_keep. */
static MW_ALWAYS_INLINE int64_t mw_xfer_count(int wide)
{
    return wide ? mw_tls.xfer.count : mw_tls.xfer.count32;
}

/* The call has the shape of the last one counted at e: its bytes, slot and
 * row are e's, and its size bit is in e's mask already. One compare. */
static MW_ALWAYS_INLINE int mw_xfer_same_shape(const mw_site *e, int wide)
{
    return !wide && mw_tls.xfer.shape == e->memo.shape;
}

/* One more message in a histogram slot. */
static MW_ALWAYS_INLINE void mw_xfer_add(uint64_t *slot)
{
    MW_OWN_STORE(*slot, MW_OWN_LOAD(*slot) + 1);
}

/* A message of bytes to a destination's row. */
static MW_ALWAYS_INLINE void mw_xfer_add_pair(uint64_t *pair, uint64_t bytes)
{
    MW_OWN_STORE(pair[0], MW_OWN_LOAD(pair[0]) + bytes);
    __asm__("" : "+m"(pair[0]));   /* two adds to memory (traffic/inline.h) */
    MW_OWN_STORE(pair[1], MW_OWN_LOAD(pair[1]) + 1);
}

/* MPI_SUCCESS, made where a successful end returns it: not the PMPI call's
 * value (equal to it), which GCC would otherwise keep in a callee-saved
 * register across the rare out-of-line calls. */
static MW_ALWAYS_INLINE int mw_xfer_success(void)
{
    int ret = MPI_SUCCESS;
    __asm__("" : "+r"(ret));
    return ret;
}

/* What a successful call of its site's remembered shape adds to the site's
 * statistics besides time, from the memo: bytes, histogram slot, and for
 * sends the destination's row. */
static MW_ALWAYS_INLINE void mw_xfer_add_send(mw_site *e)
{
    uint64_t bytes = e->memo.bytes;
    MW_OWN_STORE(e->s.sent, MW_OWN_LOAD(e->s.sent) + bytes);
    mw_xfer_add(e->memo.slot);
    mw_xfer_add_pair(e->memo.pair, bytes);
}

static MW_ALWAYS_INLINE void mw_xfer_add_recv(mw_site *e)
{
    MW_OWN_STORE(e->s.recv, MW_OWN_LOAD(e->s.recv) + e->memo.bytes);
    mw_xfer_add(e->memo.slot);
}

/* A send-receive: the send's shape, and recv bytes received. */
static MW_ALWAYS_INLINE void mw_xfer_add_sendrecv(mw_site *e, uint64_t recv)
{
    uint64_t sent = e->memo.bytes;
    MW_OWN_STORE(e->s.sent, MW_OWN_LOAD(e->s.sent) + sent);
    __asm__("" : "+r"(e));   /* two adds to memory, not vector instructions */
    MW_OWN_STORE(e->s.recv, MW_OWN_LOAD(e->s.recv) + recv);
    mw_xfer_add(e->memo.slot);
    mw_xfer_add_pair(e->memo.pair, sent);
}

static MW_ALWAYS_INLINE void mw_xfer_add_allreduce(mw_site *e)
{
    uint64_t bytes = e->memo.bytes;
    MW_OWN_STORE(e->s.sent, MW_OWN_LOAD(e->s.sent) + bytes);
    __asm__("" : "+r"(e));   /* two adds to memory, not four vector instructions */
    MW_OWN_STORE(e->s.recv, MW_OWN_LOAD(e->s.recv) + bytes);
    mw_xfer_add(e->memo.slot);
}

/* The end of a fast send: dest kept by mw_xfer_keep. */
static MW_ALWAYS_INLINE int mw_xfer_end_send(int ret, int id, int wide)
{
    if (MW_UNLIKELY(ret != MPI_SUCCESS))
        return mw_xfer_failed(ret);
    mw_site *e = mw_xfer_clock_out();
    if (MW_UNLIKELY(!mw_xfer_same_shape(e, wide)))
        return mw_xfer_new_shape(MW_MEMO_SEND, id, wide);
    mw_xfer_add_send(e);
    mw_guard_release();
    return mw_xfer_success();
}

/* The end of a fast receive: source kept by mw_xfer_keep; its status
 * (the matched source matters only for MPI_ANY_SOURCE). */
static MW_ALWAYS_INLINE int mw_xfer_end_recv(int ret, int id, int wide, const void *status)
{
    if (MW_UNLIKELY(ret != MPI_SUCCESS))
        return mw_xfer_failed(ret);
    mw_site *e = mw_xfer_clock_out();
    if (MW_UNLIKELY(!mw_xfer_same_shape(e, wide))) {
        mw_tls.xfer.status = status;
        return mw_xfer_new_shape(MW_MEMO_RECV, id, wide);
    }
    mw_xfer_add_recv(e);
    mw_guard_release();
    return mw_xfer_success();
}

/* The end of a fast send-receive: dest and sendcount kept by mw_xfer_keep
 * (its shape); the receive side's count, source and status. The memo serves
 * a receive side from a rank (memo.c, remember), and, when nothing is sent
 * (the message counted is the receive's), only as many bytes received as it
 * was learnt with. */
static MW_ALWAYS_INLINE int mw_xfer_end_sendrecv(int ret, int id, int wide, int64_t count2,
                                                 int peer2, const void *status)
{
    if (MW_UNLIKELY(ret != MPI_SUCCESS))
        return mw_xfer_failed(ret);
    mw_site *e = mw_xfer_clock_out();
    if (MW_UNLIKELY(peer2 < 0 ||
                    !mw_xfer_same_shape(e, wide) ||
                    (e->memo.bytes == 0 &&
                     (uint64_t)(count2 * e->memo.size) != e->memo.recv_bytes))) {
        mw_tls.xfer.count2 = count2;
        mw_tls.xfer.peer2 = peer2;
        mw_tls.xfer.status = status;
        return mw_xfer_new_shape(MW_MEMO_SENDRECV, id, wide);
    }
    mw_xfer_add_sendrecv(e, (uint64_t)(count2 * e->memo.size));
    mw_guard_release();
    return mw_xfer_success();
}

/* The end of a fast reduction to all: count by mw_xfer_keep (peer 0). */
static MW_ALWAYS_INLINE int mw_xfer_end_allreduce(int ret, int id, int wide)
{
    if (MW_UNLIKELY(ret != MPI_SUCCESS))
        return mw_xfer_failed(ret);
    mw_site *e = mw_xfer_clock_out();
    if (MW_UNLIKELY(!mw_xfer_same_shape(e, wide)))
        return mw_xfer_new_shape(MW_MEMO_ALLREDUCE, id, wide);
    mw_xfer_add_allreduce(e);
    mw_guard_release();
    return mw_xfer_success();
}
#endif

#endif
