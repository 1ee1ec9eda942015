/* The per-thread event rings between the call path (the producer, one per
 * ring) and the monitor's sender thread (the only consumer). */
#ifndef MW_EVENTS_H
#define MW_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "mw_compiler.h"

/* One call, as queued; the sender turns it into a protocol record. */
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
    uint32_t reserved;
} mw_event;

#define MW_EVENT_TRAFFIC 1u

/* Events each thread may queue (MPIWATCH_MONITOR_BUFFER), rounded up to a
 * power of two. Set before events are switched on. */
MW_HIDDEN void mw_events_set_capacity(size_t events);

/* Switch event collection on or off for every thread. */
MW_HIDDEN void mw_events_enable(int on);

/* Move up to max queued events, from every thread's ring, into out. */
MW_HIDDEN size_t mw_events_drain(mw_event *out, size_t max);

/* Summed over the threads: the events queued into the rings so far
 * (drained or not), and those lost because a ring was full. */
MW_HIDDEN void mw_events_counts(uint64_t *recorded, uint64_t *dropped);

#endif
