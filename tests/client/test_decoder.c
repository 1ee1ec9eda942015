/* The frame decoder and the model, on hand-built frames: every frame type,
 * every split of a stream into two chunks and into single bytes, unknown
 * types skipped, and each malformed case rejected with a message. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decoder.h"
#include "frames.h"
#include "model.h"
#include "session.h"

/* What a feed decoded, summarised so that two feeds can be compared. */
typedef struct {
    int types[64];
    int n;
    uint64_t sum; /* of every decoded field, for equality of content */
    mwc_model *model;
    size_t slot;
} log_t;

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3ull;
}

static int record_frame(void *ctx, const mwc_frame *f)
{
    log_t *l = ctx;
    if (l->n < 64)
        l->types[l->n] = f->type;
    l->n++;
    l->sum = mix(l->sum, (uint64_t)f->type);
    switch (f->type) {
    case MWP_HELLO:
        l->sum = mix(l->sum, f->u.hello.rank * 7 + f->u.hello.size + f->u.hello.pid + f->u.hello.epoch);
        for (uint32_t i = 0; i < f->u.hello.nfunctions; i++)
            l->sum = mix(l->sum, f->u.hello.names[i].len + (uint64_t)(unsigned char)f->u.hello.names[i].p[0]);
        break;
    case MWP_EVENTS:
        for (uint32_t i = 0; i < f->u.events.count; i++) {
            mwc_event e;
            mwc_frame_event(f, i, &e);
            l->sum = mix(l->sum, e.function + e.thread + e.t_in + e.t_out + (uint64_t)e.peer +
                                     (uint64_t)e.tag + (uint64_t)e.comm + e.flags + e.sent + e.recv);
        }
        break;
    case MWP_SNAPSHOT:
        for (uint32_t i = 0; i < f->u.snapshot.count; i++) {
            mwc_entry e;
            mwc_frame_entry(f, i, &e);
            l->sum = mix(l->sum, e.function + e.calls + e.time + e.sent + e.recv);
        }
        l->sum = mix(l->sum, f->u.snapshot.t + f->u.snapshot.dropped + f->u.snapshot.unwatched);
        break;
    case MWP_GOODBYE:
        l->sum = mix(l->sum, f->u.goodbye.t + f->u.goodbye.sent + f->u.goodbye.dropped);
        break;
    case MWP_LEVEL:
        l->sum = mix(l->sum, f->u.level.t + (uint64_t)f->u.level.level);
        break;
    case MWP_INFLIGHT:
        l->sum = mix(l->sum, f->u.inflight.t);
        for (uint32_t i = 0; i < f->u.inflight.count; i++) {
            mwc_inflight c;
            mwc_frame_inflight(f, i, &c);
            l->sum = mix(l->sum, c.function + c.thread * 3 + c.t_in + (uint64_t)c.peer +
                                     (uint64_t)c.tag * 5 + (uint64_t)c.root * 7 +
                                     (uint64_t)c.comm * 11 + (uint64_t)c.comm_size * 13 + c.flags);
        }
        break;
    case MWP_PAIRS:
        l->sum = mix(l->sum, f->u.pairs.t);
        for (uint32_t i = 0; i < f->u.pairs.count; i++) {
            mwc_pair p;
            mwc_frame_pair(f, i, &p);
            l->sum = mix(l->sum, p.to + p.bytes * 3 + p.messages * 5);
        }
        break;
    }
    if (l->model) {
        char err[200];
        if (mwc_model_apply(l->model, l->slot, f, err, sizeof err) != 0)
            fprintf(stderr, "model: %s\n", err);
    }
    return 0;
}

static int feed(mwc_decoder *d, const void *p, size_t n, log_t *l)
{
    return mwc_decoder_feed(d, p, n, record_frame, l);
}

static const int script_types[] = { MWP_HELLO, MWP_EVENTS, MWP_SNAPSHOT, MWP_LEVEL, MWP_LEVEL,
                                    MWP_EVENTS, MWP_SNAPSHOT, MWP_GOODBYE };

static void test_whole_and_splits(void)
{
    mwt_buf b = { 0 };
    mwt_script(&b, 1, 3, 0);
    log_t whole = { .n = 0 };
    mwc_decoder d;
    mwc_decoder_init(&d);
    CHECK(feed(&d, b.p, b.len, &whole) == 0, "%s", d.error);
    CHECK(whole.n == 8, "%d frames", whole.n);
    CHECK(memcmp(whole.types, script_types, sizeof script_types) == 0, "frame types differ");
    CHECK(mwc_decoder_finished(&d) && mwc_decoder_idle(&d), "not finished after GOODBYE");
    mwc_decoder_free(&d);

    /* Every split point into two chunks gives the same frames. */
    int bad = 0;
    for (size_t i = 0; i <= b.len; i++) {
        log_t l = { .n = 0 };
        mwc_decoder_init(&d);
        int rc = feed(&d, b.p, i, &l);
        if (rc == 0)
            rc = feed(&d, b.p + i, b.len - i, &l);
        if (rc != 0 || l.n != whole.n || l.sum != whole.sum)
            bad++;
        mwc_decoder_free(&d);
    }
    CHECK(bad == 0, "%d of %zu two-chunk splits decode differently", bad, b.len + 1);

    /* One byte at a time, and three-way splits at every pair of points
     * (a frame spanning three chunks). */
    log_t l = { .n = 0 };
    mwc_decoder_init(&d);
    int rc = 0;
    for (size_t i = 0; i < b.len && rc == 0; i++)
        rc = feed(&d, b.p + i, 1, &l);
    CHECK(rc == 0 && l.n == whole.n && l.sum == whole.sum, "byte-by-byte differs: %s", d.error);
    mwc_decoder_free(&d);
    bad = 0;
    for (size_t i = 0; i < 200 && i < b.len; i++)
        for (size_t j = i; j <= b.len; j += 3) {
            log_t m = { .n = 0 };
            mwc_decoder_init(&d);
            rc = feed(&d, b.p, i, &m);
            rc = rc ? rc : feed(&d, b.p + i, j - i, &m);
            rc = rc ? rc : feed(&d, b.p + j, b.len - j, &m);
            if (rc != 0 || m.sum != whole.sum)
                bad++;
            mwc_decoder_free(&d);
        }
    CHECK(bad == 0, "%d three-chunk splits decode differently", bad);
    free(b.p);
}

