/* io.c: MPI-IO end-to-end test for mpiwatch.
 *
 * Usage: io [DIR]   (default: the current directory, which must be writable)
 *
 * All ranks open DIR/mpiwatch-io-test.dat and, in each of four regions of
 * the file, write their block and read back their left neighbour's: with
 * explicit offsets (write_at/read_at), nonblocking (iwrite_at/iread_at +
 * MPI_Wait), split collective (write_at_all_begin/_end, read_at_all_begin/
 * _end), and collectively through a per-rank file view (write_all/
 * read_all). Rank 0 deletes the file at the end. Rank 0 prints a deterministic summary; the exit
 * status is non-zero if any check failed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 32

enum phase { PH_WRITE_AT, PH_WRITE_ALL, PH_IWRITE_AT, PH_SPLIT, NPHASE };

static const char *const phase_name[NPHASE] = {
    "write_at_read_at", "write_all_read_all", "iwrite_at_iread_at", "split_collective"
};

static int value(int r, int phase, int i)
{
    return (r + 1) * 1019 + phase * 307 + i * 3;
}

/* Check what was read from the left neighbour's block of `phase`. */
static void check(const int *in, int left, int phase, unsigned long long *sum,
                  long long *errors)
{
    for (int i = 0; i < N; i++) {
        *sum += (unsigned long long)(i + 1) * (unsigned int)in[i];
        if (in[i] != value(left, phase, i))
            ++*errors;
    }
}

/* sync-barrier-sync makes the other ranks' writes visible. */
static void sync_all(MPI_File fh, MPI_Comm comm)
{
    MPI_File_sync(fh);
    MPI_Barrier(comm);
    MPI_File_sync(fh);
}

int main(int argc, char **argv)
{
    int rank, size;
    unsigned long long sums[NPHASE] = {0};
    long long errors = 0;
    MPI_Comm comm = MPI_COMM_WORLD;
    int out[N], in[N];
    char path[4096];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int left = (rank + size - 1) % size;
    const char *dir = argc > 1 ? argv[1] : ".";
    if (snprintf(path, sizeof path, "%s/mpiwatch-io-test.dat", dir) >= (int)sizeof path) {
        fprintf(stderr, "io: directory name too long\n");
        MPI_Abort(comm, 2);
    }

    MPI_File fh;
    MPI_File_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);

    /* Region 1, default (byte) view: independent explicit-offset I/O. */
    const MPI_Offset block = (MPI_Offset)sizeof out;
    for (int i = 0; i < N; i++) {
        out[i] = value(rank, PH_WRITE_AT, i);
        in[i] = -1;
    }
    MPI_File_write_at(fh, rank * block, out, N, MPI_INT, MPI_STATUS_IGNORE);
    sync_all(fh, comm);
    MPI_File_read_at(fh, left * block, in, N, MPI_INT, MPI_STATUS_IGNORE);
    check(in, left, PH_WRITE_AT, &sums[PH_WRITE_AT], &errors);

    /* Region 2, default view: nonblocking explicit-offset I/O. */
    const MPI_Offset region2 = size * block;
    MPI_Request req;
    for (int i = 0; i < N; i++) {
        out[i] = value(rank, PH_IWRITE_AT, i);
        in[i] = -1;
    }
    MPI_File_iwrite_at(fh, region2 + rank * block, out, N, MPI_INT, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    sync_all(fh, comm);
    MPI_File_iread_at(fh, region2 + left * block, in, N, MPI_INT, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(in, left, PH_IWRITE_AT, &sums[PH_IWRITE_AT], &errors);

    /* Region 3, default view: split collective explicit-offset I/O (bytes
     * are counted by the _begin calls only). */
    const MPI_Offset region3 = 2 * size * block;
    for (int i = 0; i < N; i++) {
        out[i] = value(rank, PH_SPLIT, i);
        in[i] = -1;
    }
    MPI_File_write_at_all_begin(fh, region3 + rank * block, out, N, MPI_INT);
    MPI_File_write_at_all_end(fh, out, MPI_STATUS_IGNORE);
    sync_all(fh, comm);
    MPI_File_read_at_all_begin(fh, region3 + left * block, in, N, MPI_INT);
    MPI_File_read_at_all_end(fh, in, MPI_STATUS_IGNORE);
    check(in, left, PH_SPLIT, &sums[PH_SPLIT], &errors);

    /* Region 4: collective I/O through a view starting at one's block. */
    const MPI_Offset region4 = 3 * size * block;
    for (int i = 0; i < N; i++) {
        out[i] = value(rank, PH_WRITE_ALL, i);
        in[i] = -1;
    }
    MPI_File_set_view(fh, region4 + rank * block, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, out, N, MPI_INT, MPI_STATUS_IGNORE);
    sync_all(fh, comm);
    MPI_File_set_view(fh, region4 + left * block, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_read_all(fh, in, N, MPI_INT, MPI_STATUS_IGNORE);
    check(in, left, PH_WRITE_ALL, &sums[PH_WRITE_ALL], &errors);

    MPI_Offset fsize = -1;
    MPI_File_get_size(fh, &fsize);
    if (fsize != 4 * size * block)
        errors++;
    MPI_File_close(&fh);

    /* Everyone has closed the file before rank 0 deletes it. */
    MPI_Barrier(comm);
    if (rank == 0) {
        MPI_File_delete(path, MPI_INFO_NULL);
        FILE *gone = fopen(path, "rb");
        if (gone != NULL) {
            fclose(gone);
            errors++;
        }
    }

    unsigned long long local[NPHASE + 1], total[NPHASE + 1];
    for (int p = 0; p < NPHASE; p++)
        local[p] = sums[p];
    local[NPHASE] = (unsigned long long)errors;
    MPI_Reduce(local, total, NPHASE + 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    int failed = 0;
    if (rank == 0) {
        printf("io np=%d\n", size);
        for (int p = 0; p < NPHASE; p++)
            printf("%-18s checksum %llu\n", phase_name[p], total[p]);
        printf("file_size %lld\n", (long long)fsize);
        printf("errors %llu\n", total[NPHASE]);
        fflush(stdout);
        failed = total[NPHASE] != 0;
    }
    MPI_Finalize();
    return failed;
}
