/* Call sites over the job: each rank merges its threads' sites, names each
 * by (module, offset) and keeps its busiest MW_SITES_PER_RANK; the ranks'
 * tables are merged by (module, offset, function) in a tree on the way to
 * rank 0: a site is one site however many ranks, threads or load addresses
 * it had. */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/yielding_collectives.h"
#include "core/state.h"
#include "core/thread_stats.h"
#include "report/callsites.h"
#include "report/variation.h"
#include "report/phases.h"

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
    /* Relaxed loads, as mw_stats_merge's: a partial profile reads threads
     * still calling MPI. */
    for (int i = 0; i < MW_FN_COUNT; i++)
        l->other += __atomic_load_n(&t->fn[i].s.calls, __ATOMIC_RELAXED);
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
        mw_fn_stats st = {.min_ticks = UINT64_MAX};
        mw_stats_merge_one(&st, &e->s);
        double min = mw_clock_seconds(st.min_ticks), max = mw_clock_seconds(st.max_ticks);
        r->calls += st.calls;
        r->sent += st.sent;
        r->recv += st.recv;
        r->sizes |= st.sizes;
        r->time += mw_clock_seconds(st.ticks);
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

static int summary_by_time_desc(const void *a, const void *b)
{
    const mw_site_summary *x = a, *y = b;
    return (x->all.time < y->all.time) - (x->all.time > y->all.time);
}

/* One call site over a set of ranks: what each rank passes up the tree. */
typedef struct partial {
    mw_site_record all;      /* sums, min/max over the calls; the rest from the lowest rank */
    double squares;          /* sum over the ranks of their time here, squared */
    double rank_min, rank_max;
    int32_t rank_min_at, rank_max_at;   /* the lowest rank of equals */
    int32_t ranks;
    int32_t unused;
} partial;

/* What a rank sends to its parent: whether every rank below could build its
 * table (a failed allocation leaves the report without sites, as a full
 * gather did), the calls no site kept, then the table, sorted by site_order. */
typedef struct table_head {
    int64_t ok, count;
    uint64_t other;
} table_head;

static int partial_by_site(const void *a, const void *b)
{
    return site_order(&((const partial *)a)->all, &((const partial *)b)->all);
}

/* x gains y: the same site over more ranks. */
static void combine(partial *x, const partial *y)
{
    mw_site_record *a = &x->all;
    const mw_site_record *b = &y->all;
    mw_site_record_add(a, b);
    if (b->rank < a->rank)
        a->rank = b->rank;
    x->squares += y->squares;
    if (y->rank_min < x->rank_min || (y->rank_min == x->rank_min && y->rank_min_at < x->rank_min_at)) {
        x->rank_min = y->rank_min;
        x->rank_min_at = y->rank_min_at;
    }
    if (y->rank_max > x->rank_max || (y->rank_max == x->rank_max && y->rank_max_at < x->rank_max_at)) {
        x->rank_max = y->rank_max;
        x->rank_max_at = y->rank_max_at;
    }
    x->ranks += y->ranks;
}

/* Two tables sorted by site into out (room for na + nb), sorted; its count. */
static int64_t merge_tables(const partial *a, int64_t na, const partial *b, int64_t nb, partial *out)
{
    int64_t i = 0, j = 0, n = 0;
    while (i < na || j < nb) {
        int order = i == na ? 1 : j == nb ? -1 : site_order(&a[i].all, &b[j].all);
        if (order < 0) {
            out[n++] = a[i++];
        } else if (order > 0) {
            out[n++] = b[j++];
        } else {
            partial merged = a[i].all.rank <= b[j].all.rank ? a[i] : b[j];
            combine(&merged, a[i].all.rank <= b[j].all.rank ? &b[j] : &a[i]);
            out[n++] = merged;
            i++, j++;
        }
    }
    return n;
}

/* This rank's table: its records, one partial each, sorted by site. */
static size_t table_bytes(int64_t count)
{
    return sizeof(table_head) + (size_t)count * sizeof(partial);
}

static table_head *own_table(const mw_site_record *mine, int count, uint64_t other)
{
    table_head *t = malloc(table_bytes(count));
    if (t == NULL)
        return NULL;
    partial *rows = (partial *)(t + 1);
    for (int i = 0; i < count; i++)
        rows[i] = (partial){.all = mine[i], .squares = mine[i].time * mine[i].time,
                            .rank_min = mine[i].time, .rank_max = mine[i].time,
                            .rank_min_at = mine[i].rank, .rank_max_at = mine[i].rank,
                            .ranks = 1};
    qsort(rows, (size_t)count, sizeof *rows, partial_by_site);
    *t = (table_head){1, count, other};
    mw_phase_hold((long long)table_bytes(count));
    return t;
}

