/* Unit tests of the writer's encoding of a chunk (runtime/trace/transcode.c):
 * raw records as the recorder stores them (trace/raw.h) against the bytes
 * of docs/trace.md's "Format", worked out by hand here, for every kind, a
 * clock that steps back, a negative byte count, a site's key with its
 * upper bits, the first time after a count of dropped calls, a chunk of
 * dropped calls alone, the file's numbers of functions, and a chunk of the
 * longest records within the encoded bound. TAP on stdout; for tests/trace/check-trace-transcode.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/transcode.h"

static int tests, failed;

static void ok(int cond, const char *what)
{
    tests++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", tests, what);
    failed += !cond;
}

/* The chunk's encoding equals want (n bytes) and its first time first_t,
 * its functions numbered by file_id (NULL: by their ids). */
static void check_coded(const mw_trace_chunk *c, const unsigned char *want, size_t n,
                        uint64_t first_t, const uint16_t *file_id, const char *what)
{
    static unsigned char out[MW_TRACE_CODED_BYTES];
    uint64_t got_first;
    size_t size = mw_trace_transcode(c, out, &got_first, file_id);
    int same = size == n && memcmp(out, want, n) == 0 && got_first == first_t;
    ok(same, what);
    if (!same) {
        printf("# first time %llu (want %llu); got %zu bytes:", (unsigned long long)got_first,
               (unsigned long long)first_t, size);
        for (size_t i = 0; i < size; i++)
            printf(" %02x", out[i]);
        printf("\n# want %zu:", n);
        for (size_t i = 0; i < n; i++)
            printf(" %02x", want[i]);
        printf("\n");
    }
}

static mw_trace_chunk *new_chunk(void)
{
    mw_trace_chunk *c = calloc(1, sizeof *c);
    if (c == NULL) {
        printf("Bail out! no memory\n");
        exit(1);
    }
    return c;
}

static unsigned char *put_transfer(unsigned char *p, int peer, int tag, int comm, int64_t sent,
                                   int64_t recv)
{
    mw_raw_transfer *x = (mw_raw_transfer *)(void *)p;
    *x = (mw_raw_transfer){.peer = peer, .tag = tag, .comm = comm, .sent = sent, .recv = recv};
    return p + sizeof *x;
}

/* Every kind, in one chunk. */
static void every_kind(void)
{
    mw_trace_chunk *c = new_chunk();
    unsigned char *p = c->data;
    /* A call: its site's key has call-site bits above the address's 48. */
    p = mw_raw_put_call(p, MWT_CALL, 5, 0x0037000000001000ull, 1000, 1010);
    /* A transfer entered before the call above (a clock that stepped back),
     * left before it entered, and its bytes sent negative (none). */
    p = mw_raw_put_call(p, MWT_XFER, 200, 0x0ff0, 990, 995);
    p = put_transfer(p, -1, 7, -1, -3, 300);
    p = mw_raw_put_count(p, MWT_REQUEST, 129);
    mw_raw_head *root = (mw_raw_head *)(void *)p;
    *root = (mw_raw_head){MWT_ROOT, -2};
    p += sizeof *root;
    mw_raw_done *d = (mw_raw_done *)(void *)p;
    *d = (mw_raw_done){{MWT_DONE, 3}, -1, 0, 1, 128};
    p += sizeof *d;
    d = (mw_raw_done *)(void *)p;   /* a send's completion: no status */
    *d = (mw_raw_done){{MWT_DONE, -1}, -1, 0, 2, 0};
    p += sizeof *d;
    d = (mw_raw_done *)(void *)p;   /* a call's own receive */
    *d = (mw_raw_done){{MWT_DONE, 1}, 5, 0, 0, 8};
    p += sizeof *d;
    d = (mw_raw_done *)(void *)p;   /* the first request again: the third most recent */
    *d = (mw_raw_done){{MWT_DONE, -1}, -1, 0, 129, 0};
    p += sizeof *d;
    p = mw_raw_put_count(p, MWT_DROPPED, 2);
    p = mw_raw_put_call(p, MWT_POLLS, 5, 0x0ff0, 1200, 1300);
    *(uint64_t *)(void *)p = 1000;
    p += sizeof(uint64_t);
    /* Two transfers on MPICH's MPI_COMM_WORLD: its handle, then the same again. */
    p = mw_raw_put_call(p, MWT_XFER, 200, 0x0ff0, 1400, 1401);
    p = put_transfer(p, 2, 1, 0x44000000, 8, 0);
    p = mw_raw_put_call(p, MWT_XFER, 200, 0x0ff0, 1500, 1501);
    p = put_transfer(p, 2, 1, 0x44000000, 8, 0);
    mw_raw_mark *m = (mw_raw_mark *)(void *)p;   /* region 3 begins */
    *m = (mw_raw_mark){{MWT_MARK, 3}, MWT_MARK_BEGIN, 0, 1600};
    p += sizeof *m;
    m = (mw_raw_mark *)(void *)p;   /* MPI_Pcontrol(0), its time before the last (kept) */
    *m = (mw_raw_mark){{MWT_MARK, 0}, MWT_MARK_PCONTROL, 0, 1550};
    p += sizeof *m;
    c->used = (uint32_t)(p - c->data);
    static const unsigned char want[] = {
        1, 5, 0x80, 0x40, 0, 10,                         /* site 0x1000: zigzag 0x2000 */
        2, 0xc8, 0x01, 0x1f, 0, 0,                       /* site -16, enter 0, duration 0 */
        0x01, 0x0e, 0, 0, 0xac, 0x02,                    /* peer -1, tag 7, comm none, 0, 300 */
        4, 0x93, 0x02,                                   /* request 129: 17 + zigzag 129 */
        5, 0x03,                                         /* root -2 */
        6, 0x90, 0x02, 0x06, 0x01, 0x80, 0x01,           /* request 1 (17 + zigzag -128), source 3,
                                                          * tag -1, 128 */
        8, 0x13,                                         /* request 2 (17 + zigzag 1), bare */
        6, 0, 0x02, 0x0a, 0x08,                          /* request 0, source 1, tag 5, 8 */
        8, 0x03,                                         /* request 129: the third recent */
        3, 2,                                            /* 2 dropped */
        7, 5, 0, 0xc8, 0x01, 0x64, 0xe8, 0x07,           /* enter +200, 100, 1000 polls */
        2, 0xc8, 0x01, 0, 0xc8, 0x01, 1,                 /* enter +200, 1 */
        0x04, 0x02, 0x81, 0x80, 0x80, 0xc0, 0x08, 8, 0,  /* peer 2, tag 1, comm 1 + zigzag
                                                          * 0x44000000 (after 0) */
        2, 0xc8, 0x01, 0, 0x64, 1, 0x04, 0x02, 1, 8, 0,  /* enter +100, comm 1 + zigzag 0 */
        9, 0, 3, 0x64,                                   /* region 3 begins, +100 */
        9, 2, 0, 0,                                      /* MPI_Pcontrol(0), +0 */
    };
    check_coded(c, want, sizeof want, 1000, NULL, "every kind, as docs/trace.md encodes it");
    free(c);
}

