/* The wait-state analysis (client/wait_states.c) on synthetic calls: each
 * pattern's time and cause (the late rank, its site and the site before),
 * messages matched in non-overtaking order, receives that cannot be matched
 * by order, incomplete collectives, and times on one clock far from zero
 * whose ranks start at different moments (as offsets between the ranks'
 * own clocks leave them once unified): only the times decide; and the
 * unification itself (client/wait_input.c): ranks with other tick rates,
 * origins and wall clocks at their origins. Every analysis is also run rank
 * by rank, as at MPI_Finalize (mww_options.victim), and must sum to the
 * whole. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "wait_input.h"
#include "wait_states.h"

#define NEAR(x, y) (fabs((x) - (y)) < 1e-6)

/* A rank's calls, built one by one. */
typedef struct {
    mww_call c[64];
    size_t n;
} calls;

static void add(calls *r, const char *fn, double enter, double leave, int peer, int tag,
                int comm, uint64_t site)
{
    r->c[r->n++] = (mww_call){fn, enter, leave, peer, tag, comm, -1, 8, site, 0, 0, 0, -1, -1};
}

static void rooted(calls *r, const char *fn, double enter, double leave, int root, uint64_t site)
{
    r->c[r->n++] = (mww_call){fn, enter, leave, -1, -1, 0, root, 8, site, 0, 0, 0, -1, -1};
}

/* Each rank's own analysis (mww_options.victim, as at MPI_Finalize) sums
 * to the whole one: waiting, direct, messages, unmatched ends, unordered
 * receivers, and each rank's waiting. */
static void check_victims(const mww_rank *ranks, int n, const mww_result *whole)
{
    double waiting = 0, direct = 0;
    long messages = 0, unmatched = 0, unordered = 0;
    for (int k = 0; k < n; k++) {
        mww_result one;
        mww_options opt = {.rendezvous_bytes = MWW_RENDEZVOUS_BYTES_DEFAULT, .victim = &k};
        CHECK(mww_analyze(ranks, n, &opt, &one) == 0, "analyze rank %d", k);
        CHECK(NEAR(one.waiting, whole->rank_waiting[k]), "rank %d alone waited %g, not %g", k,
              one.waiting, whole->rank_waiting[k]);
        waiting += one.waiting;
        direct += one.direct;
        messages += one.messages;
        unmatched += one.unmatched;
        unordered += one.unordered_receivers;
        mww_result_free(&one);
    }
    CHECK(NEAR(waiting, whole->waiting) && NEAR(direct, whole->direct) &&
              messages == whole->messages && unmatched == whole->unmatched &&
              unordered == whole->unordered_receivers,
          "by rank: waiting %g direct %g, %ld messages, %ld unmatched, %ld unordered; whole: "
          "%g %g, %ld, %ld, %ld", waiting, direct, messages, unmatched, unordered, whole->waiting,
          whole->direct, whole->messages, whole->unmatched, whole->unordered_receivers);
}

static mww_result analyze(calls *r, int n)
{
    mww_rank ranks[8];
    for (int k = 0; k < n; k++)
        ranks[k] = (mww_rank){r[k].c, r[k].n, NULL};
    mww_result res;
    mww_options opt = {.rendezvous_bytes = MWW_RENDEZVOUS_BYTES_DEFAULT, .details = 0};
    int rc = mww_analyze(ranks, n, &opt, &res);
    CHECK(rc == 0, "analyze: %d", rc);
    if (rc == 0)
        check_victims(ranks, n, &res);
    return res;
}

/* Rank 0 computes 0.3 s between its MPI_Init (site 0x10) and its send
 * (0x20); rank 1 waits in MPI_Recv from 0.1. The times start at T; rank 1
 * began `early` seconds before rank 0 (its MPI_Init then): the waiting is
 * the same, as only the times of the matched calls count. */
static void test_late_sender(double T, double early)
{
    calls r[2] = {0};
    add(&r[0], "MPI_Init", T, T + 0.01, -1, -1, -1, 0x10);
    add(&r[0], "MPI_Send", T + 0.4, T + 0.41, 1, 7, 0, 0x20);
    add(&r[1], "MPI_Init", T - early, T - early + 0.01, -1, -1, -1, 0x10);
    add(&r[1], "MPI_Recv", T + 0.1, T + 0.42, 0, 7, 0, 0x30);
    mww_result res = analyze(r, 2);
    CHECK(res.messages == 1 && res.unmatched == 0, "%ld messages, %ld unmatched", res.messages,
          res.unmatched);
    CHECK(NEAR(res.pattern_time[MWW_LATE_SENDER], 0.3), "late sender %g",
          res.pattern_time[MWW_LATE_SENDER]);
    CHECK(res.ncauses == 1, "%zu causes", res.ncauses);
    if (res.ncauses == 1) {
        const mww_cause *c = &res.causes[0];
        CHECK(c->rank == 0 && c->site == 0x20 && c->prev_site == 0x10 &&
                  strcmp(c->function, "MPI_Send") == 0 && strcmp(c->prev_function, "MPI_Init") == 0 &&
                  c->instances == 1 && c->waiting_ranks == 1 && c->pattern == MWW_LATE_SENDER,
              "cause rank %d site %#llx prev %#llx", c->rank, (unsigned long long)c->site,
              (unsigned long long)c->prev_site);
    }
    CHECK(NEAR(res.rank_waiting[1], 0.3) && NEAR(res.rank_caused[0], 0.3), "by rank");
    CHECK(NEAR(res.mpi_time, 0.01 + 0.32), "mpi time %g (MPI_Init is not MPI time)", res.mpi_time);
    mww_result_free(&res);
}

