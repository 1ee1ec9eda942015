/* The job's wait states onto rank 0 (report/wait_merge.h). */
#include "report/wait_merge.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/state.h"
#include "core/warn.h"
#include "core/yielding_collectives.h"
#include "mw_functions.h"
#include "report/report.h"
#include "report/wait_finalize.h"
#include "report/callsites.h"
#include "report/wait_section.h"
#include "report/timeline_part.h"
#include "trace/trace.h"

/* One cause of one waiting rank, as gathered. */
typedef struct {
    int32_t rank, pattern, fn, prev_fn;   /* prev_fn -1: none */
    mw_wait_site site, prev_site;
    double waiting, direct;
    int64_t instances, waiting_ranks;
} cause_row;

/* One rank's totals, as gathered (doubles, to be one datatype). */
enum { ST_MPI, ST_WAITING, ST_DIRECT, ST_SECONDS, ST_MESSAGES, ST_UNMATCHED, ST_UNORDERED, ST_COLLECTIVES,
       ST_INCOMPLETE, ST_CALLS, ST_FAILED, ST_PATTERN_TIME,
       ST_PATTERN_COUNT = ST_PATTERN_TIME + MWW_PATTERNS, ST_COUNT = ST_PATTERN_COUNT + MWW_PATTERNS };

static int fn_id(const char *name)
{
    for (int id = 0; name != NULL && id < MW_FN_COUNT; id++)
        if (strcmp(mw_fn_names[id], name) == 0)
            return id;
    return -1;
}

static mw_wait_site site_of(const mw_wait_local *l, uint64_t index)
{
    return index >= 1 && index <= l->nsites ? l->sites[index - 1] : (mw_wait_site){0, 0};
}

static int by_key(const void *a, const void *b)
{
    const cause_row *x = a, *y = b;
    int64_t kx[8] = {x->rank, x->pattern, x->fn, x->prev_fn, (int64_t)x->site.module,
                     (int64_t)x->site.offset, (int64_t)x->prev_site.module,
                     (int64_t)x->prev_site.offset};
    int64_t ky[8] = {y->rank, y->pattern, y->fn, y->prev_fn, (int64_t)y->site.module,
                     (int64_t)y->site.offset, (int64_t)y->prev_site.module,
                     (int64_t)y->prev_site.offset};
    for (int i = 0; i < 8; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return 0;
}

/* One of this rank's causes as gathered: its key (rank, pattern, the
 * functions, the sites as every rank names them) and its figures. */
static cause_row local_row(const mw_wait_local *l, const mww_cause *c)
{
    return (cause_row){c->rank, c->pattern, fn_id(c->function),
                       c->prev_function ? fn_id(c->prev_function) : -1, site_of(l, c->site),
                       site_of(l, c->prev_site), c->waiting, c->direct, c->instances,
                       c->waiting_ranks};
}

/* A site of the merged causes: its index + 1 among w->sites, added when new. */
static uint64_t site_index(mw_wait_report *w, mw_wait_site s)
{
    if (s.module == 0 && s.offset == 0)
        return 0;
    for (int i = 0; i < w->nsites; i++)
        if (w->sites[i].all.module == s.module && w->sites[i].all.offset == s.offset)
            return (uint64_t)i + 1;
    w->sites[w->nsites].all.module = s.module;
    w->sites[w->nsites].all.offset = s.offset;
    w->sites[w->nsites].all.depth = 1;
    return (uint64_t)++w->nsites;
}

/* Rank 0: the rows of every rank summed by cause, largest first, their
 * sites resolved. */
static int build(mw_wait_report *w, cause_row *rows, size_t n, const double *stats, int size)
{
    qsort(rows, n, sizeof *rows, by_key);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept > 0 && by_key(&rows[kept - 1], &rows[i]) == 0) {
            rows[kept - 1].waiting += rows[i].waiting;
            rows[kept - 1].direct += rows[i].direct;
            rows[kept - 1].instances += rows[i].instances;
            rows[kept - 1].waiting_ranks += rows[i].waiting_ranks;
        } else {
            rows[kept++] = rows[i];
        }
    }
    mww_result *r = &w->result;
    r->causes = calloc(kept ? kept : 1, sizeof *r->causes);
    r->rank_waiting = calloc((size_t)size, sizeof *r->rank_waiting);
    r->rank_caused = calloc((size_t)size, sizeof *r->rank_caused);
    w->sites = calloc(2 * kept + 1, sizeof *w->sites);
    if (r->causes == NULL || r->rank_waiting == NULL || r->rank_caused == NULL || w->sites == NULL)
        return -1;
    for (size_t i = 0; i < kept; i++) {
        const cause_row *c = &rows[i];
        r->causes[i] = (mww_cause){c->rank, c->pattern, c->fn >= 0 ? mw_fn_names[c->fn] : "?",
                                   site_index(w, c->site),
                                   c->prev_fn >= 0 ? mw_fn_names[c->prev_fn] : NULL,
                                   site_index(w, c->prev_site), c->waiting, c->direct,
                                   (long)c->instances,
                                   (long)c->waiting_ranks};
        if (c->rank >= 0 && c->rank < size)
            r->rank_caused[c->rank] += c->waiting;
    }
    r->ncauses = kept;
    qsort(r->causes, kept, sizeof *r->causes, mww_cause_order);   /* the client's order */
    for (int k = 0; k < size; k++) {
        const double *s = &stats[(size_t)k * ST_COUNT];
        r->mpi_time += s[ST_MPI];
        r->waiting += s[ST_WAITING];
        r->direct += s[ST_DIRECT];
        r->rank_waiting[k] = s[ST_WAITING];
        r->messages += (long)s[ST_MESSAGES];
        r->unmatched += (long)s[ST_UNMATCHED];
        r->unordered_receivers += (long)s[ST_UNORDERED];
        r->collectives += (long)s[ST_COLLECTIVES];
        r->incomplete_collectives += (long)s[ST_INCOMPLETE];
        w->calls += (size_t)s[ST_CALLS];
        w->seconds = s[ST_SECONDS] > w->seconds ? s[ST_SECONDS] : w->seconds;
        for (int p = 0; p < MWW_PATTERNS; p++) {
            r->pattern_time[p] += s[ST_PATTERN_TIME + p];
            r->pattern_count[p] += (long)s[ST_PATTERN_COUNT + p];
        }
    }
    w->nranks = size;   /* its sites are resolved with the report's (report/reduce.c) */
    return 0;
}