static void test_unknown_skipped(void)
{
    mwt_buf b = { 0 }, s = { 0 };
    mwt_script(&s, 0, 1, 0);
    /* HELLO, then unknown frames of types 0, 9, 200 (one with no body,
     * one of the largest length), then the rest of the script. (8 is
     * FORWARD now: the first type no frame has is 9.) */
    uint32_t hello_len = s.p[0] | (s.p[1] << 8) | (s.p[2] << 16) | ((uint32_t)s.p[3] << 24);
    mwt_bytes(&b, s.p, 4 + hello_len);
    size_t at = mwt_begin(&b, 0);
    mwt_end(&b, at);
    at = mwt_begin(&b, 9);
    mwt_str(&b, "a frame from the future");
    mwt_end(&b, at);
    at = mwt_begin(&b, 200);
    for (uint32_t i = 0; i < MWP_FRAME_MAX - 1; i++)
        mwt_u8(&b, (uint8_t)i);
    mwt_end(&b, at);
    mwt_bytes(&b, s.p + 4 + hello_len, s.len - 4 - hello_len);
    for (size_t chunk = 1; chunk <= 7919; chunk *= 89) {
        log_t l = { .n = 0 };
        mwc_decoder d;
        mwc_decoder_init(&d);
        int rc = 0;
        for (size_t i = 0; i < b.len && rc == 0; i += chunk)
            rc = feed(&d, b.p + i, b.len - i < chunk ? b.len - i : chunk, &l);
        CHECK(rc == 0, "chunk %zu: %s", chunk, d.error);
        CHECK(l.n == 8 && memcmp(l.types, script_types, sizeof script_types) == 0,
              "chunk %zu: %d frames", chunk, l.n);
        mwc_decoder_free(&d);
    }
    free(b.p);
    free(s.p);
}

/* Feed a stream that must be rejected; the message must contain `want`. */
static void expect_error(const char *what, const mwt_buf *b, const char *want)
{
    mwc_decoder d;
    mwc_decoder_init(&d);
    log_t l = { .n = 0 };
    int rc = feed(&d, b->p, b->len, &l);
    CHECK(rc == -1, "%s: accepted (rc %d)", what, rc);
    CHECK(strstr(d.error, want) != NULL, "%s: message \"%s\" lacks \"%s\"", what, d.error, want);
    /* Broken stays broken, and byte-wise feeding finds the same error. */
    CHECK(feed(&d, "x", 1, &l) == -1, "%s: accepts input after an error", what);
    mwc_decoder_free(&d);
    mwc_decoder_init(&d);
    rc = 0;
    for (size_t i = 0; i < b->len && rc == 0; i++)
        rc = feed(&d, b->p + i, 1, &l);
    CHECK(rc == -1 && strstr(d.error, want), "%s byte-wise: rc %d, \"%s\"", what, rc, d.error);
    mwc_decoder_free(&d);
}

static const char *const names3[] = { "MPI_Init", "MPI_Send", "MPI_Finalize" };

static void hello(mwt_buf *b)
{
    mwt_hello(b, 0, 2, 1, 2, "h", "p", 3, names3);
}

