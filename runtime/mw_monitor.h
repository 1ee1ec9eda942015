/* The live monitor (docs/protocol.md): per-call events queued on the call
 * path, sent to an attached client by a background thread.
 *
 * The call path only tests mw_monitor_events and, when it is set, calls
 * mw_monitor_event() out of line, which copies the call record into this
 * thread's bounded event ring: no lock, no system call, never blocks. When
 * the ring is full the event is counted as dropped. */
#ifndef MW_MONITOR_H
#define MW_MONITOR_H

#include <stdint.h>

#include "mw_compiler.h"
#include "mw_traffic.h"

/* Nonzero while the monitor collects per-call events. Written only by
 * mw_monitor_start/stop; read on every profiled call. */
extern MW_HIDDEN int mw_monitor_events;

/* Queue one call's event. traffic: the record's bytes, peer, tag and comm
 * were filled by an mw_note_* function (mw_exit_xfer); otherwise only the
 * times are meaningful. */
MW_HIDDEN MW_NOINLINE void mw_monitor_event(int id, const mw_call *call, int traffic);

#endif
