/* The exact communication matrix, written in parallel beside the report
 * (docs/report-format.md, "The matrix file"): every rank writes its own row,
 * at offsets from an exclusive scan of the rows' sizes (MPI_Exscan on the
 * private communicator), with pwrite into the one file rank 0 created. Rank
 * 0 only names the file; no row passes through it. Not MPI-IO: opening a
 * file with Open MPI's loaded its I/O components, 311 ms of MPI_Finalize at
 * 8 ranks (measured). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/state.h"
#include "core/thread_stats.h"
#include "core/warn.h"
#include "core/yielding_collectives.h"
#include "report/matrix_file.h"
#include "report/report.h"

#define HEAD 16     /* magic (8 bytes) and the rank count (8) */
#define ENTRY 20    /* destination (4 bytes), bytes (8), messages (8) */

/* This rank's row: its destinations with messages, ENTRY bytes each. */
static unsigned char *own_row(uint64_t *count)
{
    int n = mw_state.world_size;
    uint64_t *bytes = calloc(2 * (size_t)n, sizeof *bytes);
    unsigned char *row = bytes ? malloc((size_t)n * ENTRY + 1) : NULL;
    *count = 0;
    if (row != NULL) {
        mw_pairs_merge(bytes, bytes + n, n);
        for (int d = 0; d < n; d++) {
            if (bytes[n + d] == 0)
                continue;
            unsigned char *e = row + *count * ENTRY;
            uint32_t to = (uint32_t)d;
            memcpy(e, &to, 4);
            memcpy(e + 4, &bytes[d], 8);
            memcpy(e + 12, &bytes[n + d], 8);
            ++*count;
        }
    }
    free(bytes);
    return row;
}

int mw_matrix_file_write(const char *path, int any_pairs, MPI_Comm comm)
{
    char name[MW_MATRIX_PATH_MAX] = "";
    int root = mw_state.world_rank == 0, n = mw_state.world_size, rc, fd = -1;
    int wrote = 0, all_wrote = 0;
    uint64_t count = 0, start = 0;

    /* Rank 0 creates the file (never over an existing one) and names it to
     * the others, or names none. */
    if (root && any_pairs && path != NULL && path[0] != '\0') {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0)
            snprintf(name, sizeof name, "%s", path);
        else
            mw_warn("cannot create the communication matrix %s (%s); the report keeps its top "
                    "pairs", path, strerror(errno));
    }
    if ((rc = mw_bcast(name, (int)sizeof name, MPI_CHAR, comm)) != MPI_SUCCESS) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    if (name[0] == '\0')
        return MPI_SUCCESS;
    unsigned char *row = own_row(&count);
    uint64_t mine = row != NULL ? count : 0;
    if ((rc = mw_exscan(&mine, &start, 1, MPI_UINT64_T, MPI_SUM, comm)) != MPI_SUCCESS) {
        free(row);
        if (fd >= 0)
            close(fd);
        return rc;
    }
    if (root)
        start = 0;   /* MPI_Exscan leaves rank 0's undefined */
    if (!root)
        fd = open(name, O_WRONLY | O_CLOEXEC);
    if (fd >= 0 && row != NULL) {
        unsigned char head[HEAD] = "MWMATRX1";
        uint64_t ranks = (uint64_t)n, index[2] = {start, start + mine};
        memcpy(head + 8, &ranks, 8);
        off_t at_index = HEAD + (off_t)mw_state.world_rank * 8;
        off_t at_row = HEAD + (off_t)(n + 1) * 8 + (off_t)start * ENTRY;
        wrote = (!root || mw_write_at(fd, head, HEAD, 0)) &&
                mw_write_at(fd, index, mw_state.world_rank == n - 1 ? 16 : 8, at_index) &&
                mw_write_at(fd, row, (size_t)mine * ENTRY, at_row);
    }
    if (fd >= 0 && close(fd) != 0)
        wrote = 0;
    free(row);
    if ((rc = mw_allreduce(&wrote, &all_wrote, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS)
        return rc;
    if (!all_wrote && root) {
        unlink(name);
        mw_warn("cannot write the communication matrix %s on every rank; the report keeps its "
                "top pairs", name);
    }
    return all_wrote ? MPI_SUCCESS : MPI_ERR_FILE;
}

void mw_report_matrix_file(mw_job_summary *job, MPI_Comm comm)
{
    char path[MW_MATRIX_PATH_MAX] = "";
    if (mw_state.world_rank == 0 && mw_state.config.formats != 0) {
        mw_report_name(job->name, sizeof job->name, job->program, (long long)time(NULL));
        snprintf(path, sizeof path, "%.4096s/%.500s.matrix", mw_state.config.outdir, job->name);
    }
    int any = mw_state.world_rank == 0 && job->npairs > 0;
    job->matrix_file = mw_matrix_file_write(path, any, comm) == MPI_SUCCESS && any;
}