/* Each of this rank's causes' place among the merged ones (as the report
 * lists them), for its wait states on the timeline: rank 0 says the merged
 * causes' keys, in order. *index malloc'd (SIZE_MAX: not among them). */
static int merged_order(const mw_job_summary *job, const mw_wait_local *l, size_t **index,
                        MPI_Comm comm)
{
    const mw_wait_report *w = job != NULL ? job->waits : NULL;
    int64_t n = w != NULL ? (int64_t)w->result.ncauses : -1;
    cause_row *keys = NULL;
    int rc = mw_bcast(&n, 1, MPI_INT64_T, comm);
    *index = NULL;
    if (rc != MPI_SUCCESS || n < 0)
        return rc;
    keys = malloc((size_t)(n ? n : 1) * sizeof *keys);
    int room = keys != NULL && (size_t)n * sizeof *keys <= INT_MAX, all = 0;
    for (int64_t i = 0; room && w != NULL && i < n; i++) {
        const mww_cause *c = &w->result.causes[i];
        mw_wait_site site = {0, 0}, prev = {0, 0};
        if (c->site >= 1)
            site = (mw_wait_site){w->sites[c->site - 1].all.module, w->sites[c->site - 1].all.offset};
        if (c->prev_site >= 1)
            prev = (mw_wait_site){w->sites[c->prev_site - 1].all.module,
                                  w->sites[c->prev_site - 1].all.offset};
        keys[i] = (cause_row){c->rank, c->pattern, fn_id(c->function),
                              c->prev_function ? fn_id(c->prev_function) : -1, site, prev, 0, 0,
                              i, 0};
    }
    if ((rc = mw_allreduce(&room, &all, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS || !all ||
        (rc = mw_bcast(keys, (int)((size_t)n * sizeof *keys), MPI_BYTE, comm)) != MPI_SUCCESS) {
        free(keys);
        return rc;
    }
    qsort(keys, (size_t)n, sizeof *keys, by_key);
    size_t nl = l->failed ? 0 : l->result.ncauses;
    *index = malloc((nl ? nl : 1) * sizeof **index);
    for (size_t i = 0; *index != NULL && i < nl; i++) {
        cause_row me = local_row(l, &l->result.causes[i]);   /* by_key reads its key only */
        const cause_row *at = bsearch(&me, keys, (size_t)n, sizeof *keys, by_key);
        (*index)[i] = at != NULL ? (size_t)at->instances : SIZE_MAX;
    }
    free(keys);
    return MPI_SUCCESS;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int mw_report_waits(struct mw_job_summary *job, MPI_Comm comm)
{
    mw_trace_totals t;
    int on = mw_trace_read_totals(&t), size = mw_state.world_size;
    int mine_on[2] = {on, -on}, all_on[2] = {0, 0};   /* the most and, negated, the least */
    int rc = mw_allreduce(mine_on, all_on, 2, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS || all_on[0] == 0)
        return rc;
    if (all_on[1] == 0) {   /* some rank did not trace (MPIWATCH_TRACE_RANKS) */
        if (mw_state.world_rank == 0)
            mw_warn("no wait-state analysis at MPI_Finalize: not every rank traced "
                    "(mpiwatch --trace DIR --analyze analyses those that did)");
        return MPI_SUCCESS;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* The timeline in the HTML report needs each wait state and message. */
    int page = (mw_state.config.formats & MW_FORMAT_HTML) && mw_report_html_available();
    mw_wait_local l;
    mw_wait_analyze_local(comm, page, &l);
    /* This rank's rows and totals, then the gathers (collective whatever
     * happened: a rank that failed sends none and says so). */
    size_t n = l.failed ? 0 : l.result.ncauses;
    cause_row *rows = malloc((n ? n : 1) * sizeof *rows);
    if (rows == NULL)
        n = 0;
    for (size_t i = 0; i < n; i++)
        rows[i] = local_row(&l, &l.result.causes[i]);
    double mine[ST_COUNT] = {0};
    if (!l.failed) {
        const mww_result *r = &l.result;
        mine[ST_MPI] = r->mpi_time;
        mine[ST_WAITING] = r->waiting;
        mine[ST_DIRECT] = r->direct;
        mine[ST_MESSAGES] = (double)r->messages;
        mine[ST_UNMATCHED] = (double)r->unmatched;
        mine[ST_UNORDERED] = (double)r->unordered_receivers;
        mine[ST_COLLECTIVES] = (double)(r->collectives + l.extra_collectives);
        mine[ST_INCOMPLETE] = (double)(r->incomplete_collectives + l.incomplete_collectives);
        mine[ST_CALLS] = (double)l.calls;
        for (int p = 0; p < MWW_PATTERNS; p++) {
            mine[ST_PATTERN_TIME + p] = r->pattern_time[p];
            mine[ST_PATTERN_COUNT + p] = (double)r->pattern_count[p];
        }
    }
    mine[ST_FAILED] = l.failed || (rows == NULL && l.result.ncauses != 0);
    mine[ST_SECONDS] = seconds_since(&t0);
    int bytes = (int)(n * sizeof *rows), root = mw_state.world_rank == 0;
    int *counts = root ? calloc((size_t)size, sizeof *counts) : NULL;
    int *displs = root ? calloc((size_t)size, sizeof *displs) : NULL;
    double *stats = root ? calloc((size_t)size * ST_COUNT, sizeof *stats) : NULL;
    cause_row *all = NULL;
    size_t total = 0;
    /* rank 0 says whether it has room, before each gather */
    int room = !root || (counts != NULL && displs != NULL && stats != NULL);
    rc = mw_bcast(&room, 1, MPI_INT, comm);
    if (rc == MPI_SUCCESS && room)
        rc = mw_gather(&bytes, 1, MPI_INT, counts, comm);
    for (int k = 0; rc == MPI_SUCCESS && room && root && k < size; k++) {
        displs[k] = (int)total;
        total += (size_t)counts[k];
    }
    if (rc == MPI_SUCCESS && room && root)
        room = total <= INT_MAX && (all = malloc(total ? total : 1)) != NULL;
    if (rc == MPI_SUCCESS && room)
        rc = mw_bcast(&room, 1, MPI_INT, comm);
    if (rc == MPI_SUCCESS && room)
        rc = mw_gather(mine, ST_COUNT, MPI_DOUBLE, stats, comm);
    if (rc == MPI_SUCCESS && room)
        rc = mw_gatherv(rows, bytes, MPI_BYTE, all, counts, displs, comm);
    if (rc == MPI_SUCCESS && root && !room)
        mw_warn("no wait-state section in the report: out of memory");
    if (rc == MPI_SUCCESS && root && all != NULL && job != NULL) {
        int failed = 0;
        for (int k = 0; k < size; k++)
            failed += stats[(size_t)k * ST_COUNT + ST_FAILED] != 0;
        mw_wait_report *w = calloc(1, sizeof *w);
        if (failed)
            mw_warn("no wait-state analysis at MPI_Finalize: %d rank%s could not analyse its trace "
                    "(mpiwatch --trace DIR --analyze reads the files afterwards)",
                    failed, failed == 1 ? "" : "s");
        else if (w == NULL || build(w, all, total / sizeof *all, stats, size) != 0)
            mw_warn("no wait-state section in the report: out of memory");
        else
            job->waits = w, w = NULL;
        if (w != NULL)
            mw_wait_report_free(w);
        free(w);
    }
    /* The timeline, when rank 0 has the section and the page is asked for. */
    size_t *order = NULL;
    if (rc == MPI_SUCCESS)
        rc = merged_order(job, &l, &order, comm);
    int want = root && page && job != NULL && job->waits != NULL;
    if (rc == MPI_SUCCESS)
        rc = mw_bcast(&want, 1, MPI_INT, comm);
    if (rc == MPI_SUCCESS && want)
        rc = mw_timeline_part_write(&l, order, want, job, comm);
    free(order);
    free(rows);
    free(all);
    free(counts);
    free(displs);
    free(stats);
    mw_wait_local_free(&l);
    return rc;
}