static void test_malformed(void)
{
    mwt_buf b = { 0 };
    size_t at;

    mwt_u32(&b, 0);
    mwt_u8(&b, 1);
    expect_error("length 0", &b, "length 0 is outside");
    b.len = 0;
    mwt_u32(&b, MWP_FRAME_MAX + 1);
    expect_error("length 1 MiB + 1", &b, "length 1048577 is outside");
    b.len = 0;
    mwt_u32(&b, 0xFFFFFFFFu);
    expect_error("length 2^32-1", &b, "outside");

    b.len = 0;
    mwt_level(&b, 1, 1);
    expect_error("no HELLO first", &b, "starts with a LEVEL frame, not HELLO");
    b.len = 0;
    at = mwt_begin(&b, 77);
    mwt_end(&b, at);
    expect_error("unknown type first", &b, "unknown type 77, not HELLO");

    /* HELLO: a string longer than the frame, each field cut short. */
    b.len = 0;
    at = mwt_begin(&b, MWP_HELLO);
    mwt_u16(&b, 1);
    mwt_u32(&b, 0);
    mwt_u32(&b, 1);
    mwt_u32(&b, 1);
    mwt_u64(&b, 1);
    mwt_u16(&b, 100); /* host: 100 bytes announced, 3 present */
    mwt_bytes(&b, "abc", 3);
    mwt_end(&b, at);
    expect_error("truncated string", &b, "HELLO frame is truncated");
    mwt_buf h = { 0 };
    hello(&h);
    int bad = 0;
    for (uint32_t cut = 1; cut < h.len - 4; cut++) { /* every shorter HELLO */
        mwt_buf t = { 0 };
        mwt_u32(&t, cut);
        mwt_bytes(&t, h.p + 4, cut);
        mwc_decoder d;
        mwc_decoder_init(&d);
        log_t l = { .n = 0 };
        if (feed(&d, t.p, t.len, &l) != -1 || !strstr(d.error, "HELLO"))
            bad++;
        mwc_decoder_free(&d);
        free(t.p);
    }
    CHECK(bad == 0, "%d truncated HELLO frames accepted", bad);
    b.len = 0;
    mwt_bytes(&b, h.p, h.len);
    mwt_u8(&b, 0); /* one byte too many in the frame: patch the length */
    b.p[0]++;
    expect_error("HELLO trailing byte", &b, "1 bytes after its last field");
    b.len = 0;
    at = mwt_begin(&b, MWP_HELLO);
    mwt_u16(&b, 2);
    mwt_bytes(&b, h.p + 7, h.len - 7);
    mwt_end(&b, at);
    expect_error("HELLO version 2", &b, "protocol version 2");
    b.len = 0;
    mwt_hello(&b, 5, 5, 1, 1, "h", "p", 0, NULL);
    expect_error("HELLO rank >= size", &b, "rank 5 of 5 ranks");
    b.len = 0;
    at = mwt_begin(&b, MWP_HELLO);
    mwt_u16(&b, 1);
    mwt_u32(&b, 0);
    mwt_u32(&b, 1);
    mwt_u32(&b, 1);
    mwt_u64(&b, 1);
    for (int i = 0; i < 4; i++)
        mwt_str(&b, "x");
    mwt_u32(&b, 0xFFFFFFFFu);
    mwt_str(&b, "MPI_Send");
    mwt_end(&b, at);
    expect_error("HELLO name count", &b, "announces 4294967295 function names");
    b.len = 0;
    hello(&b);
    hello(&b);
    expect_error("second HELLO", &b, "a second HELLO");

    /* EVENTS: counts that overflow the frame, ids out of range. */
    mwc_event ev = { 1, 0, 10, 20, -1, -1, -1, 0, 0, 0 };
    b.len = 0;
    hello(&b);
    at = mwt_begin(&b, MWP_EVENTS);
    mwt_u32(&b, 2);
    mwt_bytes(&b, "0123456789012345678901234567890123456789012345678901234", 56);
    mwt_end(&b, at);
    expect_error("EVENTS count 2, one record", &b, "announces 2 records but holds 56 bytes");
    b.len = 0;
    hello(&b);
    at = mwt_begin(&b, MWP_EVENTS);
    mwt_u32(&b, 0x04924925u); /* * 56 wraps to 56 in 32 bits */
    mwt_bytes(&b, "0123456789012345678901234567890123456789012345678901234", 56);
    mwt_end(&b, at);
    expect_error("EVENTS count wrapping", &b, "announces 76695845 records");
    b.len = 0;
    hello(&b);
    at = mwt_begin(&b, MWP_EVENTS);
    mwt_end(&b, at);
    expect_error("EVENTS without count", &b, "EVENTS frame is truncated");
    b.len = 0;
    hello(&b);
    ev.function = 3;
    mwt_events(&b, 1, &ev);
    expect_error("EVENTS id out of range", &b, "names function 3; HELLO named 3");
    b.len = 0;
    mwt_hello(&b, 0, 1, 1, 1, "h", "p", 0, NULL);
    ev.function = 0;
    mwt_events(&b, 1, &ev);
    expect_error("EVENTS with no names", &b, "names function 0; HELLO named 0");

    /* SNAPSHOT. */
    mwc_entry e[2] = { { 2, 1, 1, 0, 0 }, { 2, 1, 1, 0, 0 } };
    b.len = 0;
    hello(&b);
    mwt_snapshot(&b, 1, 0, 0, 0, 2, e);
    expect_error("SNAPSHOT repeat", &b, "names function 2 twice");
    b.len = 0;
    hello(&b);
    e[1].function = 9;
    mwt_snapshot(&b, 1, 0, 0, 0, 2, e);
    expect_error("SNAPSHOT id out of range", &b, "entry 1 names function 9");
    b.len = 0;
    hello(&b);
    mwt_snapshot(&b, 1, 0, 0, 0, 1, e);
    b.p[b.len - 36 - 4] = 3; /* count 3, one entry */
    expect_error("SNAPSHOT count", &b, "announces 3 entries but holds 36 bytes");
    b.len = 0;
    hello(&b);
    at = mwt_begin(&b, MWP_SNAPSHOT);
    mwt_u64(&b, 1);
    mwt_end(&b, at);
    expect_error("SNAPSHOT short", &b, "SNAPSHOT frame is truncated");

    /* INFLIGHT: counts that do not match the records, ids out of range. */
    mwc_inflight c = { 1, 0, 5, 1, 99, MWP_NONE, 0, 4, MWP_IF_RECEIVES };
    b.len = 0;
    hello(&b);
    at = mwt_begin(&b, MWP_INFLIGHT);
    mwt_u64(&b, 1);
    mwt_end(&b, at);
    expect_error("INFLIGHT without count", &b, "INFLIGHT frame is truncated");
    b.len = 0;
    hello(&b);
    mwt_inflight(&b, 9, 1, &c);
    b.p[b.len - 40 - 4] = 2; /* count 2, one record */
    expect_error("INFLIGHT count 2, one record", &b, "announces 2 records but holds 40 bytes");
    b.len = 0;
    hello(&b);
    mwt_inflight(&b, 9, 1, &c);
    b.p[b.len - 40 - 4] = 0x67; /* 0x66666667 * 40 wraps to 40 in 32 bits */
    b.p[b.len - 40 - 3] = 0x66;
    b.p[b.len - 40 - 2] = 0x66;
    b.p[b.len - 40 - 1] = 0x66;
    expect_error("INFLIGHT count wrapping", &b, "announces 1717986919 records");
    b.len = 0;
    hello(&b);
    mwt_inflight(&b, 9, 1, &c);
    mwt_u8(&b, 0); /* a byte after the last record */
    b.p[b.len - 1 - 40 - 4 - 8 - 5]++;
    expect_error("INFLIGHT trailing byte", &b, "announces 1 records but holds 41 bytes");
    b.len = 0;
    hello(&b);
    c.function = 3;
    mwt_inflight(&b, 9, 1, &c);
    expect_error("INFLIGHT id out of range", &b, "INFLIGHT record 0 names function 3; HELLO named 3");
    b.len = 0;
    mwt_inflight(&b, 9, 0, NULL);
    expect_error("INFLIGHT first", &b, "starts with a INFLIGHT frame, not HELLO");

    /* PAIRS: counts that do not match the records, wrapping in 32 bits. */
    mwc_pair pr = { 1, 100, 2 };
    b.len = 0;
    hello(&b);
    at = mwt_begin(&b, MWP_PAIRS);
    mwt_u64(&b, 1);
    mwt_u16(&b, 0);
    mwt_end(&b, at);
    expect_error("PAIRS without count", &b, "PAIRS frame is truncated");
    b.len = 0;
    hello(&b);
    mwt_pairs(&b, 9, 1, &pr);
    b.p[b.len - 20 - 4] = 2; /* count 2, one record */
    expect_error("PAIRS count 2, one record", &b, "PAIRS frame announces 2 records but holds 20 bytes");
    b.len = 0;
    hello(&b);
    mwt_pairs(&b, 9, 1, &pr);
    b.p[b.len - 20 - 1] = 0x40; /* 0x40000001 * 20 wraps to 20 in 32 bits */
    expect_error("PAIRS count wrapping", &b, "announces 1073741825 records but holds 20 bytes");
    b.len = 0;
    hello(&b);
    mwt_pairs(&b, 9, 1, &pr);
    mwt_u8(&b, 0); /* a byte after the last record */
    b.p[b.len - 1 - 20 - 4 - 8 - 5]++;
    expect_error("PAIRS trailing byte", &b, "announces 1 records but holds 21 bytes");
    b.len = 0;
    mwt_pairs(&b, 9, 0, NULL);
    expect_error("PAIRS first", &b, "starts with a PAIRS frame, not HELLO");

    /* GOODBYE and LEVEL are fixed-size; nothing may follow GOODBYE. */
    b.len = 0;
    hello(&b);
    at = mwt_begin(&b, MWP_GOODBYE);
    mwt_u64(&b, 1);
    mwt_u64(&b, 1);
    mwt_end(&b, at);
    expect_error("GOODBYE short", &b, "GOODBYE frame is truncated");
    b.len = 0;
    hello(&b);
    at = mwt_begin(&b, MWP_LEVEL);
    mwt_u64(&b, 1);
    mwt_u32(&b, 1);
    mwt_u32(&b, 1);
    mwt_end(&b, at);
    expect_error("LEVEL long", &b, "LEVEL frame has 4 bytes after its last field");
    b.len = 0;
    hello(&b);
    mwt_goodbye(&b, 1, 2, 3);
    mwt_level(&b, 1, 1);
    expect_error("frame after GOODBYE", &b, "after GOODBYE");

    /* A stream cut in the middle of a frame is not idle (the session calls
     * that "in the middle of a frame"). */
    b.len = 0;
    hello(&b);
    mwc_decoder d;
    mwc_decoder_init(&d);
    log_t l = { .n = 0 };
    CHECK(feed(&d, b.p, b.len - 1, &l) == 0 && !mwc_decoder_idle(&d), "cut stream looks idle");
    CHECK(feed(&d, b.p + b.len - 1, 1, &l) == 0 && mwc_decoder_idle(&d), "whole stream not idle");
    mwc_decoder_free(&d);
    free(b.p);
    free(h.p);
}

