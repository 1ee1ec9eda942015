/* The live monitor (docs/protocol.md): per-call events queued on the call
 * path, sent to an attached client by a background thread.
 *
 * While a client is attached, profiled calls copy their record into this
 * thread's bounded event ring (core/event_ring.h): no lock, no system call, never
 * blocks. When the ring is full the event is counted as dropped. With the
 * TSC as the clock the wrappers' "watched" body queues its events itself,
 * inline (mw_event_push_times, mw_event_push_traffic); the slow body calls
 * mw_monitor_event() (through trace/call_event.h) while mw_call_events has
 * MW_CALL_EVENTS_MONITOR. This is the call path's
 * part, which the wrappers include (mw_wrap.h); the sender's (capacity,
 * switching on, draining, counts) is in monitor/monitor.h. */
#ifndef MW_MONITOR_H
#define MW_MONITOR_H

#include <stdint.h>

#include "core/call_events.h"
#include "core/compiler.h"
#include "core/event_ring.h"
#include "core/handles.h"
#include "core/thread_stats.h"
#include "core/tls.h"
#include "traffic/traffic.h"

/* Write an event without traffic into slot head (which has room) and
 * publish it. Only the times, function and flags: mw_events_drain fills in
 * the rest. */
static inline void mw_event_write_times(mw_event_ring *r, uint64_t head, int id, uint64_t t_in,
                                        uint64_t t_out)
{
    mw_event *e = &r->slots[head & r->mask];
    e->t_in = t_in;
    e->t_out = t_out;
    e->function = (uint16_t)id;
    e->flags = 0;
    __atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
}

/* The ring looked full (head == limit): read the consumer's tail again and
 * say whether there is room now. Only then is the consumer's cache line
 * read. The detached ring stays full. */
static inline int mw_event_recheck(mw_event_ring *r)
{
    uint64_t limit = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) + r->mask + 1;
    if (r->head == limit)
        return 0;
    r->limit = limit;
    return 1;
}

/* The ring is full: the event is dropped, and counted. */
static inline void mw_event_drop(mw_event_ring *r)
{
    __atomic_store_n(&r->dropped, r->dropped + 1, __ATOMIC_RELAXED);
}

/* mw_event_push_times for a thread's first event: attaches its ring (or
 * gives up, warning once, without memory for one), then queues it. */
MW_HIDDEN MW_NOINLINE void mw_event_push_times_first(int id, uint64_t t_in, uint64_t t_out);

/* Queue the event of a call without traffic into this thread's ring; drop
 * and count it if the ring is full. All inline but a thread's first event:
 * on a node too busy for the sender, dropping is the common case. */
static inline void mw_event_push_times(int id, uint64_t t_in, uint64_t t_out)
{
    mw_event_ring *r = mw_tls.ring;
    if (MW_UNLIKELY(r->head == r->limit) && !mw_event_recheck(r)) {
        if (MW_UNLIKELY(r == &mw_ring_detached))
            mw_event_push_times_first(id, t_in, t_out);
        else
            mw_event_drop(r);
        return;
    }
    mw_event_write_times(r, r->head, id, t_in, t_out);
}

/* Write an event with traffic (every field) into slot head (which has
 * room) and publish it. */
static inline void mw_event_write_traffic(mw_event_ring *r, int id, const mw_call *call,
                                          int32_t comm)
{
    uint64_t head = r->head;
    mw_event *e = &r->slots[head & r->mask];
    e->t_in = call->t_in;
    e->t_out = call->t_out;
    e->function = (uint16_t)id;
    e->flags = MW_EVENT_TRAFFIC;
    e->sent = call->sent;
    e->recv = call->recv;
    e->peer = call->peer;
    e->tag = call->tag;
    e->comm = comm;
    __atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
}

/* mw_event_push_traffic's rare cases: the thread's first event, and a
 * communicator other than the last one (or a handle freed since). */
MW_HIDDEN MW_NOINLINE void mw_event_push_traffic_slow(int id, const mw_call *call);

/* Queue the event of a call that moved data (its record filled by the
 * mw_note_* functions); drop and count it if the ring is full. The thread's
 * last communicator's id is kept, so the common case calls nothing. */
static inline void mw_event_push_traffic(int id, const mw_call *call)
{
    mw_event_ring *r = mw_tls.ring;
    if (MW_UNLIKELY(r->head == r->limit) && !mw_event_recheck(r)) {
        if (MW_UNLIKELY(r == &mw_ring_detached))
            mw_event_push_traffic_slow(id, call);
        else
            mw_event_drop(r);
        return;
    }
    if (MW_UNLIKELY(!mw_comm_seen_is(&r->comm_seen, call->comm))) {
        mw_event_push_traffic_slow(id, call);
        return;
    }
    mw_event_write_traffic(r, id, call, r->comm_seen.id);
}

/* Queue one call's event, out of line, for the slow body and the general
 * forms. traffic: the record's bytes, peer, tag and comm were filled by an
 * mw_note_* function; otherwise only the times are meaningful. */
MW_HIDDEN MW_NOINLINE void mw_monitor_event(int id, const mw_call *call, int traffic);

#endif
