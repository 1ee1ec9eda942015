/* Who wants the slow body's per-call events: one bit per consumer, so the
 * slow body makes one load and one test per call whoever is listening, and
 * calls mw_call_event (trace/call_event.h) out of line while any bit is set.
 * The watched body tests the monitor's bit alone (docs/trace.md). */
#ifndef MW_CALL_EVENTS_H
#define MW_CALL_EVENTS_H

#include "core/compiler.h"

enum {
    MW_CALL_EVENTS_MONITOR = 1,   /* the live monitor collects events (monitor/events.h) */
    MW_CALL_EVENTS_TRACE = 2      /* the trace records every call (trace/trace.h) */
};

/* MW_CALL_EVENTS_* bits; read on every call of the slow and watched bodies. */
extern MW_HIDDEN int mw_call_events;

/* Set or clear one bit. Thread-safe. */
MW_HIDDEN void mw_call_events_set(int bit, int on);

#endif
