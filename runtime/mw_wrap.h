/* The runtime API the generated wrappers call. Everything on the per-call
 * path is inline. The C wrappers include nothing else of the runtime; what
 * this inline code leaves in their objects (its rare paths, out of line, and
 * the data it reads) is listed in tests/build/runtime_layers.py
 * (WRAPPER_API), to which check-runtime-layers.sh holds the generated
 * objects (runtime/README.md).
 *
 * MPI_X is one indirect jump through its slot (runtime/core/mode.h): to PMPI_X
 * when profiling is off, else to one of four instances of the profiled body
 *
 *     if (!mw_enter_guard())           -- a nested call: not counted again
 *         return PMPI_X(...);
 *     mw_call call;
 *     mw_clock_in(&call, how);         -- time in
 *     ret = PMPI_X(...);
 *     mw_clock_out(&call, how);        -- time out
 *     mw_leave(&call, MW_ID_MPI_X, how); -- record, release the guard
 *
 * compiled with how =
 *   MW_FAST     the TSC, no monitor: nothing is tested and nothing is called
 *               around PMPI_X, so no register has to survive a call;
 *   MW_WATCHED  the same, and the call's event pushed inline into the
 *               thread's monitor ring;
 *   MW_SLOW     any clock; per-call events (out of line) while the monitor
 *               or the trace collects them (docs/trace.md);
 *   MW_TRACED*  the fast body that also encodes the call into its thread's
 *               trace chunk, inline, and runs the trace's notes.
 * All but the slow one send a call that finds the guard taken straight to PMPI_X
 * when it is nested (its thread has statistics: an MPI's Fortran binding
 * calling MPI_X, say), as the slow body would, and the thread's first call
 * to the slow body, which attaches its statistics in mw_guard_contended.
 *
 * The fast bodies of the commonest data-moving calls use their call site's
 * memo instead of the notes below (traffic/memo.h); they are rendered apart
 * (mw_fast_X), and their rare ways (a miss, a nested or first call) go out of
 * line to mw_memo_miss_X, which passes the call site on to the general body
 * (mw_slow_at_X: the body's mw_ra; NULL in the others, where the site is the
 * caller's return address, read where it is used).
 *
 * Functions that move data note what they moved between the clock reads and
 * the exit (mw_note_* in traffic/traffic.h; the commonest inline, in
 * traffic/inline.h) and leave with mw_leave_xfer, which also records the
 * bytes (mw_account, inline). Functions that free a handle call
 * mw_handles_forget() first, whether or not the call is profiled, so no cache
 * outlives it.
 *
 * User hooks run between mw_enter_guard and the time in, and between the
 * time out and the exit: inside the guard (their MPI calls are not profiled)
 * and outside the timed span.
 *
 * MPI_Init, MPI_Finalize, MPI_Pcontrol and the Fortran bridge use the
 * general forms: mw_enter, mw_start, mw_stop, mw_exit, mw_exit_xfer. */
#ifndef MW_WRAP_H
#define MW_WRAP_H

#include <mpi.h>

#include "core/callstacks.h"
#include "core/clock.h"
#include "core/handles.h"
#include "core/handoff.h"
#include "core/mode.h"
#include "core/state.h"
#include "core/thread_stats.h"
#include "lifecycle/lifecycle.h"
#include "monitor/events.h"
#include "monitor/inflight.h"
#include "trace/call_event.h"
#include "trace/comm_ids.h"
#include "trace/memo_record.h"
#include "trace/notes.h"
#include "trace/recorder.h"
#include "mpiwatch_protocol.h"   /* the in-flight flags (MWP_IF_*) the wrappers publish */
#include "mw_functions.h"
#include "traffic/memo.h"
#include "traffic/traffic.h"

/* The instances of a wrapper's body (above). The traced body is the fast
 * one that also encodes each call into its thread's trace chunk, inline
 * (trace/recorder.h): the slots point at it while the trace records with
 * the TSC, the monitor off and one-frame call sites (core/mode.h). Its
 * three values say, as the generator knows them, what the function notes
 * for the trace (trace/notes.h): nothing, a request, root or poll, or also
 * completions. */
enum { MW_SLOW, MW_FAST, MW_WATCHED, MW_TRACED, MW_TRACED_NOTED, MW_TRACED_DONE };

/* Does a body of how record the trace inline? */
#define MW_IS_TRACED(how) ((how) >= MW_TRACED)

/* The traced body's record of a call that ended (traffic: its transfer
 * fields were noted). */
