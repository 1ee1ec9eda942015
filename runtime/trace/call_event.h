/* The slow body's per-call events, handed out of line to whoever listens
 * (core/call_events.h): the live monitor's ring and the trace. Part of the
 * wrappers' API (mw_wrap.h). */
#ifndef MW_CALL_EVENT_H
#define MW_CALL_EVENT_H

#include "core/call_events.h"
#include "core/compiler.h"
#include "core/thread_stats.h"
#include "traffic/traffic.h"

/* One call that has ended, inside the guard. traffic: the record's bytes,
 * peer, tag and comm were filled by an mw_note_* function; otherwise only
 * its times are meaningful. s: the statistics it was counted in (its call
 * site's: core/thread_stats.h). */
MW_HIDDEN MW_NOINLINE void mw_call_event(int id, const mw_call *call, int traffic,
                                         const mw_fn_stats *s);

#endif
