/* Rates over the last interval and the communication matrix: the
 * arithmetic (rates.c), what the model keeps (the previous and the last
 * SNAPSHOT, each rank's last PAIRS row, kept when lost), the matrix's pairs
 * and blocks (matrix.c), and the exact rates and matrix lines of the JSON
 * view. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "frames.h"
#include "matrix.h"
#include "rates.h"
#include "session.h"
#include "view_json.h"

#define NEAR(a, b) ((a) - (b) < 1e-9 && (b) - (a) < 1e-9)

static void test_compute(void)
{
    mwc_counts prev[3] = { { 10, 100000000, 1000, 0 }, { 5, 0, 0, 64 }, { 7, 7, 7, 7 } };
    mwc_counts cur[3] = { { 110, 500000000, 5000, 0 }, { 5, 0, 0, 64 }, { 6, 1, 6, 0 } };
    mwc_rate fn[3];
    mwc_rates r = { .fn = fn };
    /* 2 s: 100 calls, 0.4 s in MPI_Send, 4000 bytes sent. */
    CHECK(mwc_rates_compute(prev, 1000000000ull, cur, 3000000000ull, 3, &r) == 0, "no interval");
    CHECK(NEAR(r.interval, 2.0) && r.t == 3000000000ull, "interval %f", r.interval);
    CHECK(NEAR(fn[0].calls, 50) && NEAR(fn[0].time, 0.2) && NEAR(fn[0].sent, 2000) &&
              NEAR(fn[0].recv, 0),
          "MPI_Send: %f %f %f %f", fn[0].calls, fn[0].time, fn[0].sent, fn[0].recv);
    CHECK(fn[1].calls == 0 && fn[1].time == 0 && fn[1].recv == 0, "an idle function moved");
    /* Counters that went down (never from a sane rank) count as no change. */
    CHECK(fn[2].calls == 0 && fn[2].time == 0 && fn[2].sent == 0 && fn[2].recv == 0,
          "a counter going down gave %f", fn[2].calls);
    CHECK(NEAR(r.total.calls, 50) && NEAR(r.total.time, 0.2) && NEAR(r.total.sent, 2000),
          "total %f %f", r.total.calls, r.total.time);
    /* No interval: the last rates stay as they were. */
    CHECK(mwc_rates_compute(prev, 5, cur, 5, 3, &r) == -1 && NEAR(r.interval, 2.0), "t1 == t0");
    CHECK(mwc_rates_compute(prev, 6, cur, 5, 3, &r) == -1, "t1 < t0");
    /* The largest counters over the shortest interval stay finite. */
    mwc_counts big = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX }, zero = { 0, 0, 0, 0 };
    mwc_rate one;
    mwc_rates rb = { .fn = &one };
    CHECK(mwc_rates_compute(&zero, 0, &big, 1, 1, &rb) == 0 && one.calls > 1e28 && one.calls < 1e29,
          "huge: %g", one.calls);

    /* The busiest functions first: time share, then calls/s, then name. */
    char *names[5] = { "MPI_Send", "MPI_Recv", "MPI_Wait", "MPI_Idle", "MPI_Bcast" };
    /* MPI_Idle was not called: the time it gained is calibration noise. */
    mwc_rate f5[5] = { { 10, 0.1, 0, 0 }, { 20, 0.3, 0, 0 }, { 30, 0.1, 0, 0 }, { 0, 0.5, 0, 0 },
                       { 10, 0.1, 0, 0 } };
    mwc_rates r5 = { .fn = f5 };
    uint32_t ids[5];
    size_t n = mwc_rates_top(&r5, 5, names, ids, 5);
    CHECK(n == 4 && ids[0] == 1 && ids[1] == 2 && ids[2] == 4 && ids[3] == 0,
          "order: %zu: %u %u %u %u", n, ids[0], ids[1], ids[2], ids[3]);
    n = mwc_rates_top(&r5, 5, names, ids, 2);
    CHECK(n == 2 && ids[0] == 1 && ids[1] == 2, "top 2: %zu", n);
}

static const char *const names3[] = { "MPI_Init", "MPI_Send", "MPI_Recv" };

/* Rank `rank` of 3: HELLO, a SNAPSHOT at 1 s, PAIRS, a SNAPSHOT at 3 s,
 * PAIRS. Rank k sends (k + 1) * 4000 bytes to the next rank in the 2 s
 * (in 100 MPI_Send calls, 0.4 s) and receives as much in MPI_Recv. */