static MW_ALWAYS_INLINE void mw_traced_record(const mw_call *call, int id, int how, int traffic,
                                              const mw_fn_stats *s)
{
    mw_trace_record_inline(id, call, traffic, how != MW_TRACED, how == MW_TRACED_DONE, s);
}

/* Is profiling on (MPI_Pcontrol, MPIWATCH_LEVEL)? */
static inline int mw_profiling(void)
{
    /* Any thread may call MPI_Pcontrol: a relaxed atomic load (a plain load
     * on x86) keeps that free of data races. */
    return MW_LIKELY(__atomic_load_n(&mw_level, __ATOMIC_RELAXED) != 0);
}

/* The re-entry guard: 0 for a call made from inside another profiled MPI
 * call (by the MPI itself, or a Fortran shim), which is not counted again. */
static inline int mw_enter_guard(void)
{
    if (MW_UNLIKELY(mw_guard_taken()))
        return mw_guard_contended();   /* nested, or the thread's first call */
    mw_guard_hold();
    return 1;
}

/* Both tests at once, for wrappers that are not split in two. */
static inline int mw_enter(void)
{
    return mw_profiling() && mw_enter_guard();
}

/* Outside the slow body, the time in goes to the guard word, which it also
 * takes. */
static inline void mw_clock_in(mw_call *call, int how)
{
    if (how == MW_SLOW) {
        call->t_in = mw_now();
        return;
    }
#if MW_HAVE_TSC
    /* Stored as rdtsc leaves it (edx:eax): no shift and or. */
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    mw_tls.guard.half[0] = lo;
    mw_tls.guard.half[1] = hi;
#else
    mw_tls.guard.word = mw_now_tsc();
#endif
}

static inline void mw_clock_out(mw_call *call, int how)
{
    if (how != MW_SLOW) {
        call->t_out = mw_now_tsc();
        call->t_in = mw_tls.guard.word;
    } else {
        call->t_out = mw_now();
    }
}

/* The call in progress, for the monitor's INFLIGHT frames (core/tls.h):
 * published by the watched body always, by the slow body while the monitor
 * is on (mw_inflight_on), never by the fast one. Stored before the time in
 * (a compiler fence: x86 keeps stores in order), which the sender reads
 * before and after the fields, so that it never mixes two calls. */
static MW_ALWAYS_INLINE int mw_publishing(int how)
{
    return how == MW_WATCHED ||
           (how == MW_SLOW && MW_UNLIKELY(__atomic_load_n(&mw_inflight_on, __ATOMIC_RELAXED)));
}

/* flags: mw_inflight_flags of the function, a constant, so that only the
 * fields the call has are stored. */
static MW_ALWAYS_INLINE void mw_publish_args(int how, unsigned flags, uintptr_t comm, int peer,
                                             int tag, int root)
{
    if (!mw_publishing(how))
        return;
    if (flags & MW_INFLIGHT_HAS_COMM)
        __atomic_store_n(&mw_tls.now.comm, comm, __ATOMIC_RELAXED);
    if (flags & MW_INFLIGHT_HAS_PEER)
        __atomic_store_n(&mw_tls.now.peer, peer, __ATOMIC_RELAXED);
    if (flags & MW_INFLIGHT_HAS_TAG)
        __atomic_store_n(&mw_tls.now.tag, tag, __ATOMIC_RELAXED);
    if (flags & MW_INFLIGHT_HAS_ROOT)
        __atomic_store_n(&mw_tls.now.root, root, __ATOMIC_RELAXED);
}

static MW_ALWAYS_INLINE void mw_publish(int how, int id)
{
    if (!mw_publishing(how))
        return;
    __atomic_store_n(&mw_tls.now.id, id, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_RELEASE);
}

/* The slow body's time in is not the guard word: published after the fields. */
static MW_ALWAYS_INLINE void mw_publish_time(int how, const mw_call *call)
{
    if (how == MW_SLOW && mw_publishing(how))
        __atomic_store_n(&mw_tls.now.t_in, call->t_in, __ATOMIC_RELEASE);
}

/* The slow body's call has ended: the sender must not see it any more. */
static MW_ALWAYS_INLINE void mw_unpublish(int how)
{
    if (mw_publishing(how))
        __atomic_store_n(&mw_tls.now.t_in, 0, __ATOMIC_RELAXED);
}

/* Record the call, queue its event for the monitor (the watched body) or
 * hand it to the monitor and the trace (the slow one, while either listens:
 * core/call_events.h), release the guard. */
