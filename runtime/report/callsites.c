/* Call sites over the job: each rank merges its threads' sites, names each
 * by (module, offset) and sends its busiest MW_SITES_PER_RANK to rank 0,
 * which merges them by (module, offset, function): a site is one site
 * however many ranks, threads or load addresses it had. */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/yielding_collectives.h"
#include "core/state.h"
#include "core/thread_stats.h"
#include "report/callsites.h"

/* This rank's sites, gathered from its threads (may repeat a key). */
struct local {
    mw_site_record *rec;
    uint64_t *key;
    int n, cap;
    uint64_t other;          /* calls in fn[]: no site kept them */
};

static void collect(mw_thread *t, void *arg)
{
    struct local *l = arg;
    unsigned n = __atomic_load_n(&t->nsites, __ATOMIC_ACQUIRE);
    for (int i = 0; i < MW_FN_COUNT; i++)
        l->other += t->fn[i].s.calls;
    for (unsigned k = 0; k < n; k++) {
        const mw_site *e = &t->sites[t->site_used[k]];
        int j = 0;
        while (j < l->n && l->key[j] != e->key)
            j++;
        if (j == l->n) {
            if (l->n == l->cap)
                continue;    /* cannot happen: cap covers every thread's sites */
            l->key[l->n] = e->key;
            memset(&l->rec[l->n], 0, sizeof l->rec[0]);
            l->rec[l->n].min = -1;
            l->n++;
        }
        mw_site_record *r = &l->rec[j];
        double min = mw_clock_seconds(e->s.min_ticks), max = mw_clock_seconds(e->s.max_ticks);
        r->calls += e->s.calls;
        r->sent += e->s.sent;
        r->recv += e->s.recv;
        r->sizes |= mw_sizes_fold(e->s.sizes);
        r->time += mw_clock_seconds(e->s.ticks);
        r->min = r->min < 0 || min < r->min ? min : r->min;
        r->max = max > r->max ? max : r->max;
    }
}

static void count_sites(mw_thread *t, void *arg)
{
    *(int *)arg += (int)__atomic_load_n(&t->nsites, __ATOMIC_ACQUIRE);
}

static int by_time_desc(const void *a, const void *b)
{
    const mw_site_record *x = a, *y = b;
    return (x->time < y->time) - (x->time > y->time);
}

/* This rank's records, busiest first, at most MW_SITES_PER_RANK of them;
 * *other gains the calls of the rest. */
static int local_records(mw_site_record *out, uint64_t *other)
{
    int cap = 0;
    mw_threads_each(count_sites, &cap);
    struct local l = {calloc((size_t)cap + 1, sizeof *l.rec), calloc((size_t)cap + 1, sizeof *l.key),
                      0, cap, 0};
    int n = 0;
    if (l.rec != NULL && l.key != NULL) {
        mw_threads_each(collect, &l);
        for (int i = 0; i < l.n; i++) {
            mw_site_record *r = &l.rec[i];
            r->fn = (int32_t)mw_site_fn(l.key[i]);
            r->rank = mw_state.world_rank;
            const void *frame[MW_CALLSTACK_MAX];
            r->depth = mw_callstack_frames((const void *)mw_site_address(l.key[i]), frame);
            for (int d = 0; d < r->depth; d++) {
                uint64_t *module = d ? &r->up_module[d - 1] : &r->module;
                uint64_t *offset = d ? &r->up_offset[d - 1] : &r->offset;
                if (!mw_module_of((uintptr_t)frame[d], module, offset)) {
                    *module = 0;     /* outside every module: kept by its address */
                    *offset = (uintptr_t)frame[d];
                }
            }
        }
        qsort(l.rec, (size_t)l.n, sizeof *l.rec, by_time_desc);
        n = l.n < MW_SITES_PER_RANK ? l.n : MW_SITES_PER_RANK;
        memcpy(out, l.rec, (size_t)n * sizeof *out);
        for (int i = n; i < l.n; i++)
            l.other += l.rec[i].calls;
    }
    *other = l.other;
    free(l.rec);
    free(l.key);
    return n;
}

/* Sites compare by module, offset, function, then the frames above. */
static int site_order(const mw_site_record *x, const mw_site_record *y)
{
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    for (int d = 0; d < x->depth - 1; d++) {
        if (x->up_module[d] != y->up_module[d])
            return x->up_module[d] < y->up_module[d] ? -1 : 1;
        if (x->up_offset[d] != y->up_offset[d])
            return x->up_offset[d] < y->up_offset[d] ? -1 : 1;
    }
    return 0;
}

static int same_site(const mw_site_record *a, const mw_site_record *b)
{
    return site_order(a, b) == 0;
}

