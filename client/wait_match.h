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
    int oom;
} mww_analysis;

/* Late Sender and Late Receiver: the k-th send on a channel (communicator,
 * source, destination, tag) matches the k-th receive on it (a non-blocking
 * receive in order at its post, waiting in the call that completed it). 0, or -1 out
 * of memory. Counts messages, unmatched and unordered_receivers in res. */
int mww_match_messages(mww_analysis *a, const mww_options *opt, mww_result *res);

/* The collective patterns: per communicator, a rank's n-th collective call
 * is the n-th instance. 0, or -1 out of memory. Counts collectives and
 * incomplete_collectives in res. */
int mww_match_collectives(mww_analysis *a, mww_result *res);

#endif
