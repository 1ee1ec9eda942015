/* The per-thread event rings between the call path (the producer, one per
 * ring) and the monitor's sender thread (the only consumer). */
#ifndef MW_EVENTS_H
#define MW_EVENTS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/handles.h"

/* One call, as queued; the sender turns it into a protocol record. In a
 * ring, only t_in, t_out, function and flags are always written; the
 * traffic fields when flags has MW_EVENT_TRAFFIC. mw_events_drain hands
 * out complete events. */
typedef struct mw_event {
    uint64_t t_in;           /* ticks */
    uint64_t t_out;
    int64_t sent;
    int64_t recv;
    int32_t peer;
    int32_t tag;
    int32_t comm;
    uint16_t function;
    uint16_t flags;          /* MW_EVENT_TRAFFIC */
    uint32_t thread;
    uint32_t reserved[3];    /* to one cache line: one slot per line, a shift to index */
} mw_event;

_Static_assert(sizeof(mw_event) == 64, "an event fills one cache line");

#define MW_EVENT_TRAFFIC 1u

/* A thread's ring: single producer (the thread), single consumer (the
 * sender). The producer publishes with a release store of head; the sender
 * reads head with acquire and hands slots back with a release store of tail. */
typedef struct mw_event_ring {
    struct mw_event_ring *next;      /* registry, for the consumer */
    uint32_t thread;
    uint32_t mask;                   /* capacity - 1 */
    _Alignas(64) uint64_t head;      /* events ever queued (64 bits: never wraps); owner writes */
    uint64_t limit;                  /* the owner's last-read tail + capacity: the ring
                                      * looks full when head reaches it, and only then is
                                      * the shared tail read again, so the call path does
                                      * not pull the consumer's line */
    uint64_t dropped;                /* owner writes, consumer reads */
    mw_comm_seen comm_seen;          /* the owner's last communicator and its id */
    _Alignas(64) uint64_t tail;      /* events ever taken; consumer writes */
    _Alignas(64) mw_event slots[];
} mw_event_ring;

#endif
