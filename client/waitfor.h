/* Who waits for whom, from the calls the ranks are inside (INFLIGHT), and
 * what that graph says: the cycles (deadlock) and the ranks others wait
 * for. Only a call that has lasted longer than the stuck threshold makes a
 * rank wait: a call in progress for a moment is normal.
 *
 * Edges, from a stuck call of rank r:
 * - it receives from, sends to, or completes a request of a known peer
 *   (>= 0): r waits for peer;
 * - a collective on a communicator whose group is MPI_COMM_WORLD's: r waits
 *   for every watched rank that is not itself inside such a collective (the
 *   ones that have not entered it yet);
 * - anything else (MPI_ANY_SOURCE, a collective on another communicator,
 *   whose members the client does not know): no edge.
 * Kept apart from the model so that it can be tested on its own. */
#ifndef MWC_WAITFOR_H
#define MWC_WAITFOR_H

#include <stddef.h>
#include <stdint.h>

/* One call in progress, as the graph needs it. */
typedef struct {
    int rank;        /* the world rank inside the call */
    int32_t peer;    /* world rank, or negative: none, unknown or any */
    uint32_t flags;  /* MWP_IF_* */
    int stuck;       /* it has lasted longer than the threshold */
} mwc_wf_call;

typedef struct { int from, to; } mwc_wf_edge;

typedef struct {
    int rank;
    size_t nwaiters;
    int *waiters;    /* ascending */
} mwc_wf_waited;

typedef struct mwc_waitfor {
    size_t nstuck;
    int *stuck;             /* ranks with a stuck call, ascending */
    size_t nedges;
    mwc_wf_edge *edges;     /* sorted by from, then to; no repeats */
    size_t ncycles;
    size_t *cycle_len;
    int **cycles;           /* each the ranks of one strongly connected group of
                             * two or more (or one rank waiting for itself),
                             * ascending; groups ordered by their first rank */
    size_t nwaited;
    mwc_wf_waited *waited;  /* ranks with waiters, most waiters first, then by rank */
} mwc_waitfor;

/* ranks: the watched world ranks (any order, repeats ignored); calls: every
 * call in progress, stuck or not. The result holds its own memory. */
void mwc_waitfor_build(mwc_waitfor *w, const int *ranks, size_t nranks, const mwc_wf_call *calls,
                       size_t ncalls);
void mwc_waitfor_free(mwc_waitfor *w);

#endif
