/* The slow body's event consumers: see core/call_events.h. */
#include "core/call_events.h"

int mw_call_events;

void mw_call_events_set(int bit, int on)
{
    if (on)
        __atomic_fetch_or(&mw_call_events, bit, __ATOMIC_RELAXED);
    else
        __atomic_fetch_and(&mw_call_events, ~bit, __ATOMIC_RELAXED);
}
