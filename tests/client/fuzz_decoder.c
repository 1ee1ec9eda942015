/* Fuzz target (libFuzzer: clang -fsanitize=fuzzer,address,undefined; see
 * run-fuzz.sh): everything a rank or a recording file can make the client
 * read, through the same path as live data: decoder, model, JSON view
 * (whose last report builds the wait-for graph of the calls in progress,
 * the rates and the communication matrix), and the terminal view's final
 * summary with its --rank and --matrix panels.
 *
 * Input: byte 0 selects what the rest is:
 *   even  a rank's byte stream; byte 1 seeds how it is split into chunks
 *   odd   a --record file, replayed
 * The JSON goes to /dev/null: only crashes, sanitizer reports and leaks
 * count. fuzz_main.c runs the corpus without libFuzzer for make check. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "session.h"
#include "view_json.h"
#include "view_tty.h"

static FILE *sink;

static mwc_view view(mwc_json_state *st)
{
    if (!sink)
        sink = fopen("/dev/null", "w");
    memset(st, 0, sizeof *st);
    st->out = sink;
    st->events = 1;
    return mwc_view_json(st);
}

/* The terminal's final summary of what the session ended with, panels on:
 * the rank broken down is chosen by the input's first byte. */
static void summary(const mwc_model *m, int rank)
{
    mwc_tty_state tst;
    mwc_view v = mwc_view_tty(&tst, sink);
    tst.rank = rank;
    tst.matrix = 1;
    v.finish(v.st, m, 0);
}

static void stream(const uint8_t *p, size_t n)
{
    if (n < 1)
        return;
    uint32_t seed = p[0] * 2654435761u + 1;
    p++;
    n--;
    mwc_json_state st;
    int ranks[2] = { -1, 0 };
    char *descs[2] = { "fuzz", "fuzz 2" };
    mwc_session s;
    mwc_session_init(&s, 2, ranks, descs, view(&st), NULL);
    /* The same bytes to both slots, split differently: slot 1 also checks
     * the endpoint's rank against HELLO's. */
    for (size_t slot = 0; slot < 2; slot++) {
        size_t off = 0;
        while (off < n) {
            seed = seed * 1103515245u + 12345u;
            size_t k = (seed >> 16) % 64 + 1;
            if ((seed >> 8) % 8 == 0)
                k = n - off; /* sometimes all the rest at once */
            if (k > n - off)
                k = n - off;
            if (mwc_session_data(&s, slot, p + off, k) != 0)
                break;
            off += k;
        }
        mwc_session_closed(&s, slot, "end of input");
    }
    mwc_session_finish(&s);
    summary(&s.model, (int)(seed % 3));
    mwc_session_free(&s);
}

static void recording(const uint8_t *p, size_t n)
{
    FILE *f = fmemopen((void *)p, n, "rb");
    if (!f)
        return;
    mwc_replay r;
    if (mwc_replay_open(&r, f, "fuzz") == 0) {
        mwc_json_state st;
        mwc_session s;
        mwc_session_init(&s, r.slots, r.ranks, r.descs, view(&st), NULL);
        mwc_rec rec;
        while (mwc_replay_next(&r, &rec) == 1) {
            if (rec.kind == MWC_REC_DATA) {
                mwc_session_data(&s, rec.slot, rec.data, rec.len);
            } else {
                char why[300];
                snprintf(why, sizeof why, "%.*s", (int)(rec.len < 299 ? rec.len : 299),
                         (const char *)rec.data);
                mwc_session_closed(&s, rec.slot, why);
            }
        }
        for (size_t i = 0; i < s.model.n; i++)
            mwc_session_closed(&s, i, "end");
        mwc_session_finish(&s);
        summary(&s.model, 0);
        mwc_session_free(&s);
    }
    mwc_replay_close(&r);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 1)
        recording(data + 1, size - 1);
    else
        stream(data + 1, size - 1);
    return 0;
}
