/* The exact communication matrix a job wrote beside its report
 * (NAME.matrix; the format: docs/report-format.md, "The matrix file"). */
#ifndef MWC_MATRIX_FILE_H
#define MWC_MATRIX_FILE_H

#include <stdint.h>
#include <stdio.h>

/* A matrix file read whole and checked: rank r's pairs are entries
 * row_start(r) to row_start(r + 1) - 1, each with a receiver above the one
 * before it. */
typedef struct {
    unsigned char *data;    /* the file; free with mwc_matrix_file_free */
    uint64_t ranks;
    uint64_t pairs;
} mwc_matrix_file;

/* Read and check path into *m. 0, or 1 with a message on stderr naming the
 * file and what is wrong with it (then *m holds nothing to free). */
int mwc_matrix_file_load(const char *path, mwc_matrix_file *m);
void mwc_matrix_file_free(mwc_matrix_file *m);

/* The first entry of rank r's row (r = ranks: one past the last entry). */
uint64_t mwc_matrix_row_start(const mwc_matrix_file *m, uint64_t r);
/* Entry i: its receiver, bytes and messages. */
void mwc_matrix_entry(const mwc_matrix_file *m, uint64_t i, uint32_t *to, uint64_t *bytes,
                      uint64_t *messages);

/* Print every pair of the file as "FROM TO BYTES MESSAGES" lines (after a
 * header line), sorted by sender then receiver. 0, or 1 with a message on
 * stderr naming the file and what is wrong with it. */
int mwc_matrix_file_print(const char *path, FILE *out);

#endif
