/* Job-wide statistics by reductions on the private communicator: rank 0
 * receives sums, minima and maxima, a few numbers per rank, and each rank's
 * top destinations; never every rank's whole table. */
#include <float.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/yielding_collectives.h"
#include "report/phases.h"
#include "report/report.h"
#include "report/timeline_part.h"
#include "report/wait_merge.h"
#include "report/wait_section.h"
#include "report/variation.h"
#include "core/state.h"

#define N MW_FN_COUNT

/* Every thread's histograms summed into one table of N x buckets; relaxed
 * loads, since a partial profile's thread reads while the owners write
 * (MW_OWN_STORE, core/thread_stats.h). */
static void merge_hist(mw_thread *t, void *arg)
{
    uint64_t *hist = arg;
    for (int i = 0; i < N; i++)
        if (t->hist[i] != NULL)
            for (int b = 0; b < MW_HIST_SLOTS; b++)
                hist[(size_t)i * MW_HIST_BUCKETS + mw_hist_bucket_of(b)] +=
                    __atomic_load_n(&t->hist[i][b], __ATOMIC_RELAXED);
}

/* This rank's busiest destinations, as from/to/bytes/messages quadruples. */
static void top_destinations(uint64_t *out)
{
    int n = mw_state.world_size;
    uint64_t *to = calloc(2 * (size_t)n, sizeof *to);
    mw_pair *mine = calloc((size_t)n, sizeof *mine);
    int count = 0;
    memset(out, 0, MW_PAIRS_PER_RANK * 4 * sizeof *out);
    if (to != NULL && mine != NULL) {
        mw_pairs_merge(to, to + n, n);   /* safe while the threads keep calling */
        for (int d = 0; d < n; d++)
            if (to[n + d] > 0)
                mine[count++] = (mw_pair){(uint64_t)mw_state.world_rank, (uint64_t)d, to[d], to[n + d]};
        qsort(mine, (size_t)count, sizeof *mine, mw_pair_order);
        for (int i = 0; i < count && i < MW_PAIRS_PER_RANK; i++)
            memcpy(&out[4 * i], &mine[i], sizeof mine[i]);
    }
    free(to);
    free(mine);
}

/* A value and the rank it belongs to, for MPI_MINLOC / MPI_MAXLOC. */
typedef struct ranked {
    double value;
    int rank;
} ranked;

/* Everything the function tables combine, in one reduction instead of six
 * (on an oversubscribed node each collective waits for descheduled ranks). */
typedef struct tables {
    uint64_t counts[3 * N];  /* calls, bytes sent, bytes received: summed */
    double sums[2 * N];      /* seconds and seconds squared: summed */
    double highs[2 * N];     /* the longest call, then minus the shortest: the larger kept */
    ranked low[N];           /* minus the least time a rank spent, with the rank */
    ranked high[N];          /* the most time a rank spent, with the rank */
} tables;

/* The larger value, the lower rank of equals: MPI_MAXLOC's rule. */
static void keep_high(ranked *into, const ranked *from)
{
    if (from->value > into->value || (from->value == into->value && from->rank < into->rank))
        *into = *from;
}

static void combine_tables(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int k = 0; k < *len; k++) {
        const tables *a = (const tables *)in + k;
        tables *b = (tables *)inout + k;
        for (int i = 0; i < 3 * N; i++)
            b->counts[i] += a->counts[i];
        for (int i = 0; i < 2 * N; i++) {
            b->sums[i] += a->sums[i];
            b->highs[i] = a->highs[i] > b->highs[i] ? a->highs[i] : b->highs[i];
        }
        for (int i = 0; i < N; i++) {
            keep_high(&b->low[i], &a->low[i]);
            keep_high(&b->high[i], &a->high[i]);
        }
    }
}