/* The send began first: no wait. A receive that ended before the send
 * began (impossible on one clock) is not charged more than its length. */
static void test_no_wait_and_bounds(void)
{
    calls r[2] = {0};
    add(&r[0], "MPI_Send", 1.0, 1.01, 1, 0, 0, 0x20);
    add(&r[1], "MPI_Recv", 1.005, 1.02, 0, 0, 0, 0x30);
    add(&r[0], "MPI_Send", 3.0, 3.01, 1, 0, 0, 0x20);
    add(&r[1], "MPI_Recv", 2.0, 2.5, 0, 0, 0, 0x30);
    mww_result res = analyze(r, 2);
    CHECK(res.messages == 2, "%ld messages", res.messages);
    CHECK(NEAR(res.waiting, 0.5), "waiting %g (only the second receive's 0.5 s)", res.waiting);
    mww_result_free(&res);
}

/* Non-overtaking order per (communicator, source, tag): rank 1 receives
 * tag 2 first, then tag 1; rank 0 sent tag 1 late. Each receive is matched
 * to the send with its tag, not the first sent. */
static void test_order_by_tag(void)
{
    calls r[2] = {0};
    add(&r[0], "MPI_Send", 1.0, 1.001, 1, 2, 0, 0x20);
    add(&r[0], "MPI_Send", 2.0, 2.001, 1, 1, 0, 0x21);
    add(&r[1], "MPI_Recv", 0.5, 1.002, 0, 2, 0, 0x30);
    add(&r[1], "MPI_Recv", 1.5, 2.002, 0, 1, 0, 0x31);
    mww_result res = analyze(r, 2);
    CHECK(res.messages == 2, "%ld messages", res.messages);
    CHECK(NEAR(res.waiting, 0.5 + 0.5), "waiting %g", res.waiting);
    CHECK(res.ncauses == 2 && NEAR(res.causes[0].waiting, 0.5) && res.causes[0].rank == 0,
          "%zu causes", res.ncauses);
    mww_result_free(&res);
}

/* Late Receiver: rank 0 in MPI_Ssend from 1.0, rank 1 posts its receive at
 * 1.25 after its barrier at 0x40; a standard send of 8 bytes is eager and
 * does not wait; one of 1 MiB (rendezvous) does. */
static void test_late_receiver(void)
{
    calls r[2] = {0};
    add(&r[0], "MPI_Ssend", 1.0, 1.26, 1, 0, 0, 0x20);
    add(&r[1], "MPI_Barrier", 0.0, 0.1, -1, -1, -1, 0x40);
    add(&r[1], "MPI_Recv", 1.25, 1.26, 0, 0, 0, 0x30);
    add(&r[0], "MPI_Send", 2.0, 2.001, 1, 0, 0, 0x21);
    add(&r[1], "MPI_Recv", 2.5, 2.501, 0, 0, 0, 0x31);
    add(&r[0], "MPI_Send", 3.0, 3.6, 1, 0, 0, 0x22);
    r[0].c[r[0].n - 1].bytes = 1 << 20;
    add(&r[1], "MPI_Recv", 3.5, 3.6, 0, 0, 0, 0x32);
    mww_result res = analyze(r, 2);
    CHECK(NEAR(res.pattern_time[MWW_LATE_RECEIVER], 0.25 + 0.5), "late receiver %g",
          res.pattern_time[MWW_LATE_RECEIVER]);
    CHECK(res.pattern_count[MWW_LATE_RECEIVER] == 2, "%ld", res.pattern_count[MWW_LATE_RECEIVER]);
    /* first by direct waiting: at 0x30 rank 1 worked 1.15 s since its barrier
     * and rank 0 had no call before (all 0.25 s direct); at 0x32 both worked
     * 0.999 s since their previous calls: its 0.5 s are all propagated */
    CHECK(res.ncauses == 2 && res.causes[0].rank == 1 && res.causes[0].site == 0x30 &&
              res.causes[0].prev_site == 0x40 && NEAR(res.causes[0].direct, 0.25) &&
              res.causes[1].site == 0x32 && NEAR(res.causes[1].direct, 0),
          "causes");
    mww_result_free(&res);
}

/* Wait at N x N: 4 ranks in MPI_Allreduce, rank 2 enters 0.05 s late, 10
 * times, after its work since 0x50; the others wait 3 x 10 x 0.05. */
static void test_nxn(double T)
{
    calls r[4] = {0};
    for (int i = 0; i < 10; i++)
        for (int k = 0; k < 4; k++) {
            double t = T + i, late = k == 2 ? 0.05 : 0;
            add(&r[k], "MPI_Comm_rank", t - 0.2, t - 0.2, -1, -1, -1, 0x50);
            add(&r[k], "MPI_Allreduce", t + late, t + 0.051, -1, -1, 0, 0x60);
        }
    mww_result res = analyze(r, 4);
    CHECK(res.collectives == 10 && res.incomplete_collectives == 0, "%ld instances",
          res.collectives);
    CHECK(NEAR(res.pattern_time[MWW_WAIT_NXN], 1.5), "nxn %g", res.pattern_time[MWW_WAIT_NXN]);
    CHECK(res.ncauses == 1 && res.causes[0].rank == 2 && res.causes[0].waiting_ranks == 3 &&
              res.causes[0].instances == 30 && res.causes[0].prev_site == 0x50,
          "cause");
    mww_result_free(&res);
}