/* Three ranks whose HELLOs number the functions differently: totals are
 * merged by name and come from the last snapshots only. */
static void test_model(void)
{
    mwc_model m;
    mwc_model_init(&m, 3);
    for (int r = 0; r < 3; r++)
        mwc_model_set_endpoint(&m, (size_t)r, r, "tcp://x:1");
    for (uint32_t r = 0; r < 3; r++) {
        mwt_buf b = { 0 };
        mwt_script(&b, r, 3, r == 2);
        mwc_decoder d;
        mwc_decoder_init(&d);
        log_t l = { .n = 0, .model = &m, .slot = r };
        CHECK(feed(&d, b.p, b.len, &l) == 0, "rank %u: %s", (unsigned)r, d.error);
        mwc_decoder_free(&d);
        free(b.p);
    }
    mwc_model_lose(&m, 2, "gone");
    mwc_total *t;
    size_t n = mwc_model_totals(&m, &t);
    CHECK(n == 5, "%zu functions", n);
    /* Ranks 0 and 1: last snapshots (k = 1, 2); rank 2 (lost): its first. */
    static const struct { const char *name; uint64_t calls, time, sent, recv; } want[] = {
        { "MPI_Barrier", 4, 1000, 0, 0 },
        { "MPI_Finalize", 2, 0, 0, 0 },
        { "MPI_Init", 3, 6000000, 0, 0 },
        { "MPI_Recv", 30, 9000, 0, 240 },
        { "MPI_Send", 31, 6600, 264, 0 },
    };
    for (size_t i = 0; i < 5 && i < n; i++) {
        CHECK(strcmp(t[i].name, want[i].name) == 0, "%zu: %s", i, t[i].name);
        CHECK(t[i].c.calls == want[i].calls && t[i].c.time == want[i].time &&
                  t[i].c.sent == want[i].sent && t[i].c.recv == want[i].recv,
              "%s: %llu %llu %llu %llu", t[i].name, (unsigned long long)t[i].c.calls,
              (unsigned long long)t[i].c.time, (unsigned long long)t[i].c.sent,
              (unsigned long long)t[i].c.recv);
    }
    free(t);
    mwc_summary s = mwc_model_summary(&m);
    CHECK(s.finished == 2 && s.lost == 1 && s.attached == 0, "%zu %zu", s.finished, s.lost);
    CHECK(s.received == 6 + 6 + 3, "received %llu", (unsigned long long)s.received);
    CHECK(s.dropped == 0 + 1 + 0 && s.unwatched == 15, "dropped %llu unwatched %llu",
          (unsigned long long)s.dropped, (unsigned long long)s.unwatched);
    CHECK(m.r[1].live[(1 + 1) % 5].calls == 2, "live MPI_Send calls of rank 1");
    CHECK(mwc_model_done(&m), "not done");
    CHECK(strcmp(m.r[2].reason, "gone") == 0, "reason %s", m.r[2].reason);

    /* HELLO from another rank than the endpoint's, or another job size. */
    mwt_buf b = { 0 };
    mwt_hello(&b, 1, 3, 1, 1, "h", "p", 0, NULL);
    mwc_model m2;
    mwc_model_init(&m2, 2);
    mwc_model_set_endpoint(&m2, 0, 0, "e0");
    mwc_model_set_endpoint(&m2, 1, -1, "e1");
    mwc_decoder d;
    mwc_decoder_init(&d);
    char err[200];
    mwc_frame f;
    memset(&f, 0, sizeof f);
    f.type = MWP_HELLO;
    f.u.hello.rank = 1;
    f.u.hello.size = 3;
    CHECK(mwc_model_apply(&m2, 0, &f, err, sizeof err) == -1 && strstr(err, "endpoint is rank 0"),
          "rank mismatch: %s", err);
    CHECK(mwc_model_apply(&m2, 1, &f, err, sizeof err) == 0, "%s", err);
    f.u.hello.rank = 0;
    f.u.hello.size = 4;
    CHECK(mwc_model_apply(&m2, 0, &f, err, sizeof err) == -1 && strstr(err, "HELLO says 4 ranks"),
          "size mismatch: %s", err);
    mwc_decoder_free(&d);
    mwc_model_free(&m2);
    mwc_model_free(&m);
    free(b.p);
}