static int reduce_tables(const mw_fn_stats *local, mw_job_summary *job, MPI_Comm comm)
{
    static tables mine, all;
    MPI_Datatype type;
    MPI_Op op;
    int rc;

    for (int i = 0; i < N; i++) {
        double seconds = mw_clock_seconds(local[i].ticks);
        mine.counts[i] = local[i].calls;
        mine.counts[N + i] = local[i].sent;
        mine.counts[2 * N + i] = local[i].recv;
        mine.sums[i] = seconds;
        mine.sums[N + i] = seconds * seconds;
        mine.highs[i] = mw_clock_seconds(local[i].max_ticks);
        mine.highs[N + i] = -(local[i].calls ? mw_clock_seconds(local[i].min_ticks) : DBL_MAX);
        mine.low[i] = (ranked){-seconds, mw_state.world_rank};
        mine.high[i] = (ranked){seconds, mw_state.world_rank};
    }
    if ((rc = PMPI_Type_contiguous((int)sizeof mine, MPI_BYTE, &type)) != MPI_SUCCESS)
        return rc;
    if ((rc = PMPI_Type_commit(&type)) == MPI_SUCCESS &&
        (rc = PMPI_Op_create(combine_tables, 1, &op)) == MPI_SUCCESS) {
        rc = mw_reduce(&mine, &all, 1, type, op, comm);
        PMPI_Op_free(&op);
    }
    PMPI_Type_free(&type);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int i = 0; job && i < N; i++) {
        mw_fn_summary *f = &job->fn[i];
        f->calls = all.counts[i];
        f->sent = all.counts[N + i];
        f->recv = all.counts[2 * N + i];
        f->time = all.sums[i];
        f->min = f->calls ? -all.highs[N + i] : 0.0;
        f->max = all.highs[i];
        f->rank_min = -all.low[i].value;
        f->rank_min_at = all.low[i].rank;
        f->rank_max = all.high[i].value;
        f->rank_max_at = all.high[i].rank;
        f->cv = mw_variation(all.sums[i], all.sums[N + i], mw_state.world_size);
    }
    return MPI_SUCCESS;
}

/* Histograms: first which functions have one anywhere, then only those rows. */
static int reduce_histograms(mw_job_summary *job, MPI_Comm comm)
{
    static unsigned char has[N], has_all[N];
    uint64_t *hist = calloc((size_t)N * MW_HIST_BUCKETS, sizeof *hist);
    int rc, rows = 0;
    if (hist == NULL)
        return MPI_ERR_NO_MEM;
    mw_threads_each(merge_hist, hist);
    for (int i = 0; i < N; i++) {
        has[i] = 0;
        for (int b = 0; b < MW_HIST_BUCKETS && !has[i]; b++)
            has[i] = hist[(size_t)i * MW_HIST_BUCKETS + b] != 0;
    }
    rc = mw_allreduce(has, has_all, N, MPI_UNSIGNED_CHAR, MPI_MAX, comm);
    for (int i = 0; rc == MPI_SUCCESS && i < N; i++)
        if (has_all[i])
            memmove(&hist[(size_t)rows++ * MW_HIST_BUCKETS], &hist[(size_t)i * MW_HIST_BUCKETS],
                    MW_HIST_BUCKETS * sizeof *hist);
    uint64_t *sum = job ? calloc((size_t)(rows ? rows : 1) * MW_HIST_BUCKETS, sizeof *sum) : NULL;
    if (rc == MPI_SUCCESS && rows > 0)
        rc = mw_reduce(hist, sum, rows * MW_HIST_BUCKETS, MPI_UINT64_T, MPI_SUM, comm);
    for (int i = 0, r = 0; rc == MPI_SUCCESS && job && sum && i < N; i++)
        if (has_all[i])
            job->fn[i].hist = &sum[(size_t)r++ * MW_HIST_BUCKETS];
    if (job)
        job->hist_block = sum;
    free(hist);
    return rc;
}

