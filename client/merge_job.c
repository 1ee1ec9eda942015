/* Partial profiles combined into a job summary (client/merge_job.h). */
#include "merge_job.h"

#include <stdlib.h>
#include <string.h>

#include "merge_tables.h"
#include "report/variation.h"
#include "util.h"

/* Sums, extremes and the spread over the ranks; a rank that never called
 * a function counts with time 0, as in the reductions at MPI_Finalize. */
static void functions(const mwc_partial *const *p, int n, mw_job_summary *job)
{
    static double squares[MW_FN_COUNT];
    memset(squares, 0, sizeof squares);
    job->hist_block = mwc_calloc((size_t)MW_FN_COUNT * MW_HIST_BUCKETS, sizeof *job->hist_block);
    for (int i = 0; i < MW_FN_COUNT; i++) {
        job->fn[i].rank_min_at = job->fn[i].rank_max_at = p[0]->rank;
        job->fn[i].rank_min = 1e300;
        job->fn[i].rank_max = -1;
    }
    for (int r = 0; r < n; r++) {
        double mine[MW_FN_COUNT] = {0};
        for (int k = 0; k < p[r]->nfns; k++) {
            const mwc_partial_fn *pf = &p[r]->fns[k];
            mw_fn_summary *f = &job->fn[pf->id];
            if (pf->calls > 0 && (f->calls == 0 || pf->min < f->min))
                f->min = pf->min;
            f->max = pf->max > f->max ? pf->max : f->max;
            f->calls += pf->calls;
            f->sent += pf->sent;
            f->recv += pf->recv;
            f->time += pf->time;
            mine[pf->id] = pf->time;
            for (int b = 0; pf->has_hist && b < MW_HIST_BUCKETS; b++) {
                job->hist_block[(size_t)pf->id * MW_HIST_BUCKETS + b] += pf->hist[b];
                f->hist = &job->hist_block[(size_t)pf->id * MW_HIST_BUCKETS];
            }
        }
        for (int i = 0; i < MW_FN_COUNT; i++) {   /* ranks ascend: the lowest of equals stays */
            mw_fn_summary *f = &job->fn[i];
            squares[i] += mine[i] * mine[i];
            if (mine[i] < f->rank_min)
                f->rank_min = mine[i], f->rank_min_at = p[r]->rank;
            if (mine[i] > f->rank_max)
                f->rank_max = mine[i], f->rank_max_at = p[r]->rank;
        }
    }
    for (int i = 0; i < MW_FN_COUNT; i++)
        job->fn[i].cv = mw_variation(job->fn[i].time, squares[i], n);
}

/* The rank x function matrix of the functions called somewhere. */
static void matrix(const mwc_partial *const *p, int n, mw_job_summary *job)
{
    int row_of[MW_FN_COUNT], rows = 0;
    int *fns = mwc_malloc(MW_FN_COUNT * sizeof *fns);
    for (int i = 0; i < MW_FN_COUNT; i++)
        if (job->fn[i].calls > 0)
            fns[rows] = i, row_of[i] = rows++;
    double *cells = mwc_calloc((size_t)n * (size_t)(rows ? rows : 1) * 4, sizeof *cells);
    for (int r = 0; r < n; r++)
        for (int k = 0; k < p[r]->nfns; k++) {
            const mwc_partial_fn *pf = &p[r]->fns[k];
            if (pf->calls == 0)
                continue;
            double *c = &cells[((size_t)r * (size_t)rows + (size_t)row_of[pf->id]) * 4];
            c[0] = (double)pf->calls;
            c[1] = pf->time;
            c[2] = (double)pf->sent;
            c[3] = (double)pf->recv;
        }
    job->matrix = cells;
    job->matrix_fns = fns;
    job->matrix_rows = rows;
}

static void per_rank(const mwc_partial *const *p, int n, mwc_merged *m)
{
    mw_job_summary *job = &m->job;
    job->app_time = mwc_malloc((size_t)n * sizeof(double));
    job->mpi_time = mwc_malloc((size_t)n * sizeof(double));
    job->init_time = mwc_malloc((size_t)n * sizeof(double));
    m->ids = mwc_malloc((size_t)n * sizeof *m->ids);
    m->ranks = mwc_calloc((size_t)n, sizeof *m->ranks);
    int npairs = 0;
    for (int r = 0; r < n; r++)
        npairs += p[r]->npairs;
    job->pairs = mwc_calloc((size_t)npairs + 1, sizeof *job->pairs);
    job->start = p[0]->started;
    for (int r = 0; r < n; r++) {
        job->app_time[r] = p[r]->app;
        job->mpi_time[r] = p[r]->mpi_time;
        job->init_time[r] = p[r]->init;
        m->ids[r] = p[r]->rank;
        m->ranks[r] = (mw_merged_rank){p[r]->rank, p[r]->reason, p[r]->host, p[r]->file,
                                       p[r]->taken, p[r]->started, p[r]->pid};
        memcpy(&job->pairs[job->npairs], p[r]->pairs, (size_t)p[r]->npairs * sizeof *job->pairs);
        job->npairs += p[r]->npairs;
        job->start = p[r]->started < job->start ? p[r]->started : job->start;
        job->end = p[r]->taken > job->end ? p[r]->taken : job->end;
    }
    qsort(job->pairs, (size_t)job->npairs, sizeof *job->pairs, mw_pair_order);
}

void mwc_merge_job(const mwc_partial *const *p, int n, mwc_merged *m)
{
    mw_job_summary *job = &m->job;
    memset(m, 0, sizeof *m);
    job->ranks = n;
    job->first_rank = p[0]->rank;
    job->program = p[0]->program;
    job->timer = p[0]->timer;
    per_rank(p, n, m);
    job->rank_ids = m->ids;
    functions(p, n, job);
    matrix(p, n, job);
    mwc_merge_tables(p, n, job);
    /* The lowest rank's command line, as rank 0's at MPI_Finalize. */
    snprintf(job->command, sizeof job->command, "%s",
             p[0]->command[0] != '\0' ? p[0]->command : "(not in these partial profiles)");
    snprintf(job->build_id, sizeof job->build_id, "%s", p[0]->build_id);
    snprintf(job->library, sizeof job->library, "%s", p[0]->mpi);
    size_t used = 0;
    for (int r = 0; r < n; r++) {   /* the hosts as far as they fit; every one counted */
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = strcmp(p[q]->host, p[r]->host) == 0;
        if (seen)
            continue;
        job->nodes++;
        if (used + 1 < sizeof job->hosts)
            used += (size_t)snprintf(job->hosts + used, sizeof job->hosts - used, "%s%s",
                                     used ? ", " : "", p[r]->host);
    }
    int world = p[0]->world_size;
    m->missing = mwc_malloc((size_t)world * sizeof *m->missing);
    for (int rank = 0, r = 0; rank < world; rank++) {
        if (r < n && p[r]->rank == rank)
            r++;
        else
            m->missing[m->facts.nmissing++] = rank;
    }
    m->facts.world_size = world;
    m->facts.job = p[0]->job;
    m->facts.ranks = m->ranks;
    m->facts.missing = m->missing;
    job->merged = &m->facts;
}

void mwc_merged_free(mwc_merged *m)
{
    free(m->job.app_time);
    free(m->job.mpi_time);
    free(m->job.init_time);
    free(m->job.pairs);
    free(m->job.hist_block);
    free(m->job.matrix);
    free(m->job.matrix_fns);
    mwc_merge_tables_free(&m->job);
    free(m->ids);
    free(m->missing);
    free(m->ranks);
    memset(m, 0, sizeof *m);
}
