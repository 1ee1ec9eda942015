/* The call path's side of traffic accounting, inline (docs/design.md, cost
 * model): the notes of the commonest data-moving calls and mw_account. The
 * thread's block is read once per function (mw_self: inside the guard it is
 * never NULL), datatype sizes and communicators' facts come from its
 * direct-mapped caches (core/handles.h), every field of the record is
 * written once, and only cache misses and first uses are calls. Included by
 * traffic/traffic.h. The point-to-point rules and what makes a message are
 * written here only: the partitioned calls' notes (traffic/p2p.c) and the
 * memo (traffic/memo.c) use these. */
#ifndef MW_TRAFFIC_INLINE_H
#define MW_TRAFFIC_INLINE_H

#include "core/handles.h"
#include "core/thread_stats.h"
#include "core/tls.h"

/* A point-to-point send of count elements of type to rank dest of comm. */
static MW_ALWAYS_INLINE void mw_note_send(mw_call *c, MPI_Count count, MPI_Datatype type,
                                          int dest, int tag, MPI_Comm comm)
{
    if (MW_UNLIKELY(dest == MPI_PROC_NULL)) {
        /* Nothing sent: no communicator named, which mw_account reads as no
         * message, so that messages is 1 on every path (a constant there). */
        mw_note_nothing(c);
        c->messages = 1;
        return;
    }
    mw_thread *t = mw_self;
    mw_handles_check(t);
    c->sent = (int64_t)count * mw_type_size_cached(t, type);
    c->recv = 0;
    c->peer = mw_facts_world_rank(mw_comm_facts(t, comm), dest);
    c->tag = tag;
    c->comm = comm;
    c->messages = 1;
}

/* A receive into count elements of type from source (matched source and
 * tag from status when there is one). */
static MW_ALWAYS_INLINE void mw_note_recv(mw_call *c, MPI_Count count, MPI_Datatype type,
                                          int source, int tag, MPI_Comm comm,
                                          const MPI_Status *status)
{
    if (status != NULL && status != MPI_STATUS_IGNORE) {
        source = status->MPI_SOURCE;
        tag = status->MPI_TAG;
    }
    if (MW_UNLIKELY(source == MPI_PROC_NULL)) {
        mw_note_nothing(c);
        return;
    }
    mw_thread *t = mw_self;
    mw_handles_check(t);
    c->sent = 0;
    c->recv = (int64_t)count * mw_type_size_cached(t, type);
    /* MPI_ANY_SOURCE is negative: no world rank. */
    c->peer = mw_facts_world_rank(mw_comm_facts(t, comm), source);
    c->tag = tag == MPI_ANY_TAG ? -1 : tag;
    c->comm = comm;
    c->messages = 0;
}

/* A send-receive: the send's peer and tag, and the bytes both ways (none
 * received from MPI_PROC_NULL). */
static MW_ALWAYS_INLINE void mw_note_sendrecv(mw_call *c, MPI_Count sendcount,
                                              MPI_Datatype sendtype, int dest, int sendtag,
                                              MPI_Count recvcount, MPI_Datatype recvtype,
                                              int source, MPI_Comm comm,
                                              const MPI_Status *status)
{
    mw_thread *t = mw_self;
    mw_handles_check(t);
    int64_t recv_size = 0, recv = 0;
    if (source != MPI_PROC_NULL &&
        (status == NULL || status == MPI_STATUS_IGNORE || status->MPI_SOURCE != MPI_PROC_NULL)) {
        recv_size = mw_type_size_cached(t, recvtype);
        recv = (int64_t)recvcount * recv_size;
    }
    c->recv = recv;
    if (MW_UNLIKELY(dest == MPI_PROC_NULL)) {
        c->sent = 0;
        c->peer = -1;
        c->tag = -1;
        c->comm = MPI_COMM_NULL;
        c->messages = 0;
        return;
    }
    /* Mostly both buffers have the same type: one look-up. */
    int64_t send_size = MW_LIKELY(sendtype == recvtype && recv_size)
                            ? recv_size
                            : mw_type_size_cached(t, sendtype);
    c->sent = (int64_t)sendcount * send_size;
    c->peer = mw_facts_world_rank(mw_comm_facts(t, comm), dest);
    c->tag = sendtag;
    c->comm = comm;
    c->messages = 1;
}

/* MPI_Allreduce, MPI_Scan, MPI_Exscan: count elements in and out. */
static MW_ALWAYS_INLINE void mw_note_allreduce(mw_call *c, MPI_Count count, MPI_Datatype type,
                                               MPI_Comm comm)
{
    mw_thread *t = mw_self;
    mw_handles_check(t);
    int64_t bytes = 0;
    if (MW_LIKELY(mw_comm_facts(t, comm)->size > 0))
        bytes = (int64_t)count * mw_type_size_cached(t, type);
    c->sent = bytes;
    c->recv = bytes;
    c->peer = -1;
    c->tag = -1;
    c->comm = comm;
    c->messages = 0;
}