static void stream(mwt_buf *b, uint32_t rank, int goodbye)
{
    uint64_t k = rank + 1;
    mwt_hello(b, rank, 3, 100 + rank, 1, "h", "p", 3, names3);
    mwc_entry first[3] = { { 0, 1, 5000000, 0, 0 },
                           { 1, 10, 100000000, 1000 * k, 0 },
                           { 2, 10, 50000000, 0, 1000 * k } };
    mwt_snapshot(b, 1000000000ull, 0, 0, 0, 3, first);
    mwc_pair p1 = { (rank + 1) % 3, 1000 * k, 10 };
    mwt_pairs(b, 1000000001ull, 1, &p1);
    mwc_entry last[3] = { { 0, 1, 5000000, 0, 0 },
                          { 1, 110, 500000000, 5000 * k, 0 },
                          { 2, 60, 250000000, 0, 5000 * k } };
    mwt_snapshot(b, 3000000000ull, 0, 0, 0, 3, last);
    /* A zero pair, and a destination outside the job: neither is shown. */
    mwc_pair p2[3] = { { (rank + 1) % 3, 5000 * k, 110 }, { rank, 0, 0 }, { 3, 99, 9 } };
    mwt_pairs(b, 3000000001ull, 3, p2);
    if (goodbye)
        mwt_goodbye(b, 3000000002ull, 0, 0);
}

/* The end of stream()'s first PAIRS frame. */
static size_t first_pairs_end(uint32_t rank)
{
    mwt_buf h = { 0 };
    mwt_hello(&h, rank, 3, 100 + rank, 1, "h", "p", 3, names3);
    size_t n = h.len + 5 + 36 + 3 * 36 + 5 + 12 + 20;
    free(h.p);
    return n;
}

static void test_model(void)
{
    mwc_model m;
    mwc_model_init(&m, 1);
    mwc_model_set_endpoint(&m, 0, 1, "e");
    mwt_buf b = { 0 };
    stream(&b, 1, 0);
    mwc_session s;
    mwc_view none = { NULL, NULL, NULL, NULL, NULL };
    int ranks[1] = { 1 };
    char *descs[1] = { "e" };
    mwc_session_init(&s, 1, ranks, descs, none, NULL);
    /* Up to the first PAIRS: one snapshot, no rates yet. */
    size_t upto = first_pairs_end(1);
    CHECK(mwc_session_data(&s, 0, b.p, upto) == 0, "%s", s.dec[0].error);
    const mwc_rank *r = &s.model.r[0];
    CHECK(r->have_snapshot && !r->have_rates && !r->rates_new, "rates from one snapshot");
    CHECK(mwc_session_data(&s, 0, b.p + upto, b.len - upto) == 0, "%s", s.dec[0].error);
    CHECK(r->have_rates && r->rates_new && NEAR(r->rates.interval, 2.0), "no rates after two");
    CHECK(NEAR(r->rates.fn[1].calls, 50) && NEAR(r->rates.fn[1].time, 0.2) &&
              NEAR(r->rates.fn[1].sent, 4000) && NEAR(r->rates.fn[2].calls, 25) &&
              NEAR(r->rates.fn[2].recv, 4000) && NEAR(r->rates.fn[0].calls, 0),
          "per function");
    CHECK(NEAR(r->rates.total.calls, 75) && NEAR(r->rates.total.time, 0.3) &&
              NEAR(r->rates.total.sent, 4000) && NEAR(r->rates.total.recv, 4000),
          "total: %f calls/s, %f", r->rates.total.calls, r->rates.total.time);
    CHECK(r->npairs == 2 && r->pairs[0].to == 1 && r->pairs[1].to == 2 &&
              r->pairs[1].bytes == 10000,
          "row: %u pairs", (unsigned)r->npairs);
    /* A snapshot whose time did not advance gives no interval: the rates
     * stay; a lost rank keeps them and its row. */
    mwt_buf again = { 0 };
    mwc_entry e = { 1, 999, 999999999, 0, 0 };
    mwt_snapshot(&again, 3000000000ull, 0, 0, 0, 1, &e);
    CHECK(mwc_session_data(&s, 0, again.p, again.len) == 0, "%s", s.dec[0].error);
    CHECK(r->have_rates && !r->rates_new && NEAR(r->rates.fn[1].calls, 50), "rates changed");
    mwc_session_closed(&s, 0, "gone");
    CHECK(r->status == MWC_LOST && r->have_rates && NEAR(r->rates.total.calls, 75) && r->npairs == 2,
          "a lost rank lost its figures");
    mwc_session_free(&s);
    mwc_model_free(&m);
    free(b.p);
    free(again.p);
}

/* GOODBYE puts back the rates of the interval before the final SNAPSHOT,
 * whose times use another conversion (the report's); a rank with only one
 * interval keeps it. */
