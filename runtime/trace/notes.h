/* What the trace adds to a call's record beyond the profile's notes
 * (docs/trace.md, "What is recorded per call"): the request a non-blocking
 * call starts, the requests a wait or test completes (with their statuses),
 * a send-receive's own receive,
 * a rooted collective's root, and whether a poll found nothing. The slow
 * body calls these (generator/mpiwatch_gen/trace_notes.py) only while the
 * trace records, before leaving; mw_trace_record takes what they noted.
 * Part of the wrappers' API (mw_wrap.h). */
#ifndef MW_TRACE_NOTES_H
#define MW_TRACE_NOTES_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "core/call_events.h"
#include "core/compiler.h"
#include "trace/pending.h"

/* A request handle's bits, as records name it (0 pads a narrower handle). */
static inline uint64_t mw_request_bits(MPI_Request request)
{
    uint64_t bits = 0;
    memcpy(&bits, &request, sizeof request < sizeof bits ? sizeof request : sizeof bits);
    return bits;
}

/* Does the trace record (the slow body's test before its notes)? */
static inline int mw_trace_listening(void)
{
    return __atomic_load_n(&mw_call_events, __ATOMIC_RELAXED) & MW_CALL_EVENTS_TRACE;
}

/* How a completion call says which of its requests completed. */
enum {
    MW_TRACE_DONE_ONE,    /* its one request (MPI_Wait; MPI_Test with its flag set) */
    MW_TRACE_DONE_ALL,    /* all of them (MPI_Waitall; MPI_Testall with its flag set) */
    MW_TRACE_DONE_ANY,    /* the one at *index (MPI_Waitany, MPI_Testany) */
    MW_TRACE_DONE_SOME    /* *outcount of them, at indices (MPI_Waitsome, MPI_Testsome) */
};

/* A call that started request on comm: recorded by its handle, which the
 * readers match to the completion's (docs/trace.md, "Requests"); receives:
 * a receive, whose completion's status says the source, as a rank of comm,
 * which mw_trace_note_any_source keeps for. Nothing when ret is an error. */
MW_HIDDEN void mw_trace_note_request(int ret, MPI_Request request, MPI_Comm comm, int receives);

/* A receive on comm whose source the start does not name (MPI_ANY_SOURCE):
 * kept until a completion of its handle, whose status's source then becomes
 * a world rank. */
MW_HIDDEN MW_NOINLINE void mw_trace_note_any_source(MPI_Request request, MPI_Comm comm);

/* Before a wait or test: the count requests it may complete. */
MW_HIDDEN void mw_trace_note_completing(int count, const MPI_Request *requests);

/* After it: which completed (form; flag NULL for a wait; index: *index for
 * ANY, *outcount for SOME; indices for SOME), with their statuses (a single
 * status for the ONE and ANY forms; MPI_STATUS(ES)_IGNORE). */
MW_HIDDEN void mw_trace_note_completed(int ret, int form, const int *flag, const int *index,
                                       const int *indices, const MPI_Status *statuses);

/* A non-blocking probe's flag: a poll that found nothing when 0. Inline:
 * a polling loop's every call notes it. */
static inline void mw_trace_note_poll(int ret, const int *flag)
{
    mw_trace_pending_tls.poll_failed = ret == MPI_SUCCESS && !*flag;
}

/* A call's own receive (MPI_Sendrecv's, MPI_Sendrecv_replace's), from
 * source with tag into count elements of type: noted as a completion of
 * request 0 with what status says (the matched source, tag and bytes), or
 * with an ignored status what the arguments say. Nothing when ret is an
 * error, from MPI_PROC_NULL, or from MPI_ANY_SOURCE with the status ignored. */
MW_HIDDEN void mw_trace_note_received(int ret, int source, int tag, MPI_Count count,
                                      MPI_Datatype type, MPI_Comm comm, const MPI_Status *status);

/* A rooted collective's root, a rank of comm (MPI_ROOT, MPI_PROC_NULL for
 * an intercommunicator's root group). */
MW_HIDDEN void mw_trace_note_root(int root, MPI_Comm comm);

#endif