static int gather_ranks(double app_time, const mw_fn_stats *local, mw_job_summary *job,
                        MPI_Comm comm)
{
    double mine[3] = {app_time, 0.0, 0.0};
    for (int i = 0; i < N; i++)
        mine[mw_fn_is_startup(i) ? 2 : 1] += mw_clock_seconds(local[i].ticks);
    double *all = job ? malloc(3 * (size_t)mw_state.world_size * sizeof *all) : NULL;
    if (job && all == NULL)
        return MPI_ERR_NO_MEM;
    int rc = mw_gather(mine, 3, MPI_DOUBLE, all, comm);
    if (job && rc == MPI_SUCCESS) {
        size_t bytes = (size_t)mw_state.world_size * sizeof(double);
        job->app_time = malloc(bytes);
        job->mpi_time = malloc(bytes);
        job->init_time = malloc(bytes);
        for (int r = 0; job->app_time && job->mpi_time && job->init_time &&
                        r < mw_state.world_size; r++) {
            job->app_time[r] = all[3 * r];
            job->mpi_time[r] = all[3 * r + 1];
            job->init_time[r] = all[3 * r + 2];
        }
    }
    free(all);
    return rc;
}

static int gather_sites(mw_job_summary *job, MPI_Comm comm)
{
    mw_site_summary *sites;
    int n;
    uint64_t other;
    int rc = mw_callsites_gather(comm, &sites, &n, &other);
    mw_phase_mark("sites_gather");
    if (job != NULL && rc == MPI_SUCCESS) {
        /* The wait states' sites in the same pass: libdw reads the
         * process's modules once (0.9 s for LAMMPS's, measured). */
        int nwait = job->waits != NULL ? job->waits->nsites : 0;
        mw_site_summary *both = nwait ? realloc(sites, (size_t)(n + nwait) * sizeof *both) : NULL;
        if (both != NULL) {
            sites = both;
            memcpy(sites + n, job->waits->sites, (size_t)nwait * sizeof *sites);
        }
        mw_callsites_resolve(sites, both != NULL ? n + nwait : n);
        if (both != NULL)
            memcpy(job->waits->sites, sites + n, (size_t)nwait * sizeof *sites);
        if (job->waits != NULL)
            job->waits->sites_note = mw_callsites_resolver();
        mw_phase_mark("sites_resolve");
        job->sites = sites;
        job->nsites = n;
        job->sites_other = other;
        job->sites_resolver = mw_callsites_resolver();
    } else {
        free(sites);
    }
    return rc;
}

static int gather_pairs(mw_job_summary *job, MPI_Comm comm)
{
    uint64_t mine[MW_PAIRS_PER_RANK * 4];
    int n = mw_state.world_size, per = MW_PAIRS_PER_RANK * 4;
    uint64_t *all = job ? malloc((size_t)n * (size_t)per * sizeof *all) : NULL;
    top_destinations(mine);
    int rc = mw_gather(mine, per, MPI_UINT64_T, all, comm);
    if (job && all != NULL && rc == MPI_SUCCESS) {
        job->pairs = (mw_pair *)all;
        job->npairs = 0;
        for (int i = 0; i < n * MW_PAIRS_PER_RANK; i++)
            if (job->pairs[i].messages > 0)
                job->pairs[job->npairs++] = job->pairs[i];
        qsort(job->pairs, (size_t)job->npairs, sizeof *job->pairs, mw_pair_order);
        all = NULL;
    }
    free(all);
    return rc;
}

