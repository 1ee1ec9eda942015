/* Where each wrapper goes. MPI_X jumps through its slot (a function pointer
 * per wrapper, see templates/wrapper/generic.c.j2) to one of
 *
 *   quiet    PMPI_X (or what must run unprofiled): profiling is off;
 *   fast     the profiled body for the usual case: the TSC is the clock and
 *            the live monitor is off, so it tests neither;
 *   watched  the same with the monitor on: each call's event is pushed
 *            inline into the thread's ring;
 *   slow     the profiled body for everything else: clock_gettime, deeper
 *            call sites, the trace (with per-call events while the monitor
 *            or the trace is on);
 *   traced   the fast body that also records the trace inline, while the
 *            trace records with the TSC and the monitor off.
 *
 * The choice is pushed into every slot when something it depends on changes
 * (MPI_Pcontrol, the monitor), never tested per call. Slots start at slow,
 * which is right in every mode, so a call made before the library's
 * constructor has run is profiled correctly. */
#ifndef MW_MODE_H
#define MW_MODE_H

#include "core/compiler.h"
#include "mw_functions.h"

/* Point every slot at what mw_level, mw_clock_use_tsc and the monitor call
 * for. Thread-safe; calls in flight finish on the body they entered. */
MW_HIDDEN void mw_mode_update(void);

/* The live monitor's switch: on = 1 routes every profiled call through the
 * watched body (with the TSC; else the slow body, which hands its events
 * on while mw_call_events has MW_CALL_EVENTS_MONITOR); on = 0 goes back to
 * the fast body. Thread-safe. It does not itself write mw_call_events:
 * set the bit before switching on, clear it after off. */
MW_HIDDEN void mw_mode_set_monitor(int on);

/* The trace's switch: on = 1 routes every profiled call to a body that
 * records it: the traced body, which records inline, when inline_record
 * allows it (no trace limit in force), the TSC is the clock, call sites are
 * one frame and the monitor is off; else (and for Fortran) the slow body,
 * which hands each call to the trace while mw_call_events has
 * MW_CALL_EVENTS_TRACE (docs/trace.md); on = 0 goes back. Thread-safe; the
 * same rule for the bit as above. */
MW_HIDDEN void mw_mode_set_trace(int on, int inline_record);

/* The Fortran library's mode: MW_FMODE_OFF while profiling is off,
 * MW_FMODE_FAST while the C slots point at their fast bodies (the TSC, no
 * monitor) and MPI is between MPI_Init and the report (Fortran handles can be
 * converted), MW_FMODE_SLOW otherwise. Set with the slots; mw_on_init and
 * mw_on_finalize update it. The Fortran entry points' slots (below) follow
 * it; gates that are not assembly read it (fortran/gate.h). */
enum { MW_FMODE_OFF, MW_FMODE_SLOW, MW_FMODE_FAST };
extern MW_EXPORT int mpiwatch_fortran_mode;

/* A Fortran entry point's slot: on x86-64 its gate (fortran/gate.h) is one
 * jump through it, to way[MW_FMODE_*] as the word above would choose: the
 * MPI's entry point, the profiled body, the fast body (the profiled body
 * again for an entry point without one). In MW_FMODE_FAST, handoff instead
 * (when not NULL), once mw_mode_fortran_handed said its binding reaches the
 * C wrapper (core/handoff.h). */
typedef struct {
    void **slot;
    void *way[3];
    void *handoff;
} mw_fortran_slot;

/* Keep a Fortran library's count slots pointed at the way of the current
 * mode: now, and at every change. Thread-safe. */
MW_HIDDEN void mw_mode_add_fortran_slots(const mw_fortran_slot *slots, int count);

/* The entry points whose hand-over stub is handoff: their binding was
 * measured to reach the C wrapper; their slots point at the stub whenever
 * the mode is MW_FMODE_FAST. Thread-safe. */
MW_HIDDEN void mw_mode_fortran_handed(const void *handoff);

/* A stale handed word was found: if a slot had used a hand-over, no more
 * hand-overs (the slots go back to the fast bodies), and returns 1 (once). */
MW_HIDDEN int mw_mode_forbid_handoff(void);

/* Set (before any call) when an attached Fortran library cannot use the
 * fast bodies (fortran/bridge.c): the word never says MW_FMODE_FAST. */
extern MW_HIDDEN int mw_mode_fortran_slow_only;

/* Any thread may switch modes while others call: relaxed atomics (plain
 * moves on x86) keep that free of data races. */
static inline mw_fn mw_slot_load(mw_fn *slot)
{
    return __atomic_load_n(slot, __ATOMIC_RELAXED);
}

#endif