/* Barrier on communicator 0, rank 3 late; a second barrier that rank 3
 * never reached (the job was killed) is incomplete. */
static void test_barrier(void)
{
    calls r[4] = {0};
    for (int k = 0; k < 4; k++) {
        add(&r[k], "MPI_Barrier", k == 3 ? 1.1 : 1.0, 1.11, -1, -1, 0, 0x70);
        if (k != 3)
            add(&r[k], "MPI_Barrier", 2.0, 9.0, -1, -1, 0, 0x71);
    }
    mww_result res = analyze(r, 4);
    CHECK(res.collectives == 1 && res.incomplete_collectives == 1, "%ld, %ld", res.collectives,
          res.incomplete_collectives);
    CHECK(NEAR(res.pattern_time[MWW_WAIT_BARRIER], 0.3), "barrier %g",
          res.pattern_time[MWW_WAIT_BARRIER]);
    CHECK(res.ncauses == 1 && res.causes[0].rank == 3 && res.causes[0].prev_function == NULL,
          "cause");
    mww_result_free(&res);
}

/* Barriers record no communicator: ranks 0 and 1 also meet in a barrier
 * of their own (a communicator of two). The sequences of the four ranks
 * then do not line up, and no barrier is analysed rather than misread. */
static void test_barrier_unknown_comm(void)
{
    calls r[4] = {0};
    for (int k = 0; k < 4; k++) {
        if (k < 2)
            add(&r[k], "MPI_Barrier", 0.5, 0.6, -1, -1, -1, 0x72);
        add(&r[k], "MPI_Barrier", k == 3 ? 1.1 : 1.0, 1.11, -1, -1, -1, 0x70);
    }
    mww_result res = analyze(r, 4);
    CHECK(res.collectives == 0 && res.incomplete_collectives == 2 && res.waiting == 0,
          "%ld analysed, %ld not, waiting %g", res.collectives, res.incomplete_collectives,
          res.waiting);
    mww_result_free(&res);
}

/* Late Broadcast: root 1 enters at 1.2, the others at 1.0 (rank 3 at
 * 1.25: it does not wait). Early Reduce: root 0 enters at 2.0, the last
 * contributor (rank 2) at 2.4. */
static void test_rooted(void)
{
    calls r[4] = {0};
    double bcast[4] = {1.0, 1.2, 1.0, 1.25}, reduce[4] = {2.0, 2.1, 2.4, 2.3};
    for (int k = 0; k < 4; k++) {
        rooted(&r[k], "MPI_Bcast", bcast[k], 1.3, 1, 0x80);
        rooted(&r[k], "MPI_Reduce", reduce[k], 2.45, 0, 0x90);
    }
    mww_result res = analyze(r, 4);
    CHECK(NEAR(res.pattern_time[MWW_LATE_BROADCAST], 0.4), "bcast %g",
          res.pattern_time[MWW_LATE_BROADCAST]);
    CHECK(NEAR(res.pattern_time[MWW_EARLY_REDUCE], 0.4), "reduce %g",
          res.pattern_time[MWW_EARLY_REDUCE]);
    CHECK(res.ncauses == 2, "%zu causes", res.ncauses);
    for (size_t i = 0; i < res.ncauses; i++) {
        const mww_cause *c = &res.causes[i];
        CHECK(c->pattern == MWW_LATE_BROADCAST ? c->rank == 1 && c->site == 0x80
                                               : c->rank == 2 && c->site == 0x90,
              "cause %zu: rank %d", i, c->rank);
    }
    CHECK(NEAR(res.rank_waiting[0], 0.2 + 0.4), "rank 0 waited %g", res.rank_waiting[0]);
    mww_result_free(&res);
}

/* A rank that also receives with MPI_Irecv on the communicator: its
 * MPI_Recv is not matched by order (the Irecv may have taken the message);
 * the other rank's are. */
static void test_unordered(void)
{
    calls r[3] = {0};
    add(&r[0], "MPI_Send", 2.0, 2.1, 1, 0, 0, 0x20);
    add(&r[0], "MPI_Send", 2.0, 2.1, 2, 0, 0, 0x21);
    add(&r[1], "MPI_Irecv", 0.5, 0.5, -1, -1, 0, 0x30);
    add(&r[1], "MPI_Recv", 1.0, 2.1, 0, 0, 0, 0x31);
    add(&r[2], "MPI_Recv", 1.0, 2.1, 0, 0, 0, 0x32);
    mww_result res = analyze(r, 3);
    CHECK(res.messages == 1 && res.unordered_receivers == 1, "%ld messages, %ld unordered",
          res.messages, res.unordered_receivers);
    CHECK(NEAR(res.waiting, 1.0), "waiting %g", res.waiting);
    mww_result_free(&res);
}

/* A send-receive: its send to peer with tag, its receive from recv_peer
 * with recv_tag (-1: the trace does not say it). */
static void sendrecv(calls *r, double enter, double leave, int peer, int tag, int recv_peer,
                     int recv_tag, uint64_t site)
{
    add(r, "MPI_Sendrecv", enter, leave, peer, tag, 0, site);
    r->c[r->n - 1].recv_peer = recv_peer;
    r->c[r->n - 1].recv_tag = recv_tag;
}