/* INFLIGHT frames: decoded the same at every split, each replacing the
 * last set in the model; GOODBYE clears it, a lost rank keeps it and its
 * calls stop ageing when it is lost. */
static void test_inflight(void)
{
    mwt_buf b = { 0 };
    hello(&b);
    size_t hlen = b.len;
    mwc_inflight c[2] = {
        { 1, 0, 1000000000ull, 1, 99, MWP_NONE, 0, 2, MWP_IF_RECEIVES },
        { 2, 1, 1500000000ull, MWP_ANY, MWP_ANY, 2, 5, 8, MWP_IF_COLLECTIVE | MWP_IF_WORLD },
    };
    mwt_inflight(&b, 3000000000ull, 2, c);
    mwt_inflight(&b, 3500000000ull, 0, NULL);
    mwt_inflight(&b, 4000000000ull, 1, c);
    log_t whole = { .n = 0 };
    mwc_decoder d;
    mwc_decoder_init(&d);
    CHECK(feed(&d, b.p, b.len, &whole) == 0, "%s", d.error);
    CHECK(whole.n == 4 && whole.types[1] == MWP_INFLIGHT && whole.types[3] == MWP_INFLIGHT,
          "%d frames", whole.n);
    mwc_decoder_free(&d);
    int bad = 0;
    for (size_t i = hlen; i <= b.len; i++) {
        log_t l = { .n = 0 };
        mwc_decoder_init(&d);
        int rc = feed(&d, b.p, i, &l);
        rc = rc ? rc : feed(&d, b.p + i, b.len - i, &l);
        bad += rc != 0 || l.n != whole.n || l.sum != whole.sum;
        mwc_decoder_free(&d);
    }
    CHECK(bad == 0, "%d two-chunk splits of INFLIGHT frames decode differently", bad);

    /* The model, frame by frame, at client times 10, 11 and 12 s. */
    mwc_model m;
    mwc_model_init(&m, 1);
    mwc_model_set_endpoint(&m, 0, 0, "e");
    log_t l = { .n = 0, .model = &m, .slot = 0 };
    mwc_decoder_init(&d);
    m.now = 10;
    feed(&d, b.p, hlen, &l);
    size_t one = hlen + 5 + 12 + 2 * 40;
    feed(&d, b.p + hlen, one - hlen, &l);
    mwc_rank *r = &m.r[0];
    CHECK(r->ninflight == 2 && r->inflight[0].peer == 1 && r->inflight[0].tag == 99 &&
              r->inflight[1].peer == MWP_ANY && r->inflight[1].root == 2 &&
              r->inflight[1].comm_size == 8 && r->inflight[1].thread == 1,
          "%u calls", (unsigned)r->ninflight);
    double s0 = mwc_inflight_seconds(r, &r->inflight[0], 10.5);
    CHECK(s0 > 2.49 && s0 < 2.51, "2 s at the rank + 0.5 s since: %f", s0);
    CHECK(mwc_rank_has_inflight(r), "calls not shown");
    m.now = 11;
    feed(&d, b.p + one, 5 + 12, &l);
    CHECK(r->ninflight == 0 && !mwc_rank_has_inflight(r), "n = 0 did not clear the calls");
    m.now = 12;
    feed(&d, b.p + one + 17, b.len - one - 17, &l);
    CHECK(r->ninflight == 1, "%u calls", (unsigned)r->ninflight);
    m.now = 13;
    mwc_model_lose(&m, 0, "gone");
    double s1 = mwc_inflight_seconds(r, &r->inflight[0], 100);
    CHECK(r->status == MWC_LOST && mwc_rank_has_inflight(r) && s1 > 3.99 && s1 < 4.01,
          "a lost rank's call: shown %d, %f s (3 at the rank + 1 until lost)",
          mwc_rank_has_inflight(r), s1);
    mwc_waitfor w;
    mwc_model_waitfor(&m, 100, 2, &w);
    CHECK(w.nstuck == 1 && w.nedges == 1 && w.edges[0].from == 0 && w.edges[0].to == 1,
          "graph of the lost rank: %zu stuck, %zu edges", w.nstuck, w.nedges);
    mwc_waitfor_free(&w);
    r->inflight[0].peer = 2; /* outside the job of 2 ranks: no edge */
    mwc_model_waitfor(&m, 100, 2, &w);
    CHECK(w.nstuck == 1 && w.nedges == 0, "a peer outside the job gave %zu edges", w.nedges);
    mwc_waitfor_free(&w);
    mwc_model_waitfor(&m, 100, 5, &w);
    CHECK(w.nstuck == 0 && w.nedges == 0, "4 s is not stuck at 5");
    mwc_waitfor_free(&w);
    mwc_decoder_free(&d);

    /* GOODBYE: past MPI_Finalize, nothing is in progress. */
    mwc_model_free(&m);
    mwc_model_init(&m, 1);
    mwc_decoder_init(&d);
    l.model = &m;
    mwt_goodbye(&b, 5000000000ull, 0, 0);
    feed(&d, b.p, b.len, &l);
    CHECK(m.r[0].status == MWC_FINISHED && !mwc_rank_has_inflight(&m.r[0]), "calls after GOODBYE");
    mwc_decoder_free(&d);
    mwc_model_free(&m);
    free(b.p);
}

