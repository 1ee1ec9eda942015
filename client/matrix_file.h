/* The exact communication matrix a job wrote beside its report
 * (NAME.matrix; the format: docs/report-format.md, "The matrix file"). */
#ifndef MWC_MATRIX_FILE_H
#define MWC_MATRIX_FILE_H

#include <stdio.h>

/* Print every pair of the file as "FROM TO BYTES MESSAGES" lines (after a
 * header line), sorted by sender then receiver. 0, or 1 with a message on
 * stderr naming the file and what is wrong with it. */
int mwc_matrix_file_print(const char *path, FILE *out);

#endif