static void test_goodbye(void)
{
    mwc_view none = { NULL, NULL, NULL, NULL, NULL };
    int ranks[2] = { 1, 0 };
    char *descs[2] = { "e", "f" };
    mwc_session s;
    mwc_session_init(&s, 2, ranks, descs, none, NULL);
    mwt_buf b = { 0 };
    stream(&b, 1, 0);
    /* The final snapshot 0.1 s later: 10 more MPI_Send calls, and 0.3 s
     * more time (a conversion that differs, not 0.3 s spent). */
    mwc_entry fin[3] = { { 0, 1, 5000000, 0, 0 }, { 1, 120, 800000000, 10000, 0 },
                         { 2, 60, 250000000, 0, 10000 } };
    mwt_snapshot(&b, 3100000000ull, 0, 0, 0, 3, fin);
    CHECK(mwc_session_data(&s, 0, b.p, b.len) == 0, "%s", s.dec[0].error);
    const mwc_rank *r = &s.model.r[0];
    CHECK(r->rates_new && NEAR(r->rates.fn[1].calls, 100) && NEAR(r->rates.fn[1].time, 3.0),
          "the final interval: %f calls/s, share %f", r->rates.fn[1].calls, r->rates.fn[1].time);
    b.len = 0;
    mwt_goodbye(&b, 3100000001ull, 0, 0);
    CHECK(mwc_session_data(&s, 0, b.p, b.len) == -1, "GOODBYE ends the stream");
    CHECK(r->status == MWC_FINISHED && NEAR(r->rates.interval, 2.0) && NEAR(r->rates.fn[1].calls, 50) &&
              NEAR(r->rates.fn[1].time, 0.2) && NEAR(r->rates.total.calls, 75),
          "after GOODBYE: %f s, %f calls/s", r->rates.interval, r->rates.fn[1].calls);
    b.len = 0;
    stream(&b, 0, 1); /* one interval, then GOODBYE: it stays */
    CHECK(mwc_session_data(&s, 1, b.p, b.len) == -1, "GOODBYE ends the stream");
    r = &s.model.r[1];
    CHECK(r->have_rates && NEAR(r->rates.interval, 2.0) && NEAR(r->rates.fn[1].calls, 50),
          "one interval: %f s", r->rates.interval);
    mwc_session_free(&s);
    free(b.p);
}

/* The matrix of three ranks: pairs sorted, bounded by bytes, blocks. */
static void test_matrix(void)
{
    mwc_view none = { NULL, NULL, NULL, NULL, NULL };
    int ranks[3] = { 0, 1, 2 };
    char *descs[3] = { "a", "b", "c" };
    mwc_session s;
    mwc_session_init(&s, 3, ranks, descs, none, NULL);
    CHECK(!mwc_matrix_any(&s.model) && mwc_matrix_ranks(&s.model) == 0, "a matrix before frames");
    for (uint32_t k = 0; k < 3; k++) {
        mwt_buf b = { 0 };
        stream(&b, k, 1);
        CHECK(mwc_session_data(&s, k, b.p, b.len) == -1, "GOODBYE ends the stream");
        free(b.p);
    }
    CHECK(mwc_matrix_any(&s.model) && mwc_matrix_ranks(&s.model) == 3, "ranks");
    mwc_mpair *p;
    size_t total, n = mwc_matrix_pairs(&s.model, 10, &p, &total);
    CHECK(n == 3 && total == 3, "%zu pairs of %zu", n, total);
    CHECK(n == 3 && p[0].from == 0 && p[0].to == 1 && p[0].bytes == 5000 && p[0].messages == 110 &&
              p[1].from == 1 && p[1].to == 2 && p[1].bytes == 10000 && p[2].from == 2 &&
              p[2].to == 0 && p[2].bytes == 15000,
          "pairs");
    free(p);
    n = mwc_matrix_pairs(&s.model, 2, &p, &total);
    CHECK(n == 2 && total == 3 && p[0].from == 1 && p[1].from == 2, "bounded: the most bytes kept");
    free(p);

    CHECK(mwc_matrix_block(3, 3) == 1 && mwc_matrix_block(3, 2) == 2 && mwc_matrix_block(64, 10) == 7 &&
              mwc_matrix_block(64, 8) == 8 && mwc_matrix_block(0, 5) == 1 && mwc_matrix_block(5, 0) == 5 &&
              mwc_matrix_block(UINT32_MAX, 1) == UINT32_MAX,
          "block sizes");
    uint64_t c[9];
    mwc_matrix_blocks(&s.model, 3, 1, c);
    static const uint64_t want1[9] = { 0, 5000, 0, 0, 0, 10000, 15000, 0, 0 };
    CHECK(memcmp(c, want1, sizeof want1) == 0, "blocks of 1");
    mwc_matrix_blocks(&s.model, 3, 2, c); /* blocks {0,1} and {2} */
    static const uint64_t want2[4] = { 5000, 10000, 15000, 0 };
    CHECK(memcmp(c, want2, sizeof want2) == 0, "blocks of 2: %llu %llu %llu %llu",
          (unsigned long long)c[0], (unsigned long long)c[1], (unsigned long long)c[2],
          (unsigned long long)c[3]);
    mwc_matrix_blocks(&s.model, 3, 3, c);
    CHECK(c[0] == 30000, "one block: %llu", (unsigned long long)c[0]);
    /* Bytes that would wrap saturate. */
    s.model.r[0].pairs[0].bytes = UINT64_MAX - 1;
    mwc_matrix_blocks(&s.model, 3, 3, c);
    CHECK(c[0] == UINT64_MAX, "saturation");
    mwc_session_free(&s);
}

