/* The live monitor (docs/protocol.md): per-call events queued on the call
 * path, sent to an attached client by a background thread.
 *
 * While a client is attached, profiled calls copy their record into this
 * thread's bounded event ring (mw_events.h): no lock, no system call, never
 * blocks. When the ring is full the event is counted as dropped. With the
 * TSC as the clock the wrappers' "watched" body pushes inline
 * (mw_event_push); the slow body calls mw_monitor_event() while
 * mw_monitor_events is set. */
#ifndef MW_MONITOR_H
#define MW_MONITOR_H

#include <stdint.h>

#include "mw_compiler.h"
#include "mw_events.h"
#include "mw_tls.h"
#include "mw_traffic.h"

/* Nonzero while the monitor collects per-call events. Written only by
 * mw_monitor_start/stop; read on every call of the slow body. */
extern MW_HIDDEN int mw_monitor_events;

/* Fill the ring's next slot with one call's event and publish it. traffic:
 * the record's bytes, peer, tag and comm were filled by an mw_note_*
 * function; otherwise only the times are meaningful, and only they are
 * written (mw_events_drain fills in the rest, and the thread). */
static inline void mw_event_write(mw_event_ring *r, uint64_t head, int id, const mw_call *call,
                                  int traffic)
{
    mw_event *e = &r->slots[head & r->mask];
    e->t_in = call->t_in;
    e->t_out = call->t_out;
    e->function = (uint16_t)id;
    if (traffic) {
        e->sent = call->sent;
        e->recv = call->recv;
        e->peer = call->peer;
        e->tag = call->tag;
        e->comm = mw_comm_id(call->comm);
        e->flags = MW_EVENT_TRAFFIC;
    } else {
        e->flags = 0;
    }
    __atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
}

/* A thread's first event: attaches its ring (or gives up, warning once). */
MW_HIDDEN MW_NOINLINE void mw_event_push_first(int id, const mw_call *call, int traffic);

/* Queue one call's event into this thread's ring. When the ring looks full
 * the consumer's tail is read again; if it is full, the event is dropped
 * and counted. */
static inline void mw_event_push(int id, const mw_call *call, int traffic)
{
    mw_event_ring *r = mw_tls.ring;
    uint64_t head = r->head;
    if (MW_UNLIKELY(head - r->tail_seen > r->mask)) {
        if (r == &mw_ring_detached) {
            mw_event_push_first(id, call, traffic);
            return;
        }
        r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
        if (head - r->tail_seen > r->mask) {
            __atomic_store_n(&r->dropped, r->dropped + 1, __ATOMIC_RELAXED);
            return;
        }
    }
    mw_event_write(r, head, id, call, traffic);
}

/* mw_event_push, out of line, for the slow body and the general forms. */
MW_HIDDEN MW_NOINLINE void mw_monitor_event(int id, const mw_call *call, int traffic);

/* mw_account and the traffic event in one call, for the watched body of the
 * wrappers that move data. */
MW_HIDDEN MW_NOINLINE void mw_account_and_event(int id, const mw_call *call);

#endif
