/* The exact matrix (matrix_file.h) binned for the HTML report: at most
 * MWC_MATRIX_BLOCKS x MWC_MATRIX_BLOCKS blocks (the viewer's own limit) of consecutive ranks, each
 * with the sums of its pairs, and the pairs themselves of the busiest
 * blocks, up to MWC_MATRIX_LISTED pairs, for the page's drill-down. The
 * member's keys: docs/report-format.md, "The HTML report". */
#ifndef MWC_MATRIX_BLOCKS_H
#define MWC_MATRIX_BLOCKS_H

#include <stdio.h>

#include "matrix_file.h"
#include "mpiwatch_viewer.h"

#define MWC_MATRIX_BLOCKS MW_VIEWER_MATRIX_BLOCKS   /* rows and columns of blocks at most */
#define MWC_MATRIX_LISTED 65536  /* pairs listed in the page at most: every pair up to 256 ranks */

/* Write `"exact_matrix": {...}` (a JSON object member, no comma around it)
 * for m, read from the file named source. 0, or -1 when out of memory. */
int mwc_matrix_blocks_json(FILE *out, const mwc_matrix_file *m, const char *source);

/* The report text[0..*len) (a checked JSON object read from json_path) with
 * the member above added when NAME.matrix lies beside NAME.json: *text is
 * then replaced by a new allocation (the old one freed). Without a matrix
 * file nothing changes; a damaged one, or no memory, is said on stderr and
 * the page draws the report's top pairs instead. */
void mwc_matrix_blocks_add(const char *json_path, char **text, size_t *len, int quiet);

#endif
