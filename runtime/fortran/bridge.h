/* The bridge between libmpiwatch and its Fortran library, libmpiwatch_f.
 *
 * libmpiwatch_f holds one entry point per Fortran spelling of each MPI
 * function (mpi_send_, mpi_send_f08_, ...). Each forwards its arguments,
 * untouched, to the MPI's own Fortran profiling entry point (pmpi_send_,
 * pmpi_send_f08_, ...) and counts the call here, through these functions:
 *
 *     if (!mpiwatch_fortran_enter(MW_ID_MPI_Send))  -- off, or nested in a profiled call
 *         { pmpi_send_(...); return; }
 *     pmpi_send_(...);                 -- the MPI's binding does the rest
 *     mpiwatch_fortran_exit(MW_ID_MPI_Send, __builtin_return_address(0));
 *
 * The re-entry guard and the clock live in libmpiwatch (thread-local, hidden),
 * so they are reached through these exported calls. While the guard is held,
 * a C MPI_X that the MPI's Fortran binding calls (MPICH's mpif.h binding does)
 * is not counted a second time.
 *
 * This is an internal interface between two libraries built together: not
 * public API. mpiwatch_fortran_attach() refuses a libmpiwatch_f generated
 * for another function table. */
#ifndef MW_FORTRAN_H
#define MW_FORTRAN_H

#include <stdint.h>

#include <mpi.h>

#include "core/compiler.h"
#include "core/mode.h"
#include "trace/notes.h"   /* MW_TRACE_DONE_* */

/* An entry point's gate (fortran/gate.h) jumps through its slot, as MPI_X
 * does through the C wrapper's: to the MPI's entry point while profiling is
 * off, to the entry point's fast body (below) in the usual profiled case,
 * else to its profiled body, which goes through the calls below. The slots
 * live in libmpiwatch_f and start at the profiled body, right in every
 * mode; libmpiwatch points them with its own (core/mode.h). Where the gate
 * is C it reads mpiwatch_fortran_mode instead, the word the slots follow. */

/* Called by libmpiwatch_f when it is loaded (or first linked in): fn_count is
 * its MW_FN_COUNT and mpi its MPI description; layering says which layer the
 * MPI's Fortran bindings call (see docs/fortran.md). Returns 1 if the two
 * libraries agree; otherwise warns once and leaves Fortran calls unprofiled. */
MW_EXPORT int mpiwatch_fortran_attach(int fn_count, const char *mpi, const char *layering);

/* Called by libmpiwatch_f when it is loaded, after mpiwatch_fortran_attach
 * and the fast bodies' targets: its entry points' slots and their ways. */
MW_EXPORT void mpiwatch_fortran_slots(const mw_fortran_slot *slots, int count);
/* Nonzero if the call is profiled: the guard is taken and the clock started.
 * MW_F_READY if, moreover, the MPI is initialised, so that the entry point
 * may convert its arguments and end in its mpiwatch_fortran_after_X function
 * (generated/fortran_calls.c); MW_F_COUNT_ONLY before MPI_Init or after the
 * report, when the call is only counted (mpiwatch_fortran_exit). id names
 * the call to the live monitor while it is in progress (its function; the
 * arguments stay Fortran's until the call has returned). */
enum { MW_F_COUNT_ONLY = 1, MW_F_READY = 2 };
MW_EXPORT int mpiwatch_fortran_enter(int id);

/* 1 if arguments may be converted now (for the calls that convert them
 * whether or not they are profiled: freeing a request, *_init calls). */
MW_EXPORT int mpiwatch_fortran_ready(void);

/* Stop the clock, record the call as function id made from site (the
 * Fortran entry point's return address: the program's call), release the
 * guard. */
MW_EXPORT void mpiwatch_fortran_exit(int id, const void *site);

/* After the MPI's MPI_INIT/MPI_INIT_THREAD returned: stop the clock, start
 * the runtime if MPI is now initialised, and record the call if profiled. */
MW_EXPORT void mpiwatch_fortran_after_init(int profiled, int id);