/* A ring of 3 send-receives (each to the next rank, from the previous):
 * rank 0 enters 0.2 s late, after its MPI_Init; rank 1 waits in its
 * receive half for rank 0's send (a Late Sender charged to rank 0's site),
 * ranks 0 and 2 do not. Each of the 3 messages is matched. Without its
 * receive half (an old trace, or MPI_ANY_SOURCE with the status ignored),
 * rank 1's receives on the communicator lose their order, and its send half
 * is still matched. */
static void test_sendrecv(void)
{
    calls r[3] = {0};
    add(&r[0], "MPI_Init", 0.0, 0.01, -1, -1, -1, 0x10);
    sendrecv(&r[0], 0.3, 0.31, 1, 4, 2, 4, 0x20);
    sendrecv(&r[1], 0.1, 0.31, 2, 4, 0, 4, 0x21);
    sendrecv(&r[2], 0.1, 0.11, 0, 4, 1, 4, 0x22);
    mww_result res = analyze(r, 3);
    CHECK(res.messages == 3 && res.unmatched == 0 && res.unordered_receivers == 0,
          "%ld messages, %ld unmatched, %ld unordered", res.messages, res.unmatched,
          res.unordered_receivers);
    CHECK(NEAR(res.pattern_time[MWW_LATE_SENDER], 0.2) && NEAR(res.rank_waiting[1], 0.2),
          "late sender %g, rank 1 waited %g", res.pattern_time[MWW_LATE_SENDER],
          res.rank_waiting[1]);
    CHECK(res.ncauses == 1 && res.causes[0].rank == 0 && res.causes[0].site == 0x20 &&
              res.causes[0].prev_site == 0x10,
          "%zu causes, the first rank %d", res.ncauses, res.ncauses ? res.causes[0].rank : -1);
    mww_result_free(&res);
    r[1].c[0].recv_peer = r[1].c[0].recv_tag = -1;
    res = analyze(r, 3);
    CHECK(res.messages == 2 && res.unordered_receivers == 1 && NEAR(res.waiting, 0),
          "without rank 1's receive half: %ld messages, %ld unordered, waiting %g",
          res.messages, res.unordered_receivers, res.waiting);
    mww_result_free(&res);
}

/* A send-receive's send half of a rendezvous size waits for its receive as
 * an MPI_Send of that size does: rank 0's MPI_Sendrecv (from 0.1) sends
 * 1 MiB to rank 1, which posts its MPI_Recv at 0.4 (its own small message,
 * which the receive half takes, went at 0.05): a Late Receiver of 0.3 s
 * charged to rank 1's receive. At 8 bytes (eager) nobody waits. */
static void test_sendrecv_rendezvous(void)
{
    for (int big = 0; big < 2; big++) {
        calls r[2] = {0};
        sendrecv(&r[0], 0.1, 0.41, 1, 4, 1, 4, 0x20);
        r[0].c[0].bytes = big ? 1u << 20 : 8;
        add(&r[1], "MPI_Send", 0.05, 0.06, 0, 4, 0, 0x30);
        add(&r[1], "MPI_Recv", 0.4, 0.41, 0, 4, 0, 0x31);
        mww_result res = analyze(r, 2);
        CHECK(res.messages == 2 && res.unmatched == 0, "%s: %ld messages, %ld unmatched",
              big ? "1 MiB" : "8 B", res.messages, res.unmatched);
        if (big)
            CHECK(NEAR(res.pattern_time[MWW_LATE_RECEIVER], 0.3) && NEAR(res.waiting, 0.3) &&
                      res.ncauses == 1 && res.causes[0].rank == 1 &&
                      res.causes[0].site == 0x31 && res.causes[0].pattern == MWW_LATE_RECEIVER,
                  "1 MiB: late receiver %g, waiting %g, %zu causes",
                  res.pattern_time[MWW_LATE_RECEIVER], res.waiting, res.ncauses);
        else
            CHECK(NEAR(res.waiting, 0), "8 B: waiting %g", res.waiting);
        mww_result_free(&res);
    }
}

/* A non-blocking receive completed by call `by` of its rank (its peer and
 * tag the message's, as client/wait_input.c takes them from the status). */
static void irecv(calls *r, double enter, int peer, int tag, size_t by, uint64_t site)
{
    add(r, "MPI_Irecv", enter, enter + 0.001, peer, tag, 0, site);
    r->c[r->n - 1].completed_by = by + 1;
}

static mww_result analyze_details(calls *r, int n)
{
    mww_rank ranks[8];
    for (int k = 0; k < n; k++)
        ranks[k] = (mww_rank){r[k].c, r[k].n, NULL};
    mww_result res;
    mww_options opt = {.rendezvous_bytes = MWW_RENDEZVOUS_BYTES_DEFAULT, .details = 1};
    CHECK(mww_analyze(ranks, n, &opt, &res) == 0, "analyze");
    check_victims(ranks, n, &res);
    return res;
}

/* MPI_Irecv posted early, the MPI_Isend late: the MPI_Wait that completed
 * the receive waited from its entry to the send's, charged to the sender's
 * site. The Irecv takes its place in order at its post: posted before the
 * MPI_Recv, it gets the first message, the Recv the second. */