static int by_site(const void *a, const void *b)
{
    const mw_site_record *x = a, *y = b;
    int order = site_order(x, y);
    return order ? order : (x->rank > y->rank) - (x->rank < y->rank);
}

static int summary_by_time_desc(const void *a, const void *b)
{
    const mw_site_summary *x = a, *y = b;
    return (x->all.time < y->all.time) - (x->all.time > y->all.time);
}

/* Square root by Newton's method (no -lm for programs linked statically). */
static double root(double x)
{
    double r = x > 1 ? x : 1;
    for (int i = 0; i < 200 && x > 0; i++) {
        double next = 0.5 * (r + x / r);
        if (next >= r)
            break;
        r = next;
    }
    return x > 0 ? r : 0.0;
}

/* Rank 0: the records of every rank (sorted by site, then rank) into one
 * summary per site. */
static int merge(mw_site_record *all, int n, int world, mw_site_summary *out)
{
    int m = 0;
    qsort(all, (size_t)n, sizeof *all, by_site);
    for (int i = 0; i < n;) {
        mw_site_summary *s = &out[m++];
        memset(s, 0, sizeof *s);
        s->all = all[i];
        s->all.calls = s->all.sent = s->all.recv = 0;
        s->all.time = 0;
        s->rank_min = s->rank_max = all[i].time;
        s->rank_min_at = s->rank_max_at = all[i].rank;
        int j = i;
        for (; j < n && same_site(&all[j], &all[i]); j++) {
            const mw_site_record *r = &all[j];
            s->all.calls += r->calls;
            s->all.sent += r->sent;
            s->all.recv += r->recv;
            s->all.sizes |= r->sizes;
            s->all.time += r->time;
            s->all.min = r->min < s->all.min ? r->min : s->all.min;
            s->all.max = r->max > s->all.max ? r->max : s->all.max;
            s->squares += r->time * r->time;
            if (r->time < s->rank_min) {
                s->rank_min = r->time;
                s->rank_min_at = r->rank;
            }
            if (r->time > s->rank_max) {
                s->rank_max = r->time;
                s->rank_max_at = r->rank;
            }
        }
        s->ranks = j - i;
        if (s->ranks < world) {      /* some rank never called from here: 0 s */
            s->rank_min = 0;
            s->rank_min_at = -1;
        }
        double mean = s->all.time / world, var = s->squares / world - mean * mean;
        s->cv = mean > 0 && var > 0 ? root(var) / mean : 0.0;
        i = j;
    }
    qsort(out, (size_t)m, sizeof *out, summary_by_time_desc);
    return m;
}

int mw_callsites_gather(MPI_Comm comm, mw_site_summary **sites, int *nsites, uint64_t *other)
{
    static mw_site_record mine[MW_SITES_PER_RANK];
    int world = mw_state.world_size, root = mw_state.world_rank == 0;
    uint64_t my_other = 0, all_other = 0;
    int count = local_records(mine, &my_other), rc, ok = 1, all_ok = 0, total = 0;
    int bytes = (int)sizeof(mw_site_record);
    int *counts = root ? calloc((size_t)world, sizeof *counts) : NULL;
    int *displs = root ? calloc((size_t)world, sizeof *displs) : NULL;
    mw_site_record *all = NULL;

    *sites = NULL;
    *nsites = 0;
    *other = 0;
    if (root && (counts == NULL || displs == NULL)) {
        rc = MPI_ERR_NO_MEM;   /* as every other part of the report */
        goto done;
    }
    if ((rc = mw_reduce(&my_other, &all_other, 1, MPI_UINT64_T, MPI_SUM, comm)) ||
        (rc = mw_gather(&count, 1, MPI_INT, counts, comm)))
        goto done;
    for (int r = 0; root && ok && r < world; r++) {
        displs[r] = total * bytes;
        total += counts[r];
        counts[r] *= bytes;
    }
    if (root && ok && (all = malloc((size_t)(total ? total : 1) * sizeof *all)) == NULL)
        ok = 0;
    /* Everyone learns whether rank 0 can take the sites, so that nobody
     * waits in a gather that rank 0 left out. */
    if ((rc = mw_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm)) || !all_ok)
        goto done;
    if ((rc = mw_gatherv(mine, count * bytes, MPI_BYTE, all, counts, displs, comm)))
        goto done;
    if (root) {
        mw_site_summary *out = calloc((size_t)(total ? total : 1), sizeof *out);
        if (out != NULL) {
            *nsites = merge(all, total, world, out);
            *sites = out;
            *other = all_other;
        }
    }
done:
    free(all);
    free(counts);
    free(displs);
    return rc;
}
