/* --record / --replay files: a round trip gives back every chunk, slot,
 * kind and header field; every truncation and corruption is an error with
 * its offset, never a crash. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "record.h"

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p = malloc(1 << 20);
    *n = fread(p, 1, 1 << 20, f);
    fclose(f);
    return p;
}

/* Read a whole recording from memory: number of records, or -1 (err). */
static int read_all(const unsigned char *p, size_t n, char *err, size_t errlen)
{
    FILE *f = fmemopen((void *)p, n, "rb");
    mwc_replay r;
    int count = 0, rc = mwc_replay_open(&r, f, "mem");
    mwc_rec rec;
    if (rc == 0)
        while ((rc = mwc_replay_next(&r, &rec)) == 1)
            count++;
    if (rc < 0)
        snprintf(err, errlen, "%s", r.error);
    mwc_replay_close(&r);
    fclose(f);
    return rc < 0 ? -1 : count;
}

int main(void)
{
    char path[] = "/tmp/mwc-record-XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    int ranks[3] = { 0, -1, 2 };
    char *descs[3] = { "tcp://a:1", "tcp://[::1]:2", "mpi:port name" };
    mwc_recorder w;
    CHECK(mwc_record_open(&w, path, 3, ranks, descs) == 0, "open");
    mwc_record(&w, MWC_REC_DATA, 0, "hello", 5);
    mwc_record(&w, MWC_REC_DATA, 2, "", 0);
    mwc_record(&w, MWC_REC_CLOSED, 1, "the rank closed", 15);
    unsigned char big[70000];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (unsigned char)(i * 7);
    mwc_record(&w, MWC_REC_DATA, 1, big, sizeof big);
    CHECK(mwc_record_close(&w) == 0, "close");

    FILE *f = fopen(path, "rb");
    mwc_replay r;
    CHECK(mwc_replay_open(&r, f, path) == 0, "%s", r.error);
    CHECK(r.slots == 3 && r.ranks[0] == 0 && r.ranks[1] == -1 && r.ranks[2] == 2, "header ranks");
    CHECK(strcmp(r.descs[1], "tcp://[::1]:2") == 0 && strcmp(r.descs[2], "mpi:port name") == 0,
          "header descs");
    mwc_rec rec;
    CHECK(mwc_replay_next(&r, &rec) == 1 && rec.kind == MWC_REC_DATA && rec.slot == 0 &&
              rec.len == 5 && memcmp(rec.data, "hello", 5) == 0, "record 1");
    CHECK(mwc_replay_next(&r, &rec) == 1 && rec.slot == 2 && rec.len == 0, "record 2");
    uint64_t t2 = rec.t;
    CHECK(mwc_replay_next(&r, &rec) == 1 && rec.kind == MWC_REC_CLOSED && rec.slot == 1 &&
              rec.len == 15 && memcmp(rec.data, "the rank closed", 15) == 0 && rec.t >= t2,
          "record 3");
    CHECK(mwc_replay_next(&r, &rec) == 1 && rec.len == sizeof big &&
              memcmp(rec.data, big, sizeof big) == 0, "record 4");
    CHECK(mwc_replay_next(&r, &rec) == 0, "no clean end");
    mwc_replay_close(&r);
    fclose(f);

    /* Every truncation of the file: the header's are errors, a cut between
     * records is a clean end, a cut inside a record an error. */
    size_t n;
    unsigned char *p = slurp(path, &n);
    char err[300];
    size_t header = 16 + 8 + (6 + 9) + (6 + 13) + (6 + 13);
    size_t ends[] = { header, header + 17 + 5, header + 17 + 5 + 17, header + 17 + 5 + 17 + 17 + 15, n };
    int bad = 0;
    for (size_t cut = 0; cut <= n; cut += cut < header + 200 ? 1 : 997) {
        int clean = 0;
        for (size_t i = 0; i < 5; i++)
            clean |= cut == ends[i];
        int rc = read_all(p, cut, err, sizeof err);
        if (clean ? rc < 0 : rc >= 0) {
            bad++;
            fprintf(stderr, "cut %zu: rc %d %s\n", cut, rc, rc < 0 ? err : "");
        }
    }
    CHECK(bad == 0, "%d truncations misjudged", bad);
    CHECK(read_all(p, n, err, sizeof err) == 4, "whole file");
    CHECK(read_all(p, header + 17 + 2, err, sizeof err) == -1 &&
              strstr(err, "mem: byte 77: the recording ends in the middle of a 5-byte record"), "%s", err);

    /* Corruptions, each with its message. */
    struct { size_t at; unsigned char v; const char *want; } cases[] = {
        { 0, 'X', "not an mpiwatch recording" },
        { 16, 2, "recording format version 2" },
        { 20, 0, "0 ranks in the header" },
        { 23, 0xFF, "ranks in the header" },
        { 24 + 3, 0x80, "endpoint 0 has rank" },
        { header, 9, "unknown record kind 9" },
        { header + 1, 3, "record for rank slot 3; the header lists 3" },
        { header + 16, 0x10, "record of 268435461 bytes" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char *q = malloc(n);
        memcpy(q, p, n);
        q[cases[i].at] = cases[i].v;
        int rc = read_all(q, n, err, sizeof err);
        CHECK(rc == -1 && strstr(err, cases[i].want), "case %zu: rc %d \"%s\"", i, rc, err);
        free(q);
    }
    free(p);
    if (!mwt_failures) unlink(path); else fprintf(stderr, "kept %s\n", path);
    return CHECK_DONE("test_record");
}
