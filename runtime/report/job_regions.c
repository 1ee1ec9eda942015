/* Regions in the report: each rank sends its few region records to rank 0,
 * which merges them by name (ranks may register names in any order). */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/yielding_collectives.h"
#include "core/user_regions.h"
#include "report/report.h"
#include "core/state.h"

typedef struct record {
    char name[MW_REGION_NAME];
    double wall, mpi;
    uint64_t entries, calls;
} record;

static int local_records(record *out)
{
    static mw_region_stats stats[MW_MAX_REGIONS];
    int n = mw_region_count(), used = 0;
    mw_regions_merge(stats);
    for (int i = 0; i < n; i++) {
        if (stats[i].entries == 0)
            continue;
        record *r = &out[used++];
        memset(r, 0, sizeof *r);
        strncpy(r->name, mw_region_name(i), sizeof r->name - 1);
        r->wall = mw_clock_seconds(stats[i].wall_ticks);
        r->mpi = mw_clock_seconds(stats[i].mpi_ticks);
        r->entries = stats[i].entries;
        r->calls = stats[i].calls;
    }
    return used;
}

static void merge(mw_job_summary *job, const record *r)
{
    mw_region_summary one = {.ranks = 1, .entries = r->entries, .calls = r->calls,
                             .wall_sum = r->wall, .wall_max = r->wall, .mpi_sum = r->mpi,
                             .mpi_max = r->mpi};
    memcpy(one.name, r->name, sizeof one.name);
    mw_region_add(job->regions, &job->nregions, &one);
}

int mw_report_regions(mw_job_summary *job, MPI_Comm comm)
{
    static record mine[MW_MAX_REGIONS];
    int n = local_records(mine), size = mw_state.world_size;
    int *counts = NULL, *displs = NULL, rc;
    record *all = NULL;

    if (job != NULL) {
        counts = calloc((size_t)size, sizeof *counts);
        displs = calloc((size_t)size, sizeof *displs);
    }
    rc = mw_gather(&n, 1, MPI_INT, counts, comm);
    int total = 0;
    for (int r = 0; job != NULL && rc == MPI_SUCCESS && counts && displs && r < size; r++) {
        displs[r] = total * (int)sizeof(record);
        total += counts[r];
        counts[r] *= (int)sizeof(record);
    }
    if (job != NULL)
        all = malloc((size_t)(total ? total : 1) * sizeof *all);
    if (rc == MPI_SUCCESS)
        rc = mw_gatherv(mine, n * (int)sizeof(record), MPI_BYTE, all, counts, displs, comm);
    if (job != NULL && rc == MPI_SUCCESS && all != NULL) {
        job->regions = calloc((size_t)(total ? total : 1), sizeof *job->regions);
        for (int i = 0; job->regions != NULL && i < total; i++)
            merge(job, &all[i]);
    }
    free(all);
    free(counts);
    free(displs);
    return rc;
}

void mw_report_regions_local(mw_job_summary *job)
{
    static record mine[MW_MAX_REGIONS];
    int n = local_records(mine);
    job->regions = calloc((size_t)(n ? n : 1), sizeof *job->regions);
    for (int i = 0; job->regions != NULL && i < n; i++)
        merge(job, &mine[i]);
}
