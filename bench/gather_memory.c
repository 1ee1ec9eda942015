/* gather_memory: what one gather to rank 0 costs rank 0 in resident memory,
 * by how it is made (docs/scaling.md "Per-rank figures"). Each rank sends
 * BYTES (default 900, about what mpiwatch's report gathers per rank) on a
 * duplicate of MPI_COMM_WORLD, warmed up by a barrier; rank 0 prints how much
 * its VmHWM and VmRSS rose over the gather.
 *   mpirun -np P ./gather_memory igather|gather|none [BYTES]
 * igather: MPI_Igather (Open MPI's libnbc: linear, rank 0 receives from
 * every rank); gather: MPI_Gather (Open MPI's tuned component: a binomial
 * tree for small messages); none: only the barriers, the baseline. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of KEY ("VmHWM:", "VmRSS:") in /proc/self/status, in kB; -1 unknown. */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, strlen(key)) == 0)
            sscanf(line + strlen(key), "%ld", &kb);
    if (f != NULL)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    int bytes = argc > 2 ? atoi(argv[2]) : 900;
    if ((strcmp(mode, "igather") && strcmp(mode, "gather") && strcmp(mode, "none")) || bytes < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: gather_memory igather|gather|none [BYTES > 0]\n");
        MPI_Finalize();
        return 2;
    }
    char *mine = malloc((size_t)bytes);
    char *all = rank == 0 ? malloc((size_t)bytes * (size_t)size) : NULL;
    memset(mine, rank & 0x7f, (size_t)bytes);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Barrier(comm);
    long hwm = status_kb("VmHWM:"), rss = status_kb("VmRSS:");
    if (strcmp(mode, "igather") == 0) {
        MPI_Request request;
        MPI_Igather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, comm, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "gather") == 0) {
        MPI_Gather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, comm);
    }
    MPI_Barrier(comm);
    if (rank == 0)
        printf("%s ranks=%d bytes=%d hwm_growth_kb=%ld rss_growth_kb=%ld\n", mode, size, bytes,
               status_kb("VmHWM:") - hwm, status_kb("VmRSS:") - rss);
    MPI_Comm_free(&comm);
    free(mine);
    free(all);
    MPI_Finalize();
    return 0;
}
