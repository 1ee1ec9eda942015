/* Event rings: each thread's MPI calls go into its own single-producer,
 * single-consumer ring (core/event_ring.h), so the call path takes no lock and
 * never waits. The common case of a push is inline (monitor/events.h); here are
 * the rest: attaching a thread's ring, a full ring, and the consumer. */
#include <pthread.h>
#include <stdlib.h>

#include "core/event_ring.h"
#include "monitor/events.h"
#include "monitor/monitor.h"
#include "core/warn.h"

static _Thread_local int ring_failed MW_TLS_MODEL;
static pthread_mutex_t rings_lock = PTHREAD_MUTEX_INITIALIZER;
static mw_event_ring *rings;
static uint32_t thread_count;
static size_t capacity = 16384;

void mw_events_set_capacity(size_t events)
{
    size_t c = 16;
    while (c < events && c < ((size_t)1 << 30))
        c <<= 1;
    capacity = c;
}

void mw_events_enable(int on)
{
    mw_call_events_set(MW_CALL_EVENTS_MONITOR, on);
}

/* Give the calling thread its ring; NULL if there is no memory for one
 * (warned once; its events are then not queued). */
static mw_event_ring *ring_attach(void)
{
    mw_event_ring *r = NULL;
    if (ring_failed)
        return NULL;
    if (posix_memalign((void **)&r, 64, sizeof *r + capacity * sizeof r->slots[0]) != 0) {
        ring_failed = 1;
        mw_warn("out of memory for a thread's monitor events; they are not sent");
        return NULL;
    }
    r->head = r->tail = 0;
    mw_comm_seen_reset(&r->comm_seen);
    r->limit = capacity;
    r->dropped = 0;
    r->mask = (uint32_t)(capacity - 1);
    pthread_mutex_lock(&rings_lock);
    /* Numbered as the thread's statistics, so EVENTS and INFLIGHT agree. */
    r->thread = mw_self != NULL ? mw_self->number : thread_count++;
    r->next = rings;
    __atomic_store_n(&rings, r, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rings_lock);
    mw_tls.ring = r;
    return r;
}

void mw_event_push_times_first(int id, uint64_t t_in, uint64_t t_out)
{
    mw_event_ring *r = ring_attach();
    if (r != NULL)
        mw_event_write_times(r, r->head, id, t_in, t_out);
}

/* mw_event_push_traffic's rare cases: the thread's first event, and a
 * communicator other than the last one (or a handle freed since). */
void mw_event_push_traffic_slow(int id, const mw_call *call)
{
    mw_event_ring *r = mw_tls.ring;
    if (r == &mw_ring_detached && (r = ring_attach()) == NULL)
        return;
    mw_event_write_traffic(r, id, call, mw_comm_seen_learn(&r->comm_seen, call->comm));
}

void mw_monitor_event(int id, const mw_call *call, int traffic)
{
    if (traffic)
        mw_event_push_traffic(id, call);
    else
        mw_event_push_times(id, call->t_in, call->t_out);
}

size_t mw_events_drain(mw_event *out, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&rings_lock);
    for (mw_event_ring *r = rings; r != NULL && n < max; r = r->next) {
        uint64_t tail = r->tail;
        uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
        for (; tail != head && n < max; n++) {
            mw_event *e = &out[n];
            *e = r->slots[tail++ & r->mask];
            e->thread = r->thread;
            if (!(e->flags & MW_EVENT_TRAFFIC)) {   /* the producer wrote the times only */
                e->sent = e->recv = 0;
                e->peer = e->tag = e->comm = -1;
            }
        }
        __atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&rings_lock);
    return n;
}

void mw_events_counts(uint64_t *recorded, uint64_t *dropped)
{
    *recorded = *dropped = 0;
    pthread_mutex_lock(&rings_lock);
    for (mw_event_ring *r = rings; r != NULL; r = r->next) {
        *recorded += __atomic_load_n(&r->head, __ATOMIC_RELAXED);
        *dropped += __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&rings_lock);
}