/* PAIRS frames: decoded the same at every split; the model keeps the last
 * row, sorted, without destinations outside the job, rejects a repeated
 * destination, and keeps the row when the rank is lost. */
static void test_pairs(void)
{
    mwt_buf b = { 0 };
    hello(&b); /* rank 0 of 2 */
    size_t hlen = b.len;
    mwc_pair p[4] = { { 1, 4096, 4 }, { 7, 1, 1 }, { 0, 8, 1 }, { 0xFFFFFFFFu, 5, 5 } };
    mwt_pairs(&b, 2000000000ull, 4, p);
    mwt_pairs(&b, 3000000000ull, 0, NULL);
    size_t two = b.len;
    mwt_pairs(&b, 4000000000ull, 1, p);
    log_t whole = { .n = 0 };
    mwc_decoder d;
    mwc_decoder_init(&d);
    CHECK(feed(&d, b.p, b.len, &whole) == 0, "%s", d.error);
    CHECK(whole.n == 4 && whole.types[1] == MWP_PAIRS && whole.types[3] == MWP_PAIRS, "%d frames",
          whole.n);
    mwc_decoder_free(&d);
    int bad = 0;
    for (size_t i = hlen; i <= b.len; i++) {
        log_t l = { .n = 0 };
        mwc_decoder_init(&d);
        int rc = feed(&d, b.p, i, &l);
        rc = rc ? rc : feed(&d, b.p + i, b.len - i, &l);
        bad += rc != 0 || l.n != whole.n || l.sum != whole.sum;
        mwc_decoder_free(&d);
    }
    CHECK(bad == 0, "%d two-chunk splits of PAIRS frames decode differently", bad);

    mwc_model m;
    mwc_model_init(&m, 1);
    mwc_model_set_endpoint(&m, 0, 0, "e");
    log_t l = { .n = 0, .model = &m, .slot = 0 };
    mwc_decoder_init(&d);
    feed(&d, b.p, hlen + 5 + 12 + 4 * 20, &l);
    mwc_rank *r = &m.r[0];
    CHECK(r->have_pairs && r->npairs == 2 && r->pairs[0].to == 0 && r->pairs[0].bytes == 8 &&
              r->pairs[1].to == 1 && r->pairs[1].bytes == 4096 && r->pairs[1].messages == 4 &&
              r->pairs_t == 2000000000ull,
          "row of %u pairs (want 0 and 1; 7 and 2^32-1 are outside 2 ranks)", (unsigned)r->npairs);
    feed(&d, b.p + hlen + 5 + 12 + 4 * 20, two - (hlen + 5 + 12 + 4 * 20), &l);
    CHECK(r->have_pairs && r->npairs == 0, "an empty PAIRS leaves %u pairs", (unsigned)r->npairs);
    feed(&d, b.p + two, b.len - two, &l);
    mwc_model_lose(&m, 0, "gone");
    CHECK(r->npairs == 1 && r->pairs[0].to == 1 && r->pairs_t == 4000000000ull,
          "a lost rank keeps its last row");
    mwc_decoder_free(&d);

    /* A destination named twice contradicts the protocol: the model says so. */
    b.len = 0;
    hello(&b);
    p[1].to = 1;
    mwt_pairs(&b, 1, 2, p);
    mwc_model_free(&m);
    mwc_model_init(&m, 1);
    mwc_frame f;
    memset(&f, 0, sizeof f);
    mwc_decoder_init(&d);
    l.model = NULL;
    CHECK(feed(&d, b.p, hlen, &l) == 0, "%s", d.error);
    char err[200] = "";
    f.type = MWP_HELLO;
    f.u.hello.rank = 0;
    f.u.hello.size = 2;
    CHECK(mwc_model_apply(&m, 0, &f, err, sizeof err) == 0, "%s", err);
    f.type = MWP_PAIRS;
    f.u.pairs.t = 1;
    f.u.pairs.count = 2;
    f.u.pairs.records = b.p + hlen + 5 + 12;
    CHECK(mwc_model_apply(&m, 0, &f, err, sizeof err) == -1 && strcmp(err, "PAIRS names rank 1 twice") == 0,
          "repeat: %s", err);
    mwc_decoder_free(&d);
    mwc_model_free(&m);
    free(b.p);
}

