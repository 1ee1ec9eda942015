/* Event rings: each thread's MPI calls go into its own single-producer,
 * single-consumer ring, so the call path takes no lock and never waits. The
 * producer publishes with a release store of head; the sender thread reads
 * head with acquire and hands back slots with a release store of tail. */
#include <pthread.h>
#include <stdlib.h>

#include "mw_events.h"
#include "mw_monitor.h"
#include "mw_warn.h"

typedef struct mw_event_ring {
    struct mw_event_ring *next;      /* registry, for the consumer */
    uint32_t thread;
    uint32_t mask;                   /* capacity - 1 */
    _Alignas(64) uint64_t head;      /* events ever queued (64 bits: never wraps); owner writes */
    uint64_t tail_seen;              /* the owner's copy of tail: the shared one is
                                      * read only when the ring looks full, so the
                                      * call path does not pull the consumer's line */
    uint64_t dropped;                /* owner writes, consumer reads */
    _Alignas(64) uint64_t tail;      /* events ever taken; consumer writes */
    _Alignas(64) mw_event slots[];
} mw_event_ring;

int mw_monitor_events;

static _Thread_local mw_event_ring *my_ring MW_TLS_MODEL;
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
    __atomic_store_n(&mw_monitor_events, on, __ATOMIC_RELAXED);
}

static mw_event_ring *ring_attach(void)
{
    mw_event_ring *r = NULL;
    if (posix_memalign((void **)&r, 64, sizeof *r + capacity * sizeof r->slots[0]) != 0) {
        ring_failed = 1;
        mw_warn("out of memory for a thread's monitor events; they are not sent");
        return NULL;
    }
    r->head = r->tail = r->tail_seen = 0;
    r->dropped = 0;
    r->mask = (uint32_t)(capacity - 1);
    pthread_mutex_lock(&rings_lock);
    r->thread = thread_count++;
    r->next = rings;
    __atomic_store_n(&rings, r, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&rings_lock);
    my_ring = r;
    return r;
}

void mw_monitor_event(int id, const mw_call *call, int traffic)
{
    mw_event_ring *r = my_ring;
    if (MW_UNLIKELY(r == NULL)) {
        if (ring_failed || (r = ring_attach()) == NULL)
            return;
    }
    uint64_t head = r->head;
    if (MW_UNLIKELY(head - r->tail_seen > r->mask)) {
        r->tail_seen = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
        if (head - r->tail_seen > r->mask) {
            __atomic_store_n(&r->dropped, r->dropped + 1, __ATOMIC_RELAXED);
            return;
        }
    }
    mw_event *e = &r->slots[head & r->mask];
    e->t_in = call->t_in;
    e->t_out = call->t_out;
    e->function = (uint16_t)id;
    e->thread = r->thread;
    if (traffic) {
        e->sent = call->sent;
        e->recv = call->recv;
        e->peer = call->peer;
        e->tag = call->tag;
        e->comm = mw_comm_id(call->comm);
        e->flags = MW_EVENT_TRAFFIC;
    } else {
        e->sent = e->recv = 0;
        e->peer = e->tag = e->comm = -1;
        e->flags = 0;
    }
    __atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
}

size_t mw_events_drain(mw_event *out, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&rings_lock);
    for (mw_event_ring *r = rings; r != NULL && n < max; r = r->next) {
        uint64_t tail = r->tail;
        uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
        while (tail != head && n < max)
            out[n++] = r->slots[tail++ & r->mask];
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
