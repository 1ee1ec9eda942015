/* Unit tests of the readers' request matching (client/trace_requests.c):
 * a completion belongs to the latest start of its handle that left before
 * the completing call entered, whichever thread made either; requests are
 * then named by their starting call's place; a receive's status source is
 * kept (or taken from its start), a send's dropped; a completion no start
 * matches is dropped. Calls are made up: times, threads, handles. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "trace_read.h"
#include "trace_requests.h"

static char *names[] = {"MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Sendrecv"};
enum { ISEND, IRECV, WAIT, SENDRECV };

static mwc_trace_rank rank;

/* A call of fn on thread from t_in to t_out, starting request handle (0 none). */
static size_t call(int fn, uint32_t thread, uint64_t t_in, uint64_t t_out, uint64_t handle,
                   int peer)
{
    rank.calls = realloc(rank.calls, (rank.ncalls + 1) * sizeof *rank.calls);
    mwc_trace_call *c = &rank.calls[rank.ncalls];
    memset(c, 0, sizeof *c);
    c->fn = fn;
    c->thread = thread;
    c->t_in = t_in;
    c->t_out = t_out;
    c->request = handle;
    c->traffic = fn == ISEND || fn == IRECV;
    c->peer = peer;
    c->tag = 5;
    c->first_done = rank.ndone;
    return rank.ncalls++;
}

/* The last call completed handle, its status saying source, tag, bytes. */
static void completed(uint64_t handle, int source, int tag, uint64_t bytes)
{
    rank.done = realloc(rank.done, (rank.ndone + 1) * sizeof *rank.done);
    rank.done[rank.ndone++] = (mwc_trace_done){handle, source, tag, bytes};
    rank.calls[rank.ncalls - 1].ndone++;
}

static void reset(void)
{
    free(rank.calls);
    free(rank.done);
    memset(&rank, 0, sizeof rank);
    rank.names = names;
    rank.nnames = 4;
}

/* The request id the i-th completion of call c names (0: none kept). */
static uint64_t named(size_t c, uint32_t i)
{
    return i < rank.calls[c].ndone ? rank.done[rank.calls[c].first_done + i].request : 0;
}

int main(void)
{
    /* One handle reused: each wait completes the start just before it. */
    reset();
    size_t s1 = call(ISEND, 0, 10, 20, 0xa0, 1);
    size_t w1 = call(WAIT, 0, 30, 40, 0, -1);
    completed(0xa0, 0, 0, 0);
    size_t s2 = call(ISEND, 0, 50, 60, 0xa0, 1);
    size_t w2 = call(WAIT, 0, 70, 80, 0, -1);
    completed(0xa0, 0, 0, 0);
    CHECK(mwc_trace_match_requests(&rank) == 0, "matched");
    CHECK(rank.calls[s1].request == s1 + 1 && rank.calls[s2].request == s2 + 1, "ids");
    CHECK(named(w1, 0) == s1 + 1 && named(w2, 0) == s2 + 1, "reuse: %llu %llu",
          (unsigned long long)named(w1, 0), (unsigned long long)named(w2, 0));
    CHECK(rank.done[rank.calls[w1].first_done].source == -1, "a send's status is dropped");

    /* Another thread reuses the handle after the first wait entered (MPICH
     * hands the freed handle on at once): the first wait keeps its own. */
    reset();
    s1 = call(IRECV, 0, 10, 20, 0xb0, -1);
    s2 = call(IRECV, 1, 45, 50, 0xb0, 2);   /* thread 1, started while thread 0 waited */
    w2 = call(WAIT, 1, 55, 60, 0, -1);
    completed(0xb0, -1, 9, 16);
    w1 = call(WAIT, 0, 40, 70, 0, -1);   /* entered at 40, before the other start left */
    completed(0xb0, 4, 8, 32);
    CHECK(mwc_trace_match_requests(&rank) == 0, "matched");
    CHECK(named(w1, 0) == s1 + 1, "the earlier wait completes the earlier start");
    CHECK(named(w2, 0) == s2 + 1, "the later wait completes the later start");
    const mwc_trace_done *d2 = &rank.done[rank.calls[w2].first_done];
    CHECK(d2->source == 2 && d2->tag == 9 && d2->bytes == 16,
          "a receive's source is its start's when its status gave none: %d %d", d2->source,
          d2->tag);
    const mwc_trace_done *d1 = &rank.done[rank.calls[w1].first_done];
    CHECK(d1->source == 4 && d1->bytes == 32, "an any-source receive keeps its status's source");

    /* A start on one thread completed on another. */
    reset();
    s1 = call(ISEND, 0, 10, 20, 0xc0, 1);
    w1 = call(WAIT, 1, 25, 30, 0, -1);
    completed(0xc0, 0, 0, 0);
    CHECK(mwc_trace_match_requests(&rank) == 0 && named(w1, 0) == s1 + 1, "across threads");

    /* Two outstanding requests of one handle (Open MPI's to MPI_PROC_NULL),
     * both completed in one call; a freed request's handle reused. */
    reset();
    s1 = call(ISEND, 0, 10, 20, 0xd0, -1);
    s2 = call(ISEND, 0, 30, 40, 0xd0, -1);
    w1 = call(WAIT, 0, 50, 60, 0, -1);
    completed(0xd0, 0, 0, 0);
    completed(0xd0, 0, 0, 0);
    CHECK(mwc_trace_match_requests(&rank) == 0, "matched");
    CHECK(rank.calls[w1].ndone == 2 && named(w1, 0) != named(w1, 1) &&
              (named(w1, 0) == s1 + 1 || named(w1, 0) == s2 + 1) &&
              (named(w1, 1) == s1 + 1 || named(w1, 1) == s2 + 1),
          "one handle twice: both completed once");

    /* A completion of a request no call started is dropped; a call's own
     * receive (request 0) is kept; a wait before its start does not match. */
    reset();
    w1 = call(WAIT, 0, 5, 8, 0, -1);
    completed(0xe0, 3, 1, 8);
    size_t sr = call(SENDRECV, 0, 9, 9, 0, 1);
    completed(0, 1, 2, 4);
    s1 = call(ISEND, 0, 10, 20, 0xe0, 1);
    CHECK(mwc_trace_match_requests(&rank) == 0, "matched");
    CHECK(rank.calls[w1].ndone == 0, "an unstarted request's completion is dropped");
    CHECK(rank.calls[sr].ndone == 1 && named(sr, 0) == 0 && rank.ndone == 1,
          "a call's own receive is kept");
    CHECK(rank.calls[s1].request == s1 + 1, "a request never completed keeps its id");

    reset();
    return CHECK_DONE("test_trace_requests");
}
