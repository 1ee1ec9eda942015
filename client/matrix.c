#include "matrix.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

uint32_t mwc_matrix_ranks(const mwc_model *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].have_hello)
            return m->r[i].size; /* the model makes every HELLO agree */
    return 0;
}

int mwc_matrix_any(const mwc_model *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].have_pairs)
            return 1;
    return 0;
}

static int by_bytes(const void *a, const void *b)
{
    const mwc_mpair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->messages != y->messages)
        return x->messages < y->messages ? 1 : -1;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

static int by_pair(const void *a, const void *b)
{
    const mwc_mpair *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

size_t mwc_matrix_pairs(const mwc_model *m, size_t max, mwc_mpair **out, size_t *total)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].have_hello)
            n += m->r[i].npairs;
    mwc_mpair *v = mwc_malloc((n + 1) * sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        if (!r->have_hello)
            continue;
        for (uint32_t j = 0; j < r->npairs; j++)
            if (r->pairs[j].bytes || r->pairs[j].messages)
                v[k++] = (mwc_mpair){ r->rank, r->pairs[j].to, r->pairs[j].bytes,
                                      r->pairs[j].messages };
    }
    *total = k;
    if (k > max) {
        qsort(v, k, sizeof *v, by_bytes);
        k = max;
    }
    qsort(v, k, sizeof *v, by_pair);
    *out = v;
    return k;
}

uint32_t mwc_matrix_block(uint32_t ranks, uint32_t fit)
{
    if (fit < 1)
        fit = 1;
    uint32_t b = ranks / fit + (ranks % fit != 0);
    return b ? b : 1;
}

void mwc_matrix_blocks(const mwc_model *m, uint32_t ranks, uint32_t block, uint64_t *cells)
{
    uint32_t nb = ranks / block + (ranks % block != 0);
    memset(cells, 0, (size_t)nb * nb * sizeof *cells);
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        if (!r->have_hello || r->rank >= ranks)
            continue;
        uint64_t *row = cells + (size_t)(r->rank / block) * nb;
        for (uint32_t j = 0; j < r->npairs; j++) {
            if (r->pairs[j].to >= ranks)
                continue;
            uint64_t *c = &row[r->pairs[j].to / block];
            *c = *c + r->pairs[j].bytes < *c ? UINT64_MAX : *c + r->pairs[j].bytes;
        }
    }
}
