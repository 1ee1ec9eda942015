/* The wait-state analysis at MPI_Finalize (docs/wait-states.md, "At
 * MPI_Finalize"), in parallel as Scalasca's replay: each rank reads its own
 * trace file back, ships each peer only the calls it needs (its sends to
 * that peer and its receives from it), combines each collective instance's
 * entries by a reduction (the last to enter, the root), analyses its own
 * waiting with the client's rules (client/wait_states.h) and the causes are
 * merged onto rank 0 (report/wait_merge.c). Rank 0 never holds the trace. */
#ifndef MW_REPORT_WAIT_FINALIZE_H
#define MW_REPORT_WAIT_FINALIZE_H

#include <mpi.h>
#include <stdint.h>

#include "core/compiler.h"
#include "wait_states.h"

/* A site as every rank names it: its module (hash) and offset there
 * (report/callsites.h); module 0 when unknown. */
typedef struct mw_wait_site {
    uint64_t module, offset;
} mw_wait_site;

/* What the timeline in the HTML report takes of a rank (report/timeline_part.h),
 * times on rank 0's clock: each of its calls, and each message it received
 * (the send's rank and entry; the receive's call, by index, left). */
typedef struct {
    int32_t fn;                /* this build's function id; -1 unknown */
    double enter, leave;
} mw_timeline_call;

typedef struct {
    int32_t send_rank;
    double send_enter;
    size_t recv_call;
} mw_timeline_message;

/* One rank's analysis: its own waiting and what caused it, sites as
 * indices + 1 into sites[] (0 none). */
typedef struct mw_wait_local {
    mww_result result;
    mw_wait_site *sites;
    size_t nsites;
    size_t calls;              /* its trace's calls */
    long extra_collectives;    /* instances it counts beside the analysis's */
    long incomplete_collectives;
    int failed;                /* 1: it could not analyse (said on stderr) */
    /* With details (the timeline): its calls (calls of them), the messages
     * it received, and in result.waits its wait states (victim_call an
     * index into timeline_calls, cause into result.causes). */
    mw_timeline_call *timeline_calls;
    mw_timeline_message *timeline_messages;
    size_t timeline_nmessages;
} mw_wait_local;

/* The analysis on every rank of comm (collective); details: keep what the
 * timeline needs. The local result is then to be merged
 * (report/wait_merge.c) and freed (mw_wait_local_free). */
MW_HIDDEN void mw_wait_analyze_local(MPI_Comm comm, int details, mw_wait_local *out);

MW_HIDDEN void mw_wait_local_free(mw_wait_local *l);

#endif
