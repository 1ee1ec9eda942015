/* Reading a matrix file (client/matrix_file.h): checked whole before it
 * is used, so that a damaged file gives one clear message. */
#include "matrix_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEAD 16     /* "MWMATRX1" and the rank count */
#define ENTRY 20    /* destination (4 bytes), bytes (8), messages (8) */

static int bad(const char *path, const char *what)
{
    fprintf(stderr, "mpiwatch: %s: %s\n", path, what);
    return 1;
}

/* The whole file in memory (*size bytes; free it), or NULL with errno. */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *in = fopen(path, "rb");
    unsigned char *data = NULL;
    size_t cap = 0;
    *size = 0;
    if (in == NULL)
        return NULL;
    for (;;) {
        if (*size == cap) {
            unsigned char *bigger = realloc(data, cap ? 2 * cap : 65536);
            if (bigger == NULL) {
                free(data);
                fclose(in);
                errno = ENOMEM;
                return NULL;
            }
            data = bigger;
            cap = cap ? 2 * cap : 65536;
        }
        size_t got = fread(data + *size, 1, cap - *size, in);
        *size += got;
        if (got == 0)
            break;
    }
    int failed = ferror(in);
    fclose(in);
    if (failed) {
        free(data);
        errno = EIO;
        return NULL;
    }
    return data;
}

static uint64_t u64_at(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static size_t rows_offset(uint64_t ranks)
{
    return HEAD + (size_t)(ranks + 1) * 8;
}

uint64_t mwc_matrix_row_start(const mwc_matrix_file *m, uint64_t r)
{
    return u64_at(m->data + HEAD + r * 8);
}

void mwc_matrix_entry(const mwc_matrix_file *m, uint64_t i, uint32_t *to, uint64_t *bytes,
                      uint64_t *messages)
{
    const unsigned char *e = m->data + rows_offset(m->ranks) + i * ENTRY;
    memcpy(to, e, 4);
    *bytes = u64_at(e + 4);
    *messages = u64_at(e + 12);
}

void mwc_matrix_file_free(mwc_matrix_file *m)
{
    free(m->data);
    m->data = NULL;
}

int mwc_matrix_file_load(const char *path, mwc_matrix_file *m)
{
    size_t size;
    char msg[256];
    unsigned char *data = slurp(path, &size);
    m->data = NULL;
    if (data == NULL) {
        snprintf(msg, sizeof msg, "cannot read it (%s)", strerror(errno));
        return bad(path, msg);
    }
    uint64_t ranks = size >= HEAD ? u64_at(data + 8) : 0;
    if (size < HEAD || memcmp(data, "MWMATRX1", 8) != 0) {
        bad(path, "not an mpiwatch matrix file (it does not start with MWMATRX1)");
        goto bad;
    }
    if (ranks == 0 || ranks > UINT32_MAX || (size - HEAD) / 8 < ranks + 1) {
        snprintf(msg, sizeof msg, "%zu bytes cannot hold the index of %" PRIu64 " ranks", size,
                 ranks);
        bad(path, msg);
        goto bad;
    }
    const unsigned char *index = data + HEAD;
    size_t rows_at = rows_offset(ranks);
    uint64_t entries = u64_at(index + ranks * 8);
    if (u64_at(index) != 0 || entries > (size - rows_at) / ENTRY) {
        snprintf(msg, sizeof msg, "the index says %" PRIu64 " pairs from %" PRIu64
                 ", but the file has room for %zu", entries, u64_at(index), (size - rows_at) / ENTRY);
        bad(path, msg);
        goto bad;
    }
    for (uint64_t r = 0; r < ranks; r++) {
        uint64_t first = u64_at(index + r * 8), end = u64_at(index + (r + 1) * 8);
        if (end < first || end > entries) {
            snprintf(msg, sizeof msg, "rank %" PRIu64 "'s row ends at pair %" PRIu64
                     ", before it starts (%" PRIu64 ") or past the last (%" PRIu64 ")", r, end,
                     first, entries);
            bad(path, msg);
            goto bad;
        }
        uint32_t previous = 0;
        for (uint64_t i = first; i < end; i++) {
            uint32_t to;
            memcpy(&to, data + rows_at + i * ENTRY, 4);
            if (to >= ranks || (i > first && to <= previous)) {
                snprintf(msg, sizeof msg, "rank %" PRIu64 "'s pair %" PRIu64 " goes to rank %"
                         PRIu32 ": not one of the %" PRIu64 " ranks, or not after the pair "
                         "before it", r, i - first, to, ranks);
                bad(path, msg);
                goto bad;
            }
            previous = to;
        }
    }
    m->data = data;
    m->ranks = ranks;
    m->pairs = entries;
    return 0;
bad:
    free(data);
    return 1;
}

int mwc_matrix_file_print(const char *path, FILE *out)
{
    mwc_matrix_file m;
    if (mwc_matrix_file_load(path, &m) != 0)
        return 1;
    fprintf(out, "from to bytes messages\n");
    for (uint64_t r = 0; r < m.ranks; r++)
        for (uint64_t i = mwc_matrix_row_start(&m, r); i < mwc_matrix_row_start(&m, r + 1); i++) {
            uint32_t to;
            uint64_t bytes, messages;
            mwc_matrix_entry(&m, i, &to, &bytes, &messages);
            fprintf(out, "%" PRIu64 " %" PRIu32 " %" PRIu64 " %" PRIu64 "\n", r, to, bytes,
                    messages);
        }
    int rc = fflush(out) != 0 || ferror(out);
    if (rc)
        bad("standard output", "cannot write the pairs");
    mwc_matrix_file_free(&m);
    return rc;
}