static void test_irecv_wait(void)
{
    calls r[2] = {0};
    add(&r[0], "MPI_Init", 0.0, 0.01, -1, -1, -1, 0x10);
    add(&r[0], "MPI_Isend", 0.5, 0.501, 1, 7, 0, 0x20);
    add(&r[0], "MPI_Send", 0.6, 0.601, 1, 7, 0, 0x21);
    irecv(&r[1], 0.1, 0, 7, 2, 0x30);
    add(&r[1], "MPI_Recv", 0.2, 0.61, 0, 7, 0, 0x31);
    add(&r[1], "MPI_Wait", 0.62, 0.63, -1, -1, -1, 0x32);   /* the message was in: no wait */
    irecv(&r[1], 1.0, 0, 8, 4, 0x33);
    add(&r[1], "MPI_Wait", 1.1, 2.01, -1, -1, -1, 0x34);
    add(&r[0], "MPI_Isend", 2.0, 2.001, 1, 8, 0, 0x22);
    mww_result res = analyze_details(r, 2);
    CHECK(res.messages == 3 && res.unmatched == 0 && res.unordered_receivers == 0,
          "%ld messages, %ld unmatched, %ld unordered", res.messages, res.unmatched,
          res.unordered_receivers);
    CHECK(NEAR(res.pattern_time[MWW_LATE_SENDER], 0.4 + 0.9), "late sender %g",
          res.pattern_time[MWW_LATE_SENDER]);
    CHECK(res.ncauses == 2 && res.nwaits == 2, "%zu causes, %zu waits", res.ncauses, res.nwaits);
    if (res.ncauses == 2) {
        const mww_cause *c = &res.causes[0];
        CHECK(c->rank == 0 && c->site == 0x22 && strcmp(c->function, "MPI_Isend") == 0 &&
                  NEAR(c->waiting, 0.9) && res.causes[1].site == 0x21,
              "largest cause rank %d site %#llx", c->rank, (unsigned long long)c->site);
    }
    int waits = 0;
    for (size_t i = 0; i < res.nwaits; i++)
        waits += res.waits[i].victim == 1 &&
                 ((res.waits[i].victim_call == 4 && res.waits[i].call == 3) ||
                  (res.waits[i].victim_call == 1 && res.waits[i].call == 2));
    CHECK(waits == 2, "%d of 2 waits in the right calls", waits);
    int pairs = 0;
    for (size_t i = 0; i < res.nmatched; i++) {
        const mww_message *m = &res.matched[i];
        pairs += (m->send_call == 1 && m->recv_call == 2) || (m->send_call == 2 && m->recv_call == 1) ||
                 (m->send_call == 3 && m->recv_call == 4);
    }
    CHECK(pairs == 3, "%d of 3 messages ending in the receive or its completion", pairs);
    mww_result_free(&res);
}

/* MPI_ANY_SOURCE: the Irecv's source is its status's (client/wait_input.c
 * puts it in peer), so it matches that sender's message; rank 0's message
 * is taken by the later MPI_Recv. */
static void test_irecv_any_source(void)
{
    calls r[3] = {0};
    add(&r[0], "MPI_Send", 0.2, 0.201, 2, 5, 0, 0x20);
    add(&r[1], "MPI_Send", 0.8, 0.801, 2, 5, 0, 0x40);
    irecv(&r[2], 0.1, 1, 5, 1, 0x30);
    add(&r[2], "MPI_Wait", 0.3, 0.81, -1, -1, -1, 0x31);
    add(&r[2], "MPI_Recv", 0.9, 0.91, 0, 5, 0, 0x32);
    mww_result res = analyze(r, 3);
    CHECK(res.messages == 2 && res.unmatched == 0, "%ld messages, %ld unmatched", res.messages,
          res.unmatched);
    CHECK(NEAR(res.waiting, 0.5) && res.ncauses == 1 && res.causes[0].rank == 1 &&
              res.causes[0].site == 0x40,
          "waiting %g", res.waiting);
    mww_result_free(&res);
}

/* Two Irecv completed by one MPI_Waitall, their sends arriving in reverse
 * order: the Waitall waits for the later send only, once (not the same
 * interval twice), and both messages end in it. */
static void test_waitall_reverse(void)
{
    calls r[3] = {0};
    irecv(&r[2], 0.1, 0, 1, 2, 0x30);
    irecv(&r[2], 0.11, 1, 1, 2, 0x31);
    add(&r[2], "MPI_Waitall", 0.2, 1.01, -1, -1, -1, 0x32);
    add(&r[1], "MPI_Isend", 0.5, 0.501, 2, 1, 0, 0x40);
    add(&r[0], "MPI_Isend", 1.0, 1.001, 2, 1, 0, 0x20);
    mww_result res = analyze_details(r, 3);
    CHECK(res.messages == 2 && res.nmatched == 2 && res.matched[0].recv_call == 2 &&
              res.matched[1].recv_call == 2,
          "%ld messages", res.messages);
    CHECK(NEAR(res.waiting, 0.8) && res.nwaits == 1 && res.ncauses == 1 &&
              res.causes[0].rank == 0 && res.causes[0].site == 0x20 && res.waits[0].victim_call == 2,
          "waiting %g in %zu waits", res.waiting, res.nwaits);
    mww_result_free(&res);
}

/* An Irecv completed by an MPI_Test (its folded polls span the work
 * between them): matched, but no Late Sender is measured in the Test. */