int mw_report_reduce(double app_time, const mw_fn_stats *local, mw_job_summary *job)
{
    MPI_Comm comm = mw_private_comm();
    mw_job_summary *root = mw_state.world_rank == 0 ? job : NULL;
    int rc;

    memset(job, 0, sizeof *job);
    if ((rc = reduce_tables(local, root, comm)) || (mw_phase_mark("tables"), 0) ||
        (rc = reduce_histograms(root, comm)) || (mw_phase_mark("histograms"), 0) ||
        (rc = gather_ranks(app_time, local, root, comm)) || (rc = gather_pairs(root, comm)) ||
        (rc = mw_report_regions(root, comm)) || (rc = mw_report_monitor(root, comm)) ||
        (rc = mw_report_trace(root, comm)) || (mw_phase_mark("ranks_pairs_regions"), 0) ||
        (rc = mw_report_waits(root, comm)) || (mw_phase_mark("wait_states"), 0) ||
        (rc = gather_sites(root, comm)) || (rc = mw_report_header(root, comm)) ||
        (mw_phase_mark("header"), 0) || (rc = mw_report_matrix(local, root, comm)) ||
        (rc = mw_report_counters(root, comm)) || (mw_phase_mark("matrix_counters"), 0))
        return rc;
    if (root != NULL)
        root->ranks = mw_state.world_size;
    return MPI_SUCCESS;
}

/* MPI_Pcontrol(2)'s snapshot and the partial profile's thread may both ask. */
static pthread_mutex_t local_lock = PTHREAD_MUTEX_INITIALIZER;

void mw_report_local(double app_time, mw_job_summary *job)
{
    static mw_fn_stats local[N];
    pthread_mutex_lock(&local_lock);
    uint64_t *hist = calloc((size_t)N * MW_HIST_BUCKETS, sizeof *hist);
    uint64_t top[MW_PAIRS_PER_RANK * 4];

    memset(job, 0, sizeof *job);
    mw_stats_merge(local);
    job->ranks = 1;
    job->first_rank = mw_state.world_rank;
    job->app_time = malloc(sizeof *job->app_time);
    job->mpi_time = malloc(sizeof *job->mpi_time);
    job->init_time = malloc(sizeof *job->init_time);
    if (job->app_time != NULL && job->mpi_time != NULL && job->init_time != NULL) {
        job->app_time[0] = app_time;
        job->mpi_time[0] = job->init_time[0] = 0;
    }
    job->hist_block = hist;
    if (hist != NULL)
        mw_threads_each(merge_hist, hist);
    for (int i = 0; i < N; i++) {
        mw_fn_summary *f = &job->fn[i];
        f->calls = local[i].calls;
        f->sent = local[i].sent;
        f->recv = local[i].recv;
        f->time = f->rank_min = f->rank_max = mw_clock_seconds(local[i].ticks);
        f->rank_min_at = f->rank_max_at = mw_state.world_rank;
        f->min = f->calls ? mw_clock_seconds(local[i].min_ticks) : 0.0;
        f->max = mw_clock_seconds(local[i].max_ticks);
        if (job->mpi_time != NULL && job->init_time != NULL)
            (mw_fn_is_startup(i) ? job->init_time : job->mpi_time)[0] += f->time;
        for (int b = 0; hist != NULL && b < MW_HIST_BUCKETS && f->hist == NULL; b++)
            if (hist[(size_t)i * MW_HIST_BUCKETS + b])
                f->hist = &hist[(size_t)i * MW_HIST_BUCKETS];
    }
    top_destinations(top);
    job->pairs = malloc(MW_PAIRS_PER_RANK * sizeof *job->pairs);
    for (int i = 0; job->pairs != NULL && i < MW_PAIRS_PER_RANK; i++)
        if (top[4 * i + 3] > 0)
            memcpy(&job->pairs[job->npairs++], &top[4 * i], sizeof *job->pairs);
    pthread_mutex_unlock(&local_lock);
}

void mw_report_free(mw_job_summary *job)
{
    mw_timeline_part_free(job);
    free(job->hist_block);
    free(job->app_time);
    free(job->mpi_time);
    free(job->init_time);
    for (int i = 0; job->sites != NULL && i < job->nsites; i++)
        free(job->sites[i].up);
    free(job->sites);
    free(job->matrix);
    free(job->counters);
    free(job->matrix_fns);
    free(job->pairs);
    free(job->regions);
    if (job->waits != NULL)
        mw_wait_report_free(job->waits);
    free(job->waits);
    memset(job, 0, sizeof *job);
}
