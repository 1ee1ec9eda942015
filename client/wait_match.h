/* The wait-state analysis's matching (client/wait_match.c), inside
 * client/wait_states.c: sends to receives and collective calls to their
 * instances, each wait state found added to the analysis. */
#ifndef MWC_WAIT_MATCH_H
#define MWC_WAIT_MATCH_H

#include <stddef.h>

#include "wait_states.h"

typedef struct {
    const mww_rank *ranks;
    int nranks;
    size_t **prev;             /* by rank, by call: the same thread's previous call + 1; 0 none */
    mww_wait *waits;
    size_t nwaits, cap;
    const int *victim;         /* mww_options.victim */
    int oom;
} mww_analysis;

/* Call `call` of rank `rank`'s previous MPI call on its thread, named. */
mww_prev mww_previous(const mww_analysis *a, int rank, size_t call);

/* Late Sender and Late Receiver: the k-th send on a channel (communicator,
 * source, destination, tag) matches the k-th receive on it (a non-blocking
 * receive in order at its post, waiting in the call that completed it). 0, or -1 out
 * of memory. Counts messages, unmatched and unordered_receivers in res. */
int mww_match_messages(mww_analysis *a, const mww_options *opt, mww_result *res);

/* A receiving call whose message is not known (a receive from
 * MPI_ANY_SOURCE with its status ignored, a non-blocking one not seen
 * completed, a persistent or matched receive, a send-receive whose receive
 * the trace does not say): its rank's
 * receives on its communicator lose their order (ncalls: its rank's). */
int mww_hides_order(const mww_call *c, size_t ncalls);

/* The collective patterns: per communicator, a rank's n-th collective call
 * is the n-th instance. 0, or -1 out of memory. Counts collectives and
 * incomplete_collectives in res. */
int mww_match_collectives(mww_analysis *a, mww_result *res);

/* The wait states of instances matched already (mww_options.instances). */
void mww_given_instances(mww_analysis *a, const mww_instance *v, size_t n);

#endif
