/* The communication matrix: bytes (and messages) each rank has sent to each
 * other rank so far, from every rank's last PAIRS row in the model. For the
 * JSON view, the nonzero pairs (bounded); for the terminal, the matrix with
 * ranks aggregated into blocks when there are more than fit. */
#ifndef MWC_MATRIX_H
#define MWC_MATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

typedef struct {
    uint32_t from, to;
    uint64_t bytes, messages;
} mwc_mpair;

/* The job's size (HELLO's), 0 before any HELLO. */
uint32_t mwc_matrix_ranks(const mwc_model *m);

/* Nonzero when some rank has sent a PAIRS frame. */
int mwc_matrix_any(const mwc_model *m);

/* The pairs with bytes or messages, sorted by from then to, in *out
 * (malloc'd; free it). When there are more than max, the max with the most
 * bytes are kept. Returns how many are in *out; *total says how many there
 * were. */
size_t mwc_matrix_pairs(const mwc_model *m, size_t max, mwc_mpair **out, size_t *total);

/* The smallest block of ranks such that ranks / block, rounded up, is at
 * most fit (fit >= 1): 1 when every rank fits. */
uint32_t mwc_matrix_block(uint32_t ranks, uint32_t fit);

/* Bytes from each block of `block` ranks to each block: cells[i * nb + j]
 * from block i to block j, nb = ranks / block rounded up (cells holds nb *
 * nb). Sums saturate instead of wrapping. */
void mwc_matrix_blocks(const mwc_model *m, uint32_t ranks, uint32_t block, uint64_t *cells);

#endif
