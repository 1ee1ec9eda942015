/* Binning the exact matrix into blocks for the page (matrix_blocks.h). */
#include "matrix_blocks.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "view_json.h"

/* Ranks per block: as few as keep the blocks to MWC_MATRIX_BLOCKS a side. */
static uint64_t block_of(uint64_t ranks)
{
    return (ranks + MWC_MATRIX_BLOCKS - 1) / MWC_MATRIX_BLOCKS;
}

typedef struct {
    uint64_t bytes, messages, pairs;
} block_sums;

/* The blocks qsort is ordering, busiest first (qsort passes no context). */
static const block_sums *sort_blocks;

static int by_bytes_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t bx = sort_blocks[x].bytes, by = sort_blocks[y].bytes;
    return bx != by ? (bx < by) - (bx > by) : (x > y) - (x < y);
}

int mwc_matrix_blocks_json(FILE *out, const mwc_matrix_file *m, const char *source)
{
    uint64_t block = block_of(m->ranks);
    uint64_t side = (m->ranks + block - 1) / block, cells = side * side;
    block_sums *sums = calloc(cells, sizeof *sums);
    uint32_t *order = malloc(cells * sizeof *order);
    unsigned char *listed = calloc(cells, 1);
    if (sums == NULL || order == NULL || listed == NULL) {
        free(sums);
        free(order);
        free(listed);
        return -1;
    }
    uint64_t total_bytes = 0, total_messages = 0;
    for (uint64_t r = 0; r < m->ranks; r++)
        for (uint64_t i = mwc_matrix_row_start(m, r); i < mwc_matrix_row_start(m, r + 1); i++) {
            uint32_t to;
            uint64_t bytes, messages;
            mwc_matrix_entry(m, i, &to, &bytes, &messages);
            block_sums *s = &sums[(r / block) * side + to / block];
            s->bytes += bytes;
            s->messages += messages;
            s->pairs++;
            total_bytes += bytes;
            total_messages += messages;
        }
    /* The pairs of the busiest blocks, whole blocks only, while they fit. */
    uint64_t room = MWC_MATRIX_LISTED, nlisted = 0;
    for (uint64_t k = 0; k < cells; k++)
        order[k] = (uint32_t)k;
    sort_blocks = sums;
    qsort(order, cells, sizeof *order, by_bytes_desc);
    for (uint64_t k = 0; k < cells && room > 0; k++) {
        block_sums *s = &sums[order[k]];
        if (s->pairs == 0 || s->pairs > room)
            continue;
        listed[order[k]] = 1;
        room -= s->pairs;
        nlisted += s->pairs;
    }
    fprintf(out, "\"exact_matrix\": {\"source\": ");
    mwc_json_string(out, source, strlen(source));
    fprintf(out, ", \"ranks\": %" PRIu64 ", \"block\": %" PRIu64 ", \"side\": %" PRIu64
            ", \"pairs\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"messages\": %" PRIu64
            ", \"listed_limit\": %d, \"listed\": %" PRIu64 ",\n \"cells\": [",
            m->ranks, block, side, m->pairs, total_bytes, total_messages, MWC_MATRIX_LISTED,
            nlisted);
    int first = 1;
    for (uint64_t k = 0; k < cells; k++) {
        if (sums[k].pairs == 0)
            continue;
        fprintf(out, "%s%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d",
                first ? "" : ",\n", k / side, k % side, sums[k].bytes, sums[k].messages,
                sums[k].pairs, listed[k]);
        first = 0;
    }
    fprintf(out, "],\n \"pairs_listed\": [");
    first = 1;
    for (uint64_t r = 0; r < m->ranks; r++)
        for (uint64_t i = mwc_matrix_row_start(m, r); i < mwc_matrix_row_start(m, r + 1); i++) {
            uint32_t to;
            uint64_t bytes, messages;
            mwc_matrix_entry(m, i, &to, &bytes, &messages);
            if (!listed[(r / block) * side + to / block])
                continue;
            fprintf(out, "%s%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",%" PRIu64, first ? "" : ",\n",
                    r, to, bytes, messages);
            first = 0;
        }
    fprintf(out, "]}");
    free(sums);
    free(order);
    free(listed);
    return 0;
}

void mwc_matrix_blocks_add(const char *json_path, char **text, size_t *len, int quiet)
{
    size_t n = strlen(json_path);
    if (n < 5 || strcmp(json_path + n - 5, ".json") != 0)
        return;
    char *path = malloc(n + 8);
    if (path == NULL)
        return;
    memcpy(path, json_path, n - 5);
    strcpy(path + n - 5, ".matrix");
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) {   /* none: the report's pairs, as the runtime's page */
        free(path);
        return;
    }
    mwc_matrix_file m;
    char *member = NULL, *joined = NULL;
    size_t member_len = 0;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    if (mwc_matrix_file_load(path, &m) != 0) {
        fprintf(stderr, "mpiwatch: the page draws the report's top pairs instead of %s\n", base);
        free(path);
        return;
    }
    FILE *mem = open_memstream(&member, &member_len);
    int failed = mem == NULL || mwc_matrix_blocks_json(mem, &m, base) != 0;
    if (mem != NULL && fclose(mem) != 0)
        failed = 1;
    /* The report is a checked object: its last '}' closes it. */
    size_t close = *len;
    while (close > 0 && (*text)[close - 1] != '}')
        close--;
    if (!failed && close > 0)
        joined = malloc(*len + member_len + 3);
    if (joined == NULL) {
        fprintf(stderr, "mpiwatch: no memory for the exact matrix of %s: the page draws the "
                        "report's top pairs\n", base);
    } else {
        size_t at = close - 1;
        memcpy(joined, *text, at);
        memcpy(joined + at, ",\n", 2);
        memcpy(joined + at + 2, member, member_len);
        memcpy(joined + at + 2 + member_len, *text + at, *len - at);
        *len += member_len + 2;
        joined[*len] = '\0';
        free(*text);
        *text = joined;
        if (!quiet) {
            unsigned long long block = block_of(m.ranks);
            fprintf(stderr, "mpiwatch: the page draws %s: %llu pairs of %llu ranks in blocks of "
                            "%llu rank%s\n", base, (unsigned long long)m.pairs,
                    (unsigned long long)m.ranks, block, block == 1 ? "" : "s");
        }
    }
    free(member);
    mwc_matrix_file_free(&m);
    free(path);
}