static void test_irecv_test(void)
{
    calls r[2] = {0};
    add(&r[0], "MPI_Isend", 1.0, 1.001, 1, 3, 0, 0x20);
    irecv(&r[1], 0.1, 0, 3, 1, 0x30);
    add(&r[1], "MPI_Test", 0.2, 1.1, -1, -1, -1, 0x31);
    mww_result res = analyze(r, 2);
    CHECK(res.messages == 1 && res.unmatched == 0 && res.waiting == 0, "%ld messages, waiting %g",
          res.messages, res.waiting);
    mww_result_free(&res);
}

/* A polling loop: MPI_Irecv, work, then MPI_Test polls that found nothing
 * (folded into one record, 0.2 to 0.9) and the MPI_Test that completed the
 * receive at 0.95 (its polls: the record before it, mww_call.polls, as
 * client/wait_input.c finds them). The send began at 0.8: the loop waited
 * from its first poll, 0.6 s, in the polls' record. An MPI_Test polling
 * at another site does not join the loop. */
static void test_test_polling(void)
{
    calls r[2] = {0};
    irecv(&r[1], 0.1, 0, 3, 2, 0x30);
    add(&r[1], "MPI_Test", 0.2, 0.9, -1, -1, -1, 0x31);
    add(&r[1], "MPI_Test", 0.95, 0.951, -1, -1, -1, 0x31);
    r[1].c[2].polls = 1 + 1;
    add(&r[0], "MPI_Isend", 0.8, 0.801, 1, 3, 0, 0x20);
    mww_result res = analyze_details(r, 2);
    CHECK(res.messages == 1 && NEAR(res.pattern_time[MWW_LATE_SENDER], 0.6) && res.nwaits == 1 &&
              res.waits[0].victim_call == 1 && res.ncauses == 1 && res.causes[0].site == 0x20,
          "%ld messages, late sender %g in %zu waits", res.messages,
          res.pattern_time[MWW_LATE_SENDER], res.nwaits);
    mww_result_free(&res);
}

/* A polling loop whose polls are far apart (a loaded node, or work between
 * them): its wait state spans the gaps, and so does the MPI time, so that
 * the waiting (0.6 s from the first poll) is never more than it (the calls
 * alone are 0.024 s; the report said 100.7%). */
static void test_polling_gaps(void)
{
    calls r[2] = {0};
    irecv(&r[1], 0.1, 0, 3, 3, 0x30);
    add(&r[1], "MPI_Test", 0.2, 0.21, -1, -1, -1, 0x31);
    add(&r[1], "MPI_Test", 0.5, 0.51, -1, -1, -1, 0x31);
    add(&r[1], "MPI_Test", 0.95, 0.951, -1, -1, -1, 0x31);
    r[1].c[3].polls = 1 + 1;
    add(&r[0], "MPI_Isend", 0.8, 0.801, 1, 3, 0, 0x20);
    mww_result res = analyze_details(r, 2);
    /* Irecv 0.001, the loop 0.2 to 0.951, Isend 0.001. */
    CHECK(NEAR(res.pattern_time[MWW_LATE_SENDER], 0.6) && NEAR(res.mpi_time, 0.753) &&
              res.waiting <= res.mpi_time,
          "late sender %g, MPI time %g", res.pattern_time[MWW_LATE_SENDER], res.mpi_time);
    mww_result_free(&res);
}

/* client/wait_input.c's part: the polls found before a completing MPI_Test
 * (the same function and site, on its thread, completing nothing). */
static void test_polls_found(void)
{
    mwc_trace_call t[5] = {{0}};
    char *names[] = {"MPI_Irecv", "MPI_Test", "MPI_Comm_rank"};
    mwc_trace_done done = {1, 0, 3, 8};
    int fn[5] = {0, 1, 2, 1, 1};
    uint64_t site[5] = {0x30, 0x31, 0x40, 0x31, 0x31};
    for (int i = 0; i < 5; i++) {
        t[i].fn = fn[i];
        t[i].site = site[i];
        t[i].t_in = 10 * (uint64_t)i;
        t[i].t_out = 10 * (uint64_t)i + 5;
        t[i].count = 1;
    }
    t[0].request = 1;
    t[4].ndone = 1;   /* the last Test completed the Irecv; 1 and 3 found nothing */
    mwc_trace_rank r = {.rank = 0, .ranks = 1, .per_second = 1e9, .names = names, .nnames = 3,
                        .calls = t, .ncalls = 5, .done = &done, .ndone = 1};
    mwc_trace_job job = {.ranks = &r, .nranks = 1};
    mww_call *calls = NULL;
    CHECK(mwc_wait_rank_calls(&job, &r, &calls) == 0 && calls != NULL, "calls");
    if (calls != NULL)
        CHECK(calls[4].polls == 3 + 1 && calls[3].polls == 0 && calls[0].completed_by == 4 + 1,
              "polls %zu, completed by %zu", calls[4].polls, calls[0].completed_by);
    free(calls);
}

/* A non-blocking send completed by call `by` of its rank. */
static void isend(calls *r, const char *fn, double enter, int peer, int tag, size_t by,
                  uint64_t site)
{
    add(r, fn, enter, enter + 0.001, peer, tag, 0, site);
    r->c[r->n - 1].completed_by = by + 1;
}

