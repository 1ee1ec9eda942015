/* The exact communication matrix as a file beside the report
 * (report/matrix_file.c; its format: docs/report-format.md). */
#ifndef MW_REPORT_MATRIX_FILE_H
#define MW_REPORT_MATRIX_FILE_H

#include <mpi.h>

#include "core/compiler.h"

#define MW_MATRIX_PATH_MAX 4608

/* Collective over comm: write every rank's row of bytes and messages per
 * destination into path (rank 0's; ignored elsewhere), never over an
 * existing file. Nothing is written when rank 0's any_pairs is 0 (no rank
 * sent a message). MPI_SUCCESS when written or nothing to write;
 * MPI_ERR_FILE (warned on rank 0, the file removed) when it could not be.
 * Every rank must see the folder (a shared file system across nodes). */
MW_HIDDEN int mw_matrix_file_write(const char *path, int any_pairs, MPI_Comm comm);

#endif