/* The session turns a protocol error into a lost rank, with the reason. */
static int lost_seen;
static void on_lost(void *st, const mwc_model *m, size_t slot)
{
    (void)st;
    lost_seen += m->r[slot].status == MWC_LOST;
}

static void test_session(void)
{
    mwc_view v = { NULL, on_lost, NULL, NULL, NULL };
    int ranks[2] = { 0, 1 };
    char *descs[2] = { "a", "b" };
    mwc_session s;
    mwc_session_init(&s, 2, ranks, descs, v, NULL);
    mwt_buf b = { 0 };
    mwt_script(&b, 0, 2, 0);
    CHECK(mwc_session_data(&s, 0, b.p, b.len) == -1, "GOODBYE must end the stream");
    CHECK(s.model.r[0].status == MWC_FINISHED, "status %d", s.model.r[0].status);
    mwc_session_closed(&s, 0, "closed");
    CHECK(s.model.r[0].status == MWC_FINISHED && lost_seen == 0, "closing after GOODBYE lost it");
    b.len = 0;
    mwt_script(&b, 0, 2, 0); /* rank 0's HELLO on rank 1's endpoint */
    CHECK(mwc_session_data(&s, 1, b.p, b.len) == -1, "wrong rank accepted");
    CHECK(s.model.r[1].status == MWC_LOST && strstr(s.model.r[1].reason, "endpoint is rank 1"),
          "reason: %s", s.model.r[1].reason);
    CHECK(lost_seen == 1, "lost told %d times", lost_seen);
    mwc_session_free(&s);

    mwc_session_init(&s, 2, ranks, descs, v, NULL);
    b.len = 0;
    mwt_script(&b, 1, 2, 1);
    CHECK(mwc_session_data(&s, 1, b.p, b.len - 3) == 0, "partial stream");
    mwc_session_closed(&s, 1, "the rank closed the connection");
    CHECK(strcmp(s.model.r[1].reason, "the rank closed the connection, in the middle of a frame") == 0,
          "%s", s.model.r[1].reason);
    b.len = 0;
    mwt_u32(&b, 0);
    CHECK(mwc_session_data(&s, 0, b.p, b.len) == -1, "length 0 accepted");
    CHECK(strncmp(s.model.r[0].reason, "protocol error: frame 1 at byte 0: length 0", 43) == 0,
          "%s", s.model.r[0].reason);
    mwc_session_free(&s);
    free(b.p);
}

