/* Call sites and regions over the ranks of a merged report
 * (client/merge_tables.h). A site is the same on two ranks when its MPI
 * function, module, offset in the module and callers above are: the key
 * MPI_Finalize's merge uses (runtime/report/callsites.c), by the module's
 * path, as the partial file names it, instead of its hash. */
#include "merge_tables.h"

#include <stdlib.h>
#include <string.h>

#include "report/variation.h"
#include "util.h"

static int same_site(const mw_site_summary *x, const mw_site_summary *y)
{
    if (x->all.fn != y->all.fn || x->all.offset != y->all.offset ||
        x->all.depth != y->all.depth || strcmp(x->module, y->module) != 0)
        return 0;
    for (int d = 0; d < x->all.depth - 1; d++)
        if (strcmp(x->up[d].function, y->up[d].function) != 0 ||
            strcmp(x->up[d].file, y->up[d].file) != 0 || x->up[d].line != y->up[d].line)
            return 0;
    return 1;
}

/* x gains y, a later rank's row of the same site. */
static void combine(mw_site_summary *x, const mw_site_summary *y)
{
    mw_site_record_add(&x->all, &y->all);
    x->squares += y->squares;
    if (y->rank_min < x->rank_min)   /* ranks ascend: the lowest of equals stays */
        x->rank_min = y->rank_min, x->rank_min_at = y->rank_min_at;
    if (y->rank_max > x->rank_max)
        x->rank_max = y->rank_max, x->rank_max_at = y->rank_max_at;
    x->ranks += y->ranks;
}

static int by_time_desc(const void *a, const void *b)
{
    const mw_site_summary *x = a, *y = b;
    return (x->all.time < y->all.time) - (x->all.time > y->all.time);
}

static void sites(const mwc_partial *const *p, int n, mw_job_summary *job)
{
    int total = 0;
    for (int r = 0; r < n; r++) {
        if (p[r]->resolver == NULL)
            return;   /* a profile of an mpiwatch without them: no table rather than a wrong one */
        total += p[r]->nsites;
    }
    job->sites = mwc_calloc((size_t)total + 1, sizeof *job->sites);
    for (int r = 0; r < n; r++) {
        job->sites_other += p[r]->sites_other;
        for (int k = 0; k < p[r]->nsites; k++) {
            const mw_site_summary *s = &p[r]->sites[k];
            int i = 0;
            while (i < job->nsites && !same_site(&job->sites[i], s))
                i++;
            if (i < job->nsites) {
                combine(&job->sites[i], s);
                continue;
            }
            job->sites[job->nsites] = *s;
            if (s->up != NULL) {
                job->sites[job->nsites].up = mwc_calloc((size_t)s->all.depth, sizeof *s->up);
                memcpy(job->sites[job->nsites].up, s->up, (size_t)(s->all.depth - 1) * sizeof *s->up);
            }
            job->nsites++;
        }
    }
    for (int i = 0; i < job->nsites; i++) {
        mw_site_summary *s = &job->sites[i];
        if (s->ranks < n) {   /* some rank never called from here: 0 s, as at MPI_Finalize */
            s->rank_min = 0;
            s->rank_min_at = -1;
        }
        s->cv = mw_variation(s->all.time, s->squares, n);
    }
    qsort(job->sites, (size_t)job->nsites, sizeof *job->sites, by_time_desc);
    job->sites_resolver = p[0]->resolver;
}

static void regions(const mwc_partial *const *p, int n, mw_job_summary *job)
{
    int total = 0;
    for (int r = 0; r < n; r++)
        total += p[r]->nregions;
    job->regions = mwc_calloc((size_t)total + 1, sizeof *job->regions);
    for (int r = 0; r < n; r++)
        for (int k = 0; k < p[r]->nregions; k++)
            mw_region_add(job->regions, &job->nregions, &p[r]->regions[k]);
}

void mwc_merge_tables(const mwc_partial *const *p, int n, mw_job_summary *job)
{
    sites(p, n, job);
    regions(p, n, job);
}

void mwc_merge_tables_free(mw_job_summary *job)
{
    for (int i = 0; job->sites != NULL && i < job->nsites; i++)
        free(job->sites[i].up);
    free(job->sites);
    free(job->regions);
}
