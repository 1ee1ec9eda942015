/* The named counters over the job: every rank sends its (at most
 * MW_MAX_COUNTERS) counters to rank 0, which sums them by name and keeps the
 * ranks of the least and the most. Nothing is gathered when no rank counted. */
#include <stdlib.h>
#include <string.h>

#include "core/yielding_collectives.h"
#include "core/hook_counters.h"
#include "core/state.h"
#include "report/report.h"

typedef struct record {
    char name[MW_COUNTER_NAME];
    int64_t value;
} record;

int mw_report_counters(mw_job_summary *job, MPI_Comm comm)
{
    static char names[MW_MAX_COUNTERS][MW_COUNTER_NAME];
    static int64_t values[MW_MAX_COUNTERS];
    static record mine[MW_MAX_COUNTERS];
    int n = mw_counters_read(names, values, MW_MAX_COUNTERS), most = 0, rc;
    int world = mw_state.world_size, per = MW_MAX_COUNTERS * (int)sizeof(record);
    if ((rc = mw_allreduce(&n, &most, 1, MPI_INT, MPI_MAX, comm)) || most == 0)
        return rc;
    memset(mine, 0, sizeof mine);
    for (int i = 0; i < n; i++) {
        memcpy(mine[i].name, names[i], MW_COUNTER_NAME);
        mine[i].value = values[i];
    }
    record *all = job ? malloc((size_t)world * sizeof mine) : NULL;
    if (job && all == NULL)
        return MPI_ERR_NO_MEM;
    rc = mw_gather(mine, per, MPI_BYTE, all, comm);
    if (job && rc == MPI_SUCCESS) {
        job->counters = calloc((size_t)world * MW_MAX_COUNTERS, sizeof *job->counters);
        for (int r = 0; job->counters != NULL && r < world; r++)
            for (int i = 0; i < MW_MAX_COUNTERS && all[r * MW_MAX_COUNTERS + i].name[0]; i++) {
                const record *c = &all[r * MW_MAX_COUNTERS + i];
                int k = 0;
                while (k < job->ncounters && strcmp(job->counters[k].name, c->name) != 0)
                    k++;
                mw_counter_summary *s = &job->counters[k];
                if (k == job->ncounters) {
                    job->ncounters++;
                    memcpy(s->name, c->name, sizeof s->name);
                    s->min = s->max = c->value;
                    s->min_rank = s->max_rank = r;
                }
                s->sum += c->value;
                s->ranks++;
                if (c->value < s->min) {
                    s->min = c->value;
                    s->min_rank = r;
                }
                if (c->value > s->max) {
                    s->max = c->value;
                    s->max_rank = r;
                }
            }
    }
    free(all);
    return rc;
}