static MW_ALWAYS_INLINE void mw_leave_at(const mw_call *call, int id, int how, const void *site)
{
    if (how == MW_SLOW && MW_UNLIKELY(mw_callsite_depth > 1))
        site = mw_callstack_site(site);
    /* The site's look-up and the time taken in one expression, unsequenced:
     * GCC computes the time first (looking the site up first costs the fast
     * body 2 instructions, the slow one 1). */
    mw_fn_stats *s;
    mw_stats_add(s = mw_stats_of(id, site), call->t_out - call->t_in);
    if (how == MW_WATCHED) {
        if (MW_LIKELY(__atomic_load_n(&mw_call_events, __ATOMIC_RELAXED) & MW_CALL_EVENTS_MONITOR))
            mw_event_push_times(id, call->t_in, call->t_out);
    } else if (MW_IS_TRACED(how)) {
        mw_traced_record(call, id, how, 0, s);
    } else if (how == MW_SLOW) {
        if (MW_UNLIKELY(__atomic_load_n(&mw_call_events, __ATOMIC_RELAXED)))
            mw_call_event(id, call, 0, s);
        mw_unpublish(how);
    }
    mw_guard_release();
}

/* The call site of a wrapper: inlined into a body that MPI_X jumped to (or
 * into MPI_X itself), the return address is the caller's. */
#define MW_CALL_SITE __builtin_return_address(0)

/* ret, returned after the call that gave it rather than by a sibling call:
 * a sibling call that passes arguments on the stack makes GCC load every
 * stack argument into a register on entry, on the hot path too. */
static MW_ALWAYS_INLINE int mw_no_sibling_call(int ret)
{
    __asm__("" : "+r"(ret));
    return ret;
}

/* A stack argument, read from its own slot where it is used: its address
 * is taken (and hidden from the optimiser), so that GCC keeps it there
 * instead of loading it into a register on entry for several calls. */
#define MW_FROM_SLOT(arg) (*mw_slot_of(&(arg)))
#define mw_slot_of(p) __extension__({ __typeof__(p) mw_p_ = (p); __asm__("" : "+r"(mw_p_)); mw_p_; })

/* A body's call site: ra, or NULL for its caller's, read where it is used
 * (after the PMPI call, so that it needs no register across it). */
#define MW_SITE_OR_CALLER(ra) ((ra) != NULL ? (ra) : MW_CALL_SITE)

static MW_ALWAYS_INLINE void mw_leave(const mw_call *call, int id, int how)
{
    mw_leave_at(call, id, how, MW_CALL_SITE);
}

static MW_ALWAYS_INLINE void mw_leave_xfer_at(const mw_call *call, int id, int how,
                                              const void *site)
{
    if (how == MW_SLOW && MW_UNLIKELY(mw_callsite_depth > 1))
        site = mw_callstack_site(site);
    mw_fn_stats *s = mw_stats_of(id, site);
    mw_stats_add(s, call->t_out - call->t_in);
    mw_account(id, call, s);
    if (how == MW_WATCHED) {
        if (MW_LIKELY(__atomic_load_n(&mw_call_events, __ATOMIC_RELAXED) & MW_CALL_EVENTS_MONITOR))
            mw_event_push_traffic(id, call);
    } else if (MW_IS_TRACED(how)) {
        mw_traced_record(call, id, how, 1, s);
    } else if (how == MW_SLOW) {
        if (MW_UNLIKELY(__atomic_load_n(&mw_call_events, __ATOMIC_RELAXED)))
            mw_call_event(id, call, 1, s);
        mw_unpublish(how);
    }
    mw_guard_release();
}

static MW_ALWAYS_INLINE void mw_leave_xfer(const mw_call *call, int id, int how)
{
    mw_leave_xfer_at(call, id, how, MW_CALL_SITE);
}

static inline void mw_start(mw_call *call)
{
    mw_clock_in(call, MW_SLOW);
}

static inline void mw_stop(mw_call *call)
{
    mw_clock_out(call, MW_SLOW);
}

static MW_ALWAYS_INLINE void mw_exit(const mw_call *call, int id)
{
    mw_leave(call, id, MW_SLOW);
}

/* mw_exit for a call whose site the caller knows (the Fortran bridge). */
static inline void mw_exit_at(const mw_call *call, int id, const void *site)
{
    mw_leave_at(call, id, MW_SLOW, site);
}

static MW_ALWAYS_INLINE void mw_exit_xfer(const mw_call *call, int id)
{
    mw_leave_xfer(call, id, MW_SLOW);
}

/* mw_exit_xfer for a call whose site the caller knows (the Fortran bridge). */
static inline void mw_exit_xfer_at(const mw_call *call, int id, const void *site)
{
    mw_leave_xfer_at(call, id, MW_SLOW, site);
}

#endif