/* MPI_Issend, then work, then MPI_Wait from 0.2: the receive is posted at
 * 1.0, so the Wait waited 0.8 s for it (Late Receiver, charged to the
 * receiver's site); a second Issend completed by an MPI_Test (it returns
 * at once: no wait measured); then one MPI_Waitall completing an Issend
 * and an Irecv, whose receive is posted at 3.0 and whose send begins at
 * 3.5: it waited for the later, 1.3 s of Late Sender, counted once. */
static void test_issend_wait(void)
{
    calls r[2] = {0};
    isend(&r[0], "MPI_Issend", 0.1, 1, 4, 1, 0x20);
    add(&r[0], "MPI_Wait", 0.2, 1.01, -1, -1, -1, 0x21);
    add(&r[1], "MPI_Recv", 1.0, 1.01, 0, 4, 0, 0x30);
    isend(&r[0], "MPI_Issend", 1.1, 1, 4, 3, 0x22);
    add(&r[0], "MPI_Test", 1.2, 2.1, -1, -1, -1, 0x23);
    add(&r[1], "MPI_Recv", 2.0, 2.01, 0, 4, 0, 0x31);
    isend(&r[0], "MPI_Issend", 2.1, 1, 4, 6, 0x24);
    irecv(&r[0], 2.15, 1, 9, 6, 0x25);
    add(&r[0], "MPI_Waitall", 2.2, 3.51, -1, -1, -1, 0x26);
    add(&r[1], "MPI_Recv", 3.0, 3.01, 0, 4, 0, 0x32);
    add(&r[1], "MPI_Send", 3.5, 3.501, 0, 9, 0, 0x33);
    mww_result res = analyze_details(r, 2);
    CHECK(res.messages == 4 && res.unmatched == 0, "%ld messages, %ld unmatched", res.messages,
          res.unmatched);
    CHECK(NEAR(res.pattern_time[MWW_LATE_RECEIVER], 0.8) &&
              res.pattern_count[MWW_LATE_RECEIVER] == 1 &&
              NEAR(res.pattern_time[MWW_LATE_SENDER], 1.3) && res.pattern_count[MWW_LATE_SENDER] == 1,
          "late receiver %g (%ld), late sender %g (%ld)", res.pattern_time[MWW_LATE_RECEIVER],
          res.pattern_count[MWW_LATE_RECEIVER], res.pattern_time[MWW_LATE_SENDER],
          res.pattern_count[MWW_LATE_SENDER]);
    int found = 0;
    for (size_t i = 0; i < res.nwaits; i++) {
        const mww_wait *w = &res.waits[i];
        found += (w->pattern == MWW_LATE_RECEIVER && w->victim_call == 1 && w->rank == 1 &&
                  w->call == 0) ||
                 (w->pattern == MWW_LATE_SENDER && w->victim_call == 6 && w->rank == 1 &&
                  w->call == 3);
    }
    CHECK(found == 2 && res.nwaits == 2, "%d of 2 waits in the completing calls (%zu)", found,
          res.nwaits);
    mww_result_free(&res);
}

/* A send nobody received and a receive nobody sent (a file cut short):
 * counted as unmatched, no wait; the pair around them still matches. */
static void test_unmatched(void)
{
    calls r[2] = {0};
    add(&r[0], "MPI_Send", 1.0, 1.1, 1, 3, 0, 0x20);   /* tag 3: never received */
    add(&r[0], "MPI_Send", 2.0, 2.1, 1, 4, 0, 0x21);
    add(&r[1], "MPI_Recv", 1.5, 2.1, 0, 4, 0, 0x30);
    add(&r[1], "MPI_Recv", 3.0, 9.0, 0, 5, 0, 0x31);   /* tag 5: never sent */
    mww_result res = analyze(r, 2);
    CHECK(res.messages == 1 && res.unmatched == 2, "%ld messages, %ld unmatched", res.messages,
          res.unmatched);
    CHECK(NEAR(res.waiting, 0.5), "waiting %g", res.waiting);
    mww_result_free(&res);
}

/* A balanced run: every rank enters together, nothing waits. */
/* Direct and propagated waiting: in an MPI_Allreduce, rank 1 is 0.5 s late.
 * Case 0: it left its previous call (site 0x10) 0.5 s after rank 0 left its
 * own and did the same work since: all propagated. Case 1: both left at
 * 1.0, rank 1 worked 0.5 s longer: all direct. Case 2: 0.2 s of each. */
static void test_direct(void)
{
    static const double left1[3] = {1.5, 1.0, 1.3}, want[3] = {0, 0.5, 0.2};
    for (int k = 0; k < 3; k++) {
        calls r[2] = {0};
        add(&r[0], "MPI_Bcast", 0.0, 1.0, -1, -1, 0, 0x10);
        add(&r[0], "MPI_Allreduce", 1.0, 1.6, -1, -1, 0, 0x20);
        add(&r[1], "MPI_Bcast", 0.0, left1[k], -1, -1, 0, 0x10);
        add(&r[1], "MPI_Allreduce", 1.5, 1.6, -1, -1, 0, 0x20);
        r[0].c[0].root = r[1].c[0].root = 0;
        mww_result res = analyze(r, 2);
        CHECK(NEAR(res.waiting, 0.5) && NEAR(res.direct, want[k]), "case %d: waiting %g, direct %g",
              k, res.waiting, res.direct);
        CHECK(res.ncauses >= 1 && NEAR(res.pattern_time[MWW_WAIT_NXN], 0.5), "case %d: nxn %g", k,
              res.pattern_time[MWW_WAIT_NXN]);
        for (size_t i = 0; i < res.ncauses; i++)
            if (res.causes[i].pattern == MWW_WAIT_NXN)
                CHECK(NEAR(res.causes[i].direct, want[k]), "case %d: direct %g, not %g", k,
                      res.causes[i].direct, want[k]);
        mww_result_free(&res);
    }
}