/* The JSON view: a rates line after each SNAPSHOT that closes an interval,
 * a matrix line once every attached rank has sent its row, and once more
 * before the totals. */
static void test_json(void)
{
    char *out = NULL;
    size_t len = 0;
    mwc_json_state st = { .out = open_memstream(&out, &len), .events = 1 };
    int ranks[2] = { 0, 1 };
    char *descs[2] = { "a", "b" };
    mwc_session s;
    mwc_session_init(&s, 2, ranks, descs, mwc_view_json(&st), NULL);
    mwt_buf b0 = { 0 }, b1 = { 0 };
    stream(&b0, 0, 0);
    stream(&b1, 1, 1);
    /* Interleaved: rank 0 to its first row (alone attached: a round),
     * rank 1 to its first row, rank 0's second row (both fresh: a round),
     * rank 1's second row and GOODBYE (rank 0 is silent: no round); rank 0
     * is lost; the last matrix comes before the totals. */
    size_t u0 = first_pairs_end(0), u1 = first_pairs_end(1);
    mwc_session_data(&s, 0, b0.p, u0);
    mwc_session_data(&s, 1, b1.p, u1);
    mwc_session_data(&s, 0, b0.p + u0, b0.len - u0);
    mwc_session_data(&s, 1, b1.p + u1, b1.len - u1);
    mwc_session_closed(&s, 0, "gone");
    mwc_session_finish(&s);
    fclose(st.out);
    static const char *rates1 =
        "{\"type\":\"rates\",\"rank\":1,\"interval\":2.000000000,\"calls_per_s\":75.000,"
        "\"mpi_share\":0.300000,\"sent_per_s\":4000.000,\"recv_per_s\":4000.000,\"functions\":["
        "{\"function\":\"MPI_Send\",\"calls_per_s\":50.000,\"time_share\":0.200000,\"sent_per_s\":4000.000,\"recv_per_s\":0.000},"
        "{\"function\":\"MPI_Recv\",\"calls_per_s\":25.000,\"time_share\":0.100000,\"sent_per_s\":0.000,\"recv_per_s\":4000.000}]}\n";
    static const char *m0 = "{\"type\":\"matrix\",\"ranks\":3,\"pairs\":[[0,1,1000,10]],\"pairs_total\":1}\n";
    static const char *m1 =
        "{\"type\":\"matrix\",\"ranks\":3,\"pairs\":[[0,1,5000,110],[1,2,2000,10]],\"pairs_total\":2}\n";
    static const char *m2 =
        "{\"type\":\"matrix\",\"ranks\":3,\"pairs\":[[0,1,5000,110],[1,2,10000,110]],\"pairs_total\":2}\n";
    CHECK(strstr(out, rates1) != NULL, "no rates line for rank 1:\n%s", out);
    CHECK(strstr(out, m0) != NULL && strstr(out, m1) != NULL, "matrix lines:\n%s", out);
    size_t rates = 0, matrices = 0;
    for (char *p = out; (p = strstr(p, "\"type\":\"rates\"")) != NULL; p++)
        rates++;
    for (char *p = out; (p = strstr(p, "\"type\":\"matrix\"")) != NULL; p++)
        matrices++;
    CHECK(rates == 2 && matrices == 3, "%zu rates lines, %zu matrix lines:\n%s", rates, matrices, out);
    const char *totals = strstr(out, "{\"type\":\"totals\"");
    CHECK(totals && totals - strlen(m2) >= out && strncmp(totals - strlen(m2), m2, strlen(m2)) == 0,
          "the last matrix line is not right before the totals:\n%s", out);
    mwc_session_free(&s);
    free(out);
    free(b0.p);
    free(b1.p);
}

int main(void)
{
    test_compute();
    test_model();
    test_goodbye();
    test_matrix();
    test_json();
    return CHECK_DONE("test_rates");
}
