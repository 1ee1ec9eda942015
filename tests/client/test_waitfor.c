/* The wait-for graph (client/waitfor.c): the edges of each kind of call,
 * the cycles and the waited-on ranks, on the cases docs/client.md names:
 * a receive waited on by a barrier, a send-send cycle, collectives on
 * unknown communicators, calls not stuck yet, a large chain. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpiwatch_protocol.h"
#include "waitfor.h"

static const int four[] = { 0, 1, 2, 3 };

static int has_edge(const mwc_waitfor *w, int from, int to)
{
    for (size_t i = 0; i < w->nedges; i++)
        if (w->edges[i].from == from && w->edges[i].to == to)
            return 1;
    return 0;
}

/* Rank 1 in MPI_Recv from 3; 0, 2 and 3 in MPI_Barrier on the world. */
static void test_recv_and_barrier(void)
{
    const uint32_t barrier = MWP_IF_COLLECTIVE | MWP_IF_WORLD;
    mwc_wf_call c[] = {
        { 0, MWP_NONE, barrier, 1 },
        { 1, 3, MWP_IF_RECEIVES, 1 },
        { 2, MWP_NONE, barrier, 1 },
        { 3, MWP_NONE, barrier, 1 },
    };
    mwc_waitfor w;
    mwc_waitfor_build(&w, four, 4, c, 4);
    CHECK(w.nedges == 4, "%zu edges", w.nedges);
    CHECK(has_edge(&w, 1, 3) && has_edge(&w, 0, 1) && has_edge(&w, 2, 1) && has_edge(&w, 3, 1),
          "edges");
    CHECK(w.ncycles == 1 && w.cycle_len[0] == 2 && w.cycles[0][0] == 1 && w.cycles[0][1] == 3,
          "%zu cycles", w.ncycles);
    CHECK(w.nwaited == 2 && w.waited[0].rank == 1 && w.waited[0].nwaiters == 3 &&
              w.waited[0].waiters[0] == 0 && w.waited[0].waiters[1] == 2 &&
              w.waited[0].waiters[2] == 3,
          "waited on");
    CHECK(w.nwaited == 2 && w.waited[1].rank == 3 && w.waited[1].nwaiters == 1 &&
              w.waited[1].waiters[0] == 1, "rank 3 waited on by 1");
    CHECK(w.nstuck == 4, "%zu stuck", w.nstuck);
    mwc_waitfor_free(&w);

    /* Nothing has lasted long enough yet: no edges at all, nothing stuck. */
    for (int i = 0; i < 4; i++)
        c[i].stuck = 0;
    mwc_waitfor_build(&w, four, 4, c, 4);
    CHECK(w.nedges == 0 && w.ncycles == 0 && w.nwaited == 0 && w.nstuck == 0, "not stuck");
    mwc_waitfor_free(&w);

    /* Only the receive is stuck: it waits for 3; nobody waits for 1. The
     * barrier ranks still count as inside it. */
    c[1].stuck = 1;
    mwc_waitfor_build(&w, four, 4, c, 4);
    CHECK(w.nedges == 1 && has_edge(&w, 1, 3) && w.ncycles == 0, "%zu edges", w.nedges);
    CHECK(w.nstuck == 1 && w.stuck[0] == 1, "stuck");
    mwc_waitfor_free(&w);
}

/* Two ranks in MPI_Ssend to each other; a third completes a request from 0. */
static void test_send_cycle(void)
{
    mwc_wf_call c[] = {
        { 0, 1, MWP_IF_SENDS, 1 },
        { 1, 0, MWP_IF_SENDS, 1 },
        { 2, 0, MWP_IF_COMPLETES, 1 },
        { 3, MWP_ANY, MWP_IF_RECEIVES, 1 },   /* any source: no edge */
    };
    mwc_waitfor w;
    mwc_waitfor_build(&w, four, 4, c, 4);
    CHECK(w.nedges == 3 && has_edge(&w, 0, 1) && has_edge(&w, 1, 0) && has_edge(&w, 2, 0),
          "%zu edges", w.nedges);
    CHECK(w.ncycles == 1 && w.cycle_len[0] == 2 && w.cycles[0][0] == 0 && w.cycles[0][1] == 1,
          "cycle");
    CHECK(w.nwaited == 2 && w.waited[0].rank == 0 && w.waited[0].nwaiters == 2, "waited on 0");
    mwc_waitfor_free(&w);

    /* A rank receiving from itself waits for itself: a cycle of one. */
    mwc_wf_call self = { 2, 2, MWP_IF_RECEIVES, 1 };
    mwc_waitfor_build(&w, four, 4, &self, 1);
    CHECK(w.ncycles == 1 && w.cycle_len[0] == 1 && w.cycles[0][0] == 2, "self cycle");
    mwc_waitfor_free(&w);
}

/* A collective on a communicator other than the world's: its members are
 * not known, so no edge. A world collective waits for the ranks outside one,
 * including ranks with no call in progress, once per rank however many of
 * its threads are in it. */
static void test_collectives(void)
{
    mwc_wf_call c[] = {
        { 0, MWP_NONE, MWP_IF_COLLECTIVE, 1 },
        { 1, MWP_NONE, MWP_IF_COLLECTIVE | MWP_IF_WORLD, 1 },
        { 1, MWP_NONE, MWP_IF_COLLECTIVE | MWP_IF_WORLD, 1 },
        { 2, MWP_NONE, MWP_IF_COLLECTIVE | MWP_IF_WORLD, 0 },  /* entered, not stuck */
    };
    mwc_waitfor w;
    mwc_waitfor_build(&w, four, 4, c, 4);
    CHECK(w.nedges == 2 && has_edge(&w, 1, 0) && has_edge(&w, 1, 3), "%zu edges", w.nedges);
    CHECK(w.ncycles == 0, "cycles");
    CHECK(w.nstuck == 2 && w.stuck[0] == 0 && w.stuck[1] == 1, "stuck");
    mwc_waitfor_free(&w);
    /* No calls, no ranks: an empty graph. */
    mwc_waitfor_build(&w, NULL, 0, NULL, 0);
    CHECK(w.nedges == 0 && w.ncycles == 0 && w.nwaited == 0, "empty");
    mwc_waitfor_free(&w);
}

/* A long chain closed into one ring (no recursion limit), and a peer that is
 * not watched: it is still a node that can be waited on. */
static void test_large(void)
{
    enum { N = 200000 };
    int *ranks = malloc(N * sizeof *ranks);
    mwc_wf_call *c = malloc(N * sizeof *c);
    for (int i = 0; i < N; i++) {
        ranks[i] = N - 1 - i;
        c[i] = (mwc_wf_call){ i, (i + 1) % N, MWP_IF_SENDS, 1 };
    }
    mwc_waitfor w;
    mwc_waitfor_build(&w, ranks, N, c, N);
    CHECK(w.ncycles == 1 && w.cycle_len[0] == N && w.cycles[0][0] == 0 &&
              w.cycles[0][N - 1] == N - 1, "ring of %d", N);
    mwc_waitfor_free(&w);
    mwc_wf_call out = { 0, 7, MWP_IF_RECEIVES, 1 };
    mwc_waitfor_build(&w, four, 4, &out, 1);
    CHECK(w.nedges == 1 && has_edge(&w, 0, 7) && w.nwaited == 1 && w.waited[0].rank == 7,
          "unwatched peer");
    mwc_waitfor_free(&w);
    free(ranks);
    free(c);
}

int main(void)
{
    test_recv_and_barrier();
    test_send_cycle();
    test_collectives();
    test_large();
    return CHECK_DONE("test_waitfor");
}
