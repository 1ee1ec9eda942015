/* The slow body's events, to the monitor and to the trace as the bits of
 * mw_call_events say (core/call_events.h). */
#include "monitor/events.h"
#include "trace/call_event.h"
#include "trace/trace.h"

/* The monitor listening, the trace too or not. */
static MW_NOINLINE void to_monitor(int bits, int id, const mw_call *call, int traffic,
                                   const mw_fn_stats *s)
{
    if (bits & MW_CALL_EVENTS_MONITOR)
        mw_monitor_event(id, call, traffic);
    if (bits & MW_CALL_EVENTS_TRACE)
        mw_trace_record(id, call, traffic, s);
}

void mw_call_event(int id, const mw_call *call, int traffic, const mw_fn_stats *s)
{
    int bits = __atomic_load_n(&mw_call_events, __ATOMIC_RELAXED);
    /* The trace alone is a jump: no frame, no argument saved across a call. */
    if (MW_LIKELY(bits == MW_CALL_EVENTS_TRACE))
        mw_trace_record(id, call, traffic, s);
    else
        to_monitor(bits, id, call, traffic, s);
}