/* A chunk's first time is its first call's entry, after a count of dropped
 * calls; its sites start again from 0. A chunk of a count alone has none. */
static void first_times(void)
{
    mw_trace_chunk *c = new_chunk();
    unsigned char *p = mw_raw_put_count(c->data, MWT_DROPPED, 1);
    p = mw_raw_put_call(p, MWT_CALL, 1, 0x10, 50, 49);
    c->used = (uint32_t)(p - c->data);
    static const unsigned char after_drop[] = {3, 1, 1, 1, 0x20, 0, 0};
    check_coded(c, after_drop, sizeof after_drop, 50, NULL,
                "the first time is the call's after a drop");
    c->used = (uint32_t)(mw_raw_put_count(c->data, MWT_DROPPED, 7) - c->data);
    static const unsigned char alone[] = {3, 7};
    check_coded(c, alone, sizeof alone, 0, NULL,
                "a chunk of dropped calls alone has first time 0");
    c->used = 0;
    check_coded(c, NULL, 0, 0, NULL, "an empty chunk encodes to nothing");
    free(c);
}

/* With the writer's numbering, a function is the number its file gave it. */
static void file_numbers(void)
{
    mw_trace_chunk *c = new_chunk();
    unsigned char *p = mw_raw_put_call(c->data, MWT_CALL, 300, 0x10, 50, 51);
    p = mw_raw_put_call(p, MWT_CALL, 2, 0x10, 60, 61);
    c->used = (uint32_t)(p - c->data);
    static uint16_t file_id[400];
    file_id[300] = 0;
    file_id[2] = 1;
    static const unsigned char want[] = {1, 0, 0x20, 0, 1, 1, 1, 0, 10, 1};
    check_coded(c, want, sizeof want, 50, file_id, "functions numbered as the file named them");
    free(c);
}

/* A chunk full of transfers with every field at its longest encodes within
 * the bound write_chunk's buffer has (which fails if a raw record shrinks
 * below half its encoding). */
static void longest(void)
{
    mw_trace_chunk *c = new_chunk();
    unsigned char *p = c->data;
    unsigned char *end = c->data + MW_TRACE_CHUNK_BYTES;
    size_t size = mw_raw_size(MWT_XFER);
    for (uint64_t i = 0; p + size <= end; i++) {
        /* Sites 2^48 - 1 apart, entries 2^50 apart, durations near 2^64. */
        p = mw_raw_put_call(p, MWT_XFER, 0x7fffffff, (i & 1) ? 0xffffffffffffull : 0, i << 50,
                            UINT64_MAX);
        p = put_transfer(p, -0x7fffffff - 1, 0x7fffffff, -0x7fffffff - 1, INT64_MAX, INT64_MAX);
    }
    c->used = (uint32_t)(p - c->data);
    static unsigned char out[MW_TRACE_CODED_BYTES];
    uint64_t first;
    size_t n = mw_trace_transcode(c, out, &first, NULL);
    ok(n <= MW_TRACE_CODED_BYTES, "a chunk of the longest transfers encodes within the bound");
    printf("# %u raw bytes, %zu encoded, bound %zu\n", c->used, n, (size_t)MW_TRACE_CODED_BYTES);
    free(c);
}

int main(void)
{
    every_kind();
    first_times();
    file_numbers();
    longest();
    printf("1..%d\n", tests);
    return failed != 0;
}