/* Rank 0: the job's table into one summary per site, busiest first. */
static mw_site_summary *summaries(const partial *rows, int n, int world)
{
    mw_site_summary *out = calloc((size_t)(n ? n : 1), sizeof *out);
    for (int i = 0; out != NULL && i < n; i++) {
        mw_site_summary *s = &out[i];
        const partial *p = &rows[i];
        s->all = p->all;
        s->ranks = p->ranks;
        s->squares = p->squares;
        s->rank_min = p->rank_min;
        s->rank_min_at = p->rank_min_at;
        s->rank_max = p->rank_max;
        s->rank_max_at = p->rank_max_at;
        if (s->ranks < world) {      /* some rank never called from here: 0 s */
            s->rank_min = 0;
            s->rank_min_at = -1;
        }
        s->cv = mw_variation(s->all.time, s->squares, world);
    }
    if (out != NULL)
        qsort(out, (size_t)n, sizeof *out, summary_by_time_desc);
    return out;
}

/* Merge the tables of the ranks of comm in a binomial tree: in round k a
 * rank whose bit k is set sends its table (its own merged with those it
 * received) to the rank 2^k below and is done; the others receive from the
 * rank 2^k above. log2 P rounds; each table holds each site once, so a rank
 * receives and holds O(sites) per round, never O(ranks x sites). On rank 0,
 * *table is the job's (free it). */
static int tree_merge(MPI_Comm comm, table_head **table)
{
    int rank = mw_state.world_rank, size = mw_state.world_size, rc = MPI_SUCCESS;
    table_head *mine = *table;
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rank & mask) {
            rc = mw_send(mine, (int)table_bytes(mine->count), rank - mask, MW_TAG_SITES, comm);
            break;
        }
        if (rank + mask >= size)
            continue;
        void *got = NULL;
        int bytes = 0;
        rc = mw_recv_any(&got, &bytes, rank + mask, MW_TAG_SITES, comm);
        if (rc != MPI_SUCCESS && rc != MPI_ERR_NO_MEM)
            break;
        table_head *child = got;
        int usable = rc == MPI_SUCCESS && (size_t)bytes >= sizeof *child &&
                     (size_t)bytes == table_bytes(child->count);
        mw_phase_received((size_t)bytes);
        mw_phase_hold(bytes);
        table_head *merged = NULL;
        if (usable && mine->ok && child->ok)
            merged = malloc(table_bytes(mine->count + child->count));
        if (merged != NULL) {
            int64_t capacity = mine->count + child->count;
            mw_phase_hold((long long)table_bytes(capacity));
            merged->ok = 1;
            merged->other = mine->other + child->other;
            merged->count = merge_tables((partial *)(mine + 1), mine->count,
                                         (partial *)(child + 1), child->count,
                                         (partial *)(merged + 1));
            mw_phase_hold(-(long long)table_bytes(mine->count));
            free(mine);
            /* Sites the two had in common leave room unused: give it back. */
            table_head *fit = realloc(merged, table_bytes(merged->count));
            if (fit != NULL) {
                mw_phase_hold(-(long long)(table_bytes(capacity) - table_bytes(fit->count)));
                merged = fit;
            }
            mine = merged;
        } else {
            mine->ok = 0;    /* the rest of the way up carries only the failure */
            mine->count = 0;
        }
        free(got);
        mw_phase_hold(-(long long)bytes);
        rc = MPI_SUCCESS;
    }
    *table = mine;
    return rc;
}

int mw_callsites_gather(MPI_Comm comm, mw_site_summary **sites, int *nsites, uint64_t *other)
{
    static mw_site_record mine[MW_SITES_PER_RANK];
    int world = mw_state.world_size, root = mw_state.world_rank == 0;
    uint64_t my_other = 0;
    int count = local_records(mine, &my_other), rc;
    static table_head failed;
    table_head *table = own_table(mine, count, my_other);

    *sites = NULL;
    *nsites = 0;
    *other = 0;
    if (table == NULL) {   /* no memory: pass the failure up the tree */
        failed = (table_head){0, 0, 0};
        table = &failed;
    }
    rc = tree_merge(comm, &table);
    if (root && rc == MPI_SUCCESS && table->ok) {
        *sites = summaries((const partial *)(table + 1), (int)table->count, world);
        if (*sites != NULL) {
            *nsites = (int)table->count;
            *other = table->other;
        }
    }
    if (table != &failed)
        free(table);
    return rc;
}

/* This rank's sites alone, as a one-rank job's (a partial profile): no MPI
 * call. */
void mw_callsites_local(mw_site_summary **sites, int *nsites, uint64_t *other)
{
    static mw_site_record mine[MW_SITES_PER_RANK];
    int count = local_records(mine, other);
    table_head *table = own_table(mine, count, *other);
    *sites = table != NULL ? summaries((const partial *)(table + 1), count, 1) : NULL;
    *nsites = *sites != NULL ? count : 0;
    if (table != NULL)
        mw_phase_hold(-(long long)table_bytes(count));   /* own_table counted it */
    free(table);
}