/* A FORWARD frame of rank's bytes [from, from + n). */
static void forward(mwt_buf *out, uint32_t rank, const mwt_buf *stream, size_t from, size_t n)
{
    size_t at = mwt_begin(out, MWP_FORWARD);
    mwt_u32(out, rank);
    mwt_bytes(out, stream->p + from, n);
    mwt_end(out, at);
}

/* A node leader's connection: ranks 0 (the leader) and 1 behind it, their
 * streams cut into 7-byte FORWARD frames, interleaved, fed in 13-byte
 * chunks; then the broken cases. */
static void test_node_leader(void)
{
    mwc_view v = { NULL, on_lost, NULL, NULL, NULL };
    int ranks[3] = { 0, 1, 2 };
    char *descs[3] = { "node", "via 0", "tcp" };
    mwt_buf r0 = { 0 }, r1 = { 0 }, b = { 0 };
    mwt_script(&r0, 0, 3, 0);
    mwt_script(&r1, 1, 3, 0);
    for (size_t i = 0; i < r0.len || i < r1.len; i += 7) {
        if (i < r1.len)
            forward(&b, 1, &r1, i, r1.len - i < 7 ? r1.len - i : 7);
        if (i < r0.len)
            forward(&b, 0, &r0, i, r0.len - i < 7 ? r0.len - i : 7);
    }
    mwc_session s;
    mwc_session_init(&s, 3, ranks, descs, v, NULL);
    mwc_session_set_node(&s, 0);
    mwc_session_set_via(&s, 1, 0);
    int rc = 0;
    for (size_t i = 0; i < b.len && rc == 0; i += 13)
        rc = mwc_session_relay_data(&s, 0, b.p + i, b.len - i < 13 ? b.len - i : 13);
    CHECK(rc == -1 && s.model.r[0].status == MWC_FINISHED && s.model.r[1].status == MWC_FINISHED,
          "both ranks' GOODBYEs end the connection: rc %d, status %d %d", rc,
          s.model.r[0].status, s.model.r[1].status);
    CHECK(s.model.r[2].status != MWC_FINISHED && s.model.r[2].status != MWC_LOST,
          "rank 2 has its own connection");
    mwc_session_free(&s);

    /* Cut: the leader's connection ends after half of it. */
    int before = lost_seen;
    mwc_session_init(&s, 3, ranks, descs, v, NULL);
    mwc_session_set_node(&s, 0);
    mwc_session_set_via(&s, 1, 0);
    CHECK(mwc_session_relay_data(&s, 0, b.p, b.len / 2) == 0, "half a node's stream");
    mwc_session_closed(&s, 0, "the rank closed the connection");
    CHECK(s.model.r[1].status == MWC_LOST &&
          strstr(s.model.r[1].reason, "its node leader (rank 0): the rank closed") != NULL,
          "rank 1: %s", s.model.r[1].reason);
    CHECK(s.model.r[0].status == MWC_LOST && lost_seen == before + 2, "lost told %d times",
          lost_seen - before);
    mwc_session_free(&s);

    /* A FORWARD frame for a rank not behind this leader breaks the connection. */
    mwc_session_init(&s, 3, ranks, descs, v, NULL);
    mwc_session_set_node(&s, 0);
    mwc_session_set_via(&s, 1, 0);
    b.len = 0;
    forward(&b, 2, &r1, 0, 10);
    CHECK(mwc_session_relay_data(&s, 0, b.p, b.len) == -1, "rank 2 accepted from leader 0");
    CHECK(s.model.r[0].status == MWC_LOST && s.model.r[1].status == MWC_LOST &&
          strstr(s.model.r[1].reason, "rank 2, which is not behind this node leader") != NULL,
          "reason: %s", s.model.r[1].reason);
    mwc_session_free(&s);

    /* The decoders: a leader sends FORWARD only; a rank never does. */
    mwc_decoder d;
    mwc_decoder_init_relay(&d);
    log_t l = { .n = 0 };
    CHECK(feed(&d, r0.p, r0.len, &l) == -1 && strstr(d.error, "a node leader sent a HELLO frame"),
          "HELLO from a leader: %s", d.error);
    mwc_decoder_free(&d);
    mwc_decoder_init_relay(&d);
    b.len = 0;
    size_t at = mwt_begin(&b, MWP_FORWARD);
    mwt_u32(&b, 0);
    mwt_end(&b, at);
    CHECK(feed(&d, b.p, b.len, &l) == -1 && strstr(d.error, "FORWARD frame without bytes"),
          "empty FORWARD: %s", d.error);
    mwc_decoder_free(&d);
    b.len = 0;
    mwt_bytes(&b, r0.p, 4 + (r0.p[0] | (r0.p[1] << 8) | (r0.p[2] << 16)));   /* its HELLO */
    forward(&b, 0, &r1, 0, 10);
    expect_error("FORWARD from a rank", &b, "FORWARD frame from a rank whose endpoint");
    free(r0.p);
    free(r1.p);
    free(b.p);
}

int main(void)
{
    test_whole_and_splits();
    test_unknown_skipped();
    test_malformed();
    test_model();
    test_inflight();
    test_pairs();
    test_session();
    test_node_leader();
    return CHECK_DONE("test_decoder");
}
