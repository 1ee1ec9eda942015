#include "record.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void put(mwc_recorder *w, const void *p, size_t n)
{
    if (!w->failed && fwrite(p, 1, n, w->f) != n) {
        fprintf(stderr, "mpiwatch: --record: write failed (%s); recording stops\n",
                strerror(errno));
        w->failed = 1;
    }
}

static void put_le(mwc_recorder *w, uint64_t v, int bytes)
{
    unsigned char b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(w, b, (size_t)bytes);
}

int mwc_record_open(mwc_recorder *w, const char *path, uint32_t slots, const int *ranks,
                    char *const *descs)
{
    memset(w, 0, sizeof *w);
    w->f = fopen(path, "wb");
    if (!w->f) {
        fprintf(stderr, "mpiwatch: --record %s: %s\n", path, strerror(errno));
        return -1;
    }
    w->t0 = mwc_now();
    put(w, MWC_RECORD_MAGIC, 16);
    put_le(w, 1, 4);
    put_le(w, slots, 4);
    for (uint32_t i = 0; i < slots; i++) {
        size_t n = strlen(descs[i]);
        if (n > 65535)
            n = 65535;
        put_le(w, (uint32_t)ranks[i], 4);
        put_le(w, n, 2);
        put(w, descs[i], n);
    }
    return w->failed ? -1 : 0;
}

void mwc_record(mwc_recorder *w, int kind, uint32_t slot, const void *data, size_t n)
{
    if (!w->f)
        return;
    double t = mwc_now() - w->t0;
    /* Chunks longer than a record may hold (never in practice) are split. */
    do {
        size_t k = n > MWC_REC_MAX ? MWC_REC_MAX : n;
        put_le(w, (uint64_t)kind, 1);
        put_le(w, slot, 4);
        put_le(w, (uint64_t)(t * 1e9), 8);
        put_le(w, k, 4);
        put(w, data, k);
        data = (const char *)data + k;
        n -= k;
    } while (n > 0);
}

void mwc_record_flush(mwc_recorder *w)
{
    if (w->f && !w->failed && fflush(w->f) != 0) {
        fprintf(stderr, "mpiwatch: --record: write failed (%s); recording stops\n",
                strerror(errno));
        w->failed = 1;
    }
}

int mwc_record_close(mwc_recorder *w)
{
    if (!w->f)
        return 0;
    mwc_record_flush(w);
    int rc = fclose(w->f) != 0 || w->failed ? -1 : 0;
    w->f = NULL;
    return rc;
}

static int bad(mwc_replay *r, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->error, sizeof r->error, "%s: byte %llu: %s", r->name,
             (unsigned long long)r->offset, what);
    return -1;
}

/* Read exactly n bytes: 1 done, 0 clean EOF before the first byte, -1 short. */
static int get(mwc_replay *r, void *p, size_t n)
{
    size_t k = fread(p, 1, n, r->f);
    r->offset += k;
    if (k == n)
        return 1;
    return k == 0 && !ferror(r->f) ? 0 : -1;
}

int mwc_replay_open(mwc_replay *r, FILE *f, const char *name)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->name = name;
    unsigned char h[24];
    if (get(r, h, 24) != 1 || memcmp(h, MWC_RECORD_MAGIC, 16) != 0)
        return bad(r, "not an mpiwatch recording (no %.15s header)", MWC_RECORD_MAGIC);
    if (mwc_le32(h + 16) != 1)
        return bad(r, "recording format version %u; this client reads version 1",
                   (unsigned)mwc_le32(h + 16));
    uint32_t slots = mwc_le32(h + 20);
    if (slots == 0 || slots > MWC_REC_SLOTS_MAX)
        return bad(r, "%u ranks in the header", (unsigned)slots);
    /* r->slots counts the slots filled so far (what close frees). Arrays
     * grow slot by slot, so a lying count cannot make us allocate much
     * before the file runs out. */
    size_t cap = 0;
    for (uint32_t i = 0; i < slots; i++) {
        unsigned char s[6];
        if (get(r, s, 6) != 1)
            return bad(r, "the header ends in the middle of rank %u's endpoint", (unsigned)i);
        if (i == cap) {
            cap = cap ? 2 * cap : 16;
            r->ranks = mwc_realloc(r->ranks, cap * sizeof *r->ranks);
            r->descs = mwc_realloc(r->descs, cap * sizeof *r->descs);
        }
        r->ranks[i] = (int32_t)mwc_le32(s);
        uint16_t n = mwc_le16(s + 4);
        r->descs[i] = mwc_malloc((size_t)n + 1);
        r->descs[i][n] = '\0';
        r->slots = i + 1;
        if (get(r, r->descs[i], n) != 1)
            return bad(r, "the header ends in the middle of rank %u's endpoint", (unsigned)i);
        if (r->ranks[i] < -1)
            return bad(r, "endpoint %u has rank %d", (unsigned)i, r->ranks[i]);
    }
    return 0;
}

int mwc_replay_next(mwc_replay *r, mwc_rec *rec)
{
    unsigned char h[17];
    uint64_t at = r->offset;
    int got = get(r, h, 17);
    if (got == 0)
        return 0;
    if (got < 0) {
        r->offset = at;
        return bad(r, "the recording ends in the middle of a record header");
    }
    rec->kind = h[0];
    rec->slot = mwc_le32(h + 1);
    rec->t = mwc_le64(h + 5);
    rec->len = mwc_le32(h + 13);
    r->offset = at;
    if (rec->kind != MWC_REC_DATA && rec->kind != MWC_REC_CLOSED)
        return bad(r, "unknown record kind %d", rec->kind);
    if (rec->slot >= r->slots)
        return bad(r, "record for rank slot %u; the header lists %u", (unsigned)rec->slot,
                   (unsigned)r->slots);
    if (rec->len > MWC_REC_MAX)
        return bad(r, "record of %u bytes (at most %u)", (unsigned)rec->len, MWC_REC_MAX);
    r->offset = at + 17;
    /* Grow in steps so a short file with a big length field costs little. */
    size_t have = 0;
    while (have < rec->len) {
        size_t want = rec->len - have > 65536 ? 65536 : rec->len - have;
        if (r->cap < have + want) {
            r->cap = have + want;
            r->buf = mwc_realloc(r->buf, r->cap);
        }
        if (get(r, r->buf + have, want) != 1) {
            r->offset = at;
            return bad(r, "the recording ends in the middle of a %u-byte record",
                       (unsigned)rec->len);
        }
        have += want;
    }
    rec->data = r->buf;
    return 1;
}

void mwc_replay_close(mwc_replay *r)
{
    for (uint32_t i = 0; i < r->slots; i++)
        free(r->descs[i]);
    free(r->descs);
    free(r->ranks);
    free(r->buf);
    memset(r, 0, sizeof *r);
}