/* Histogram slot of a message size: 0 for empty, else 1 + floor(log2(bytes)),
 * which is the index of the highest bit of 2 * bytes + 1: one bsr, and no
 * clamp, since a thread has a slot per bit (MW_HIST_SLOTS). */
static MW_ALWAYS_INLINE size_t mw_size_bucket(uint64_t bytes)
{
#if defined(__x86_64__)
    /* Spelled out: from __builtin_clzll GCC tests for 0 to skip the bsr,
     * and widens its int result, which costs more than the bsr. */
    size_t b;
    __asm__("bsr %1, %0" : "=r"(b) : "r"(bytes << 1 | 1) : "cc");
    return b;
#else
    return (size_t)(63 ^ __builtin_clzll(bytes << 1 | 1));
#endif
}

/* Messages and bytes to world rank dest, into t's row per destination. */
static MW_ALWAYS_INLINE void mw_count_pair_in(mw_thread *t, int dest, int64_t bytes, int messages)
{
    if (MW_LIKELY((unsigned)dest < (unsigned)t->world_size)) {
        uint64_t *p = t->pairs + 2 * (size_t)(unsigned)dest;
        MW_OWN_STORE(p[0], MW_OWN_LOAD(p[0]) + (uint64_t)bytes);
        /* Two adds to memory: kept apart, or GCC pairs them into four vector
         * instructions and a load of the constant. */
        __asm__("" : "+r"(p));
        MW_OWN_STORE(p[1], MW_OWN_LOAD(p[1]) + (uint64_t)messages);
    } else {
        mw_count_pair_miss(t, dest, bytes, messages);
    }
}

/* Not a known zero (a send's received bytes): the add is needed. */
#define MW_MAYBE_NONZERO(x) (!__builtin_constant_p(x) || (x) != 0)
#define MW_KNOWN_ZERO(x) (!MW_MAYBE_NONZERO(x))

/* What a noted call adds besides its bytes, written once, for mw_account
 * and for the memo, which caches the effect for the calls of one shape
 * (traffic/memo.c, remember). The notes above decide bytes, peer and
 * messages (MPI_PROC_NULL included). Macros, so that mw_account compiles to
 * the code it was tuned for (an inline function's value changes GCC's
 * choices in every body).
 *
 * No message: a call that moved nothing and had no peer (a barrier, a send
 * to MPI_PROC_NULL, which names no communicator, a reduction of nothing).
 * The peer first: most messages have one. */
#define MW_CALL_NO_MESSAGE(c) \
    ((c)->peer < 0 && ((c)->sent | (c)->recv) == 0 && (!(c)->messages || (c)->comm == MPI_COMM_NULL))
/* A message's size, which picks its histogram slot: what was sent, else
 * what was received (a send-receive that sends nothing counts its receive). */
#define MW_CALL_MESSAGE_SIZE(c) \
    (MW_KNOWN_ZERO((c)->recv) ? (c)->sent : (c)->sent ? (c)->sent : (c)->recv)

/* Add a noted call's bytes to this thread's statistics: per function (and
 * call site s), the message-size histogram, and bytes per destination (for
 * sends with a known peer: the report's most talkative pairs). Only inside
 * the guard, where mw_self is set. */
static MW_ALWAYS_INLINE void mw_account(int id, const mw_call *c, mw_fn_stats *s)
{
    mw_thread *t = mw_self;
    if (MW_MAYBE_NONZERO(c->sent))
        MW_OWN_STORE(s->sent, MW_OWN_LOAD(s->sent) + (uint64_t)c->sent);
    if (MW_MAYBE_NONZERO(c->recv))
        MW_OWN_STORE(s->recv, MW_OWN_LOAD(s->recv) + (uint64_t)c->recv);
    /* Histograms and pairs are about messages. */
    if (MW_CALL_NO_MESSAGE(c))
        return;
    int64_t size = MW_CALL_MESSAGE_SIZE(c);
    size_t b = mw_size_bucket((uint64_t)size);
    uint64_t *h = &t->hist[id][b];
    MW_OWN_STORE(*h, MW_OWN_LOAD(*h) + 1);
    MW_OWN_STORE(s->sizes, MW_OWN_LOAD(s->sizes) | 1ull << b);   /* the site's size ranges */
    /* A peer outside the row (or none, negative) goes out of line, where it
     * is dropped. */
    if (c->messages)
        mw_count_pair_in(t, c->peer, c->sent, c->messages);
}

#endif