static void test_balanced(void)
{
    calls r[4] = {0};
    for (int i = 0; i < 10; i++)
        for (int k = 0; k < 4; k++)
            add(&r[k], "MPI_Allreduce", i, i + 0.001, -1, -1, 0, 0x60);
    mww_result res = analyze(r, 4);
    CHECK(res.waiting == 0 && res.ncauses == 0 && NEAR(res.mpi_time, 0.04), "waiting %g",
          res.waiting);
    mww_result_free(&res);
}

/* With details: each wait state's waiting call, its interval and its
 * cause, and each matched message's two calls, as the timeline draws them.
 * Rank 0 is late twice at one site, after other work each time (two
 * causes), rank 2 once at another. */
static void test_details(void)
{
    calls r[3] = {0};
    add(&r[0], "MPI_Send", 0.5, 0.51, 1, 1, 0, 0x20);
    add(&r[0], "MPI_Send", 1.5, 1.51, 1, 1, 0, 0x20);
    add(&r[1], "MPI_Recv", 0.1, 0.52, 0, 1, 0, 0x30);
    add(&r[1], "MPI_Recv", 1.0, 1.52, 0, 1, 0, 0x30);
    add(&r[1], "MPI_Recv", 2.0, 2.9, 2, 1, 0, 0x30);
    add(&r[2], "MPI_Send", 2.05, 2.06, 1, 1, 0, 0x40);
    mww_rank ranks[3];
    for (int k = 0; k < 3; k++)
        ranks[k] = (mww_rank){r[k].c, r[k].n, NULL};
    mww_result res;
    mww_options opt = {.rendezvous_bytes = MWW_RENDEZVOUS_BYTES_DEFAULT, .details = 1};
    CHECK(mww_analyze(ranks, 3, &opt, &res) == 0, "analyze");
    CHECK(res.nwaits == 3 && res.nmatched == 3 && res.ncauses == 3, "%zu waits, %zu messages, "
          "%zu causes", res.nwaits, res.nmatched, res.ncauses);
    int seen = 0;
    for (size_t i = 0; i < res.nwaits && res.ncauses == 3; i++) {
        const mww_wait *w = &res.waits[i];
        double from = r[w->victim].c[w->victim_call].enter;
        const mww_cause *c = &res.causes[w->cause];
        CHECK(w->victim == 1 && w->pattern == MWW_LATE_SENDER && c->rank == w->rank &&
                  c->site == r[w->rank].c[w->call].site,
              "wait %zu: victim %d, cause rank %d", i, w->victim, c->rank);
        seen |= 1 << w->victim_call;
        if (w->victim_call == 0)
            CHECK(NEAR(from, 0.1) && NEAR(w->seconds, 0.4) && w->rank == 0 && w->cause == 1, "first");
        if (w->victim_call == 1)
            CHECK(NEAR(from, 1.0) && NEAR(w->seconds, 0.5) && w->rank == 0 && w->cause == 0, "second");
        if (w->victim_call == 2)
            CHECK(NEAR(w->seconds, 0.05) && w->rank == 2 && w->cause == 2, "third");
    }
    CHECK(seen == 7, "waiting calls seen: %d", seen);
    int pairs = 0;
    for (size_t i = 0; i < res.nmatched; i++) {
        const mww_message *m = &res.matched[i];
        pairs += m->recv_rank == 1 &&
                 ((m->send_rank == 0 && m->send_call == m->recv_call) ||
                  (m->send_rank == 2 && m->send_call == 0 && m->recv_call == 2));
    }
    CHECK(pairs == 3, "%d of 3 messages matched to the right calls", pairs);
    mww_result_free(&res);
    mww_result plain = analyze(r, 3);
    CHECK(plain.waits == NULL && plain.matched == NULL && plain.ncauses == 3 &&
              NEAR(plain.waiting, 0.95), "without details: %zu causes, waiting %g", plain.ncauses,
          plain.waiting);
    mww_result_free(&plain);
}

int main(void)
{
    test_late_sender(0, 0);
    test_late_sender(86400.0 * 30, 5.0);   /* far from 0; rank 1 started 5 s before rank 0 */
    test_late_sender(100.0, -3.5);         /* rank 1 started 3.5 s after rank 0 */
    test_no_wait_and_bounds();
    test_order_by_tag();
    test_late_receiver();
    test_nxn(0);
    test_nxn(86400.0 * 365);
    test_barrier();
    test_barrier_unknown_comm();
    test_rooted();
    test_unordered();
    test_sendrecv();
    test_sendrecv_rendezvous();
    test_irecv_wait();
    test_irecv_any_source();
    test_waitall_reverse();
    test_irecv_test();
    test_issend_wait();
    test_test_polling();
    test_polling_gaps();
    test_polls_found();
    test_unmatched();
    test_balanced();
    test_direct();
    test_details();
    return CHECK_DONE("test_wait_states");
}