/* Before the MPI's MPI_FINALIZE: count the call from site (the program's
 * call; untimed: its time cannot be in the report it writes), build the
 * report, and hold the guard for the forwarded call. Returns 1 if the caller
 * must release the guard afterwards. */
MW_EXPORT int mpiwatch_fortran_before_finalize(int id, const void *site);

/* Before the MPI's MPI_ABORT: count the call from site (untimed: it does
 * not return), write this rank's partial profile (errorcode is the
 * program's Fortran INTEGER), and hold the guard for the forwarded call.
 * Returns 1 if the caller must release the guard afterwards. */
MW_EXPORT int mpiwatch_fortran_before_abort(int id, const void *site, const void *errorcode);

/* Take the guard, profiled or not, so that nothing the MPI does within the
 * forwarded call is counted (MPI_PCONTROL may switch profiling on while the
 * MPI's binding calls the C MPI_Pcontrol). Returns 1 if the caller must
 * release it. */
MW_EXPORT int mpiwatch_fortran_hold(void);

/* Release the guard taken by mpiwatch_fortran_hold(),
 * mpiwatch_fortran_before_finalize() or mpiwatch_fortran_before_abort(). */
MW_EXPORT void mpiwatch_fortran_release(void);

/* How many entries a per-process array argument of comm has (the remote
 * group's size for an intercommunicator), from libmpiwatch's handle cache:
 * for converting MPI_ALLTOALLW's arrays of datatypes. */
MW_EXPORT int mpiwatch_fortran_comm_peers(MPI_Comm comm);

/* MPI_PCONTROL's level (0 off, 1 on, 2 on and flush). */
MW_EXPORT void mpiwatch_fortran_pcontrol(int level);

/* The Fortran sentinels that libmpiwatch_f learned at load time, handed over
 * one by one (fortran/convert.h): libmpiwatch's fast bodies convert too. */
MW_EXPORT void mpiwatch_fortran_note_sentinel(int kind, intptr_t address);

/* The fast bodies. While mpiwatch_fortran_mode (core/mode.h) says
 * MW_FMODE_FAST, the slot of an entry point that moves data or is only
 * counted points at its fast body in libmpiwatch,
 * mpiwatch_fortran_fast_<impl> (generated/fortran_calls.c), which does what
 * the C wrapper's fast body does (the guard and the time in one pair of
 * stores, the C wrapper's own notes inline, the call site from its return
 * address) around the MPI's Fortran profiling entry point, plus the
 * conversions. libmpiwatch cannot link to the MPI's Fortran library, so each
 * binding hands it, at load time, the addresses of the entry points' targets
 * (pmpi_x_), in the order of the generated code:
 * mpiwatch_fortran_fast_targets_<binding>(targets, count) (count is checked;
 * on a mismatch no Fortran call takes the fast way). Other entry points, and
 * every entry point in the other modes, take their slow body in libmpiwatch_f
 * (the calls above). */

/* The trace's notes of a profiled Fortran call (trace/notes.h), from the
 * entry point's arguments as the MPI's mpif.h binding passes them (INTEGER
 * handles, 1-based indices, INTEGER statuses, LOGICAL flags): called by
 * the profiled body around the MPI's call (generator/mpiwatch_gen/
 * fortran_trace.py), before its end is recorded; nothing unless the trace
 * records. count NULL: one request. form: MW_TRACE_DONE_*. */
MW_EXPORT void mpiwatch_fortran_trace_request(const void *ierror, const void *request,
                                              const void *comm, int receives);
MW_EXPORT void mpiwatch_fortran_trace_completing(const void *count, const void *requests);
MW_EXPORT void mpiwatch_fortran_trace_completed(const void *ierror, int form, const void *count,
                                                const void *flag, const void *index,
                                                const void *indices, const void *statuses);
MW_EXPORT void mpiwatch_fortran_trace_poll(const void *ierror, const void *flag);
/* The call made the communicator comm (INTEGER): its identity for the
 * trace (trace/comm_ids.h). */
MW_EXPORT void mpiwatch_fortran_trace_comm(const void *ierror, const void *comm);

#endif
