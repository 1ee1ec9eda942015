/* Wait states (client/wait_states.h, docs/wait-states.md): the analysis's
 * entry point and the causes; the matching is client/wait_match.c. */
#include "wait_states.h"

#include <stdlib.h>
#include <string.h>

#include "wait_functions.h"
#include "wait_match.h"

const char *mww_pattern_name(int pattern)
{
    static const char *const names[MWW_PATTERNS] = {
        "Late Sender", "Late Receiver", "Wait at N x N", "Wait at Barrier",
        "Late Broadcast", "Early Reduce"};
    return pattern >= 0 && pattern < MWW_PATTERNS ? names[pattern] : "?";
}

const char *mww_pattern_key(int pattern)
{
    static const char *const keys[MWW_PATTERNS] = {
        "late_sender", "late_receiver", "wait_nxn", "wait_barrier",
        "late_broadcast", "early_reduce"};
    return pattern >= 0 && pattern < MWW_PATTERNS ? keys[pattern] : "?";
}

int mww_previous_calls(const mww_rank *r, size_t **out)
{
    *out = NULL;
    if (r->ncalls == 0)
        return 0;
    size_t *prev = calloc(r->ncalls, sizeof *prev);
    uint32_t *thread = NULL;
    size_t *last = NULL, nthreads = 0;
    if (prev == NULL)
        return -1;
    for (size_t i = 0; i < r->ncalls; i++) {
        size_t t = 0;
        while (t < nthreads && thread[t] != r->calls[i].thread)
            t++;
        if (t == nthreads) {
            uint32_t *th = realloc(thread, (nthreads + 1) * sizeof *th);
            size_t *la = th ? realloc(last, (nthreads + 1) * sizeof *la) : NULL;
            if (th != NULL)
                thread = th;
            if (la == NULL) {
                free(thread);
                free(last);
                free(prev);
                return -1;
            }
            last = la;
            thread[nthreads] = r->calls[i].thread;
            last[nthreads++] = 0;
        }
        prev[i] = last[t];
        last[t] = i + 1;
    }
    free(thread);
    free(last);
    *out = prev;
    return 0;
}

/* Each call's previous call on the same thread. */
static int link_previous(mww_analysis *a)
{
    a->prev = calloc((size_t)a->nranks, sizeof *a->prev);
    if (a->prev == NULL)
        return -1;
    for (int k = 0; k < a->nranks; k++)
        if (mww_previous_calls(&a->ranks[k], &a->prev[k]) != 0)
            return -1;
    return 0;
}

/* ------------------------------------------------------------ causes */

static const mww_call *late_call(const mww_analysis *a, const mww_wait *w)
{
    return &a->ranks[w->rank].calls[w->call];
}

mww_prev mww_previous(const mww_analysis *a, int rank, size_t call)
{
    const mww_rank *r = &a->ranks[rank];
    if (r->prev != NULL)
        return r->prev[call];
    size_t p = a->prev[rank][call];
    return p ? (mww_prev){r->calls[p - 1].function, r->calls[p - 1].site, r->calls[p - 1].leave}
             : (mww_prev){NULL, 0, 0};
}

/* The late call's previous call on its thread; function NULL: none. */
static mww_prev previous_call(const mww_analysis *a, const mww_wait *w)
{
    return mww_previous(a, w->rank, w->call);
}

static const mww_analysis *sort_analysis;

static int by_cause(const void *pa, const void *pb)
{
    const mww_wait *x = pa, *y = pb;
    const mww_analysis *a = sort_analysis;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    const mww_call *cx = late_call(a, x), *cy = late_call(a, y);
    if (cx->site != cy->site)
        return cx->site < cy->site ? -1 : 1;
    int f = strcmp(cx->function, cy->function);
    if (f != 0)
        return f;
    mww_prev px = previous_call(a, x), py = previous_call(a, y);
    uint64_t sx = px.function ? px.site : 0, sy = py.function ? py.site : 0;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    f = strcmp(px.function ? px.function : "", py.function ? py.function : "");
    if (f != 0)
        return f;
    return x->victim - y->victim;
}

static const mww_cause *sort_causes;

/* Indices into sort_causes, largest waiting first. */
int mww_cause_order(const void *pa, const void *pb)
{
    const mww_cause *x = pa, *y = pb;
    if (x->direct != y->direct)
        return x->direct > y->direct ? -1 : 1;
    if (x->waiting != y->waiting)
        return x->waiting > y->waiting ? -1 : 1;
    return x->rank - y->rank;
}

static int by_waiting(const void *pa, const void *pb)
{
    return mww_cause_order(&sort_causes[*(const size_t *)pa], &sort_causes[*(const size_t *)pb]);
}

static int gather_causes(mww_analysis *a, mww_result *res)
{
    sort_analysis = a;
    qsort(a->waits, a->nwaits, sizeof *a->waits, by_cause);
    size_t room = a->nwaits ? a->nwaits : 1;
    mww_cause *grouped = malloc(room * sizeof *grouped);
    size_t *order = malloc(room * sizeof *order), *place = malloc(room * sizeof *place);
    res->causes = malloc(room * sizeof *res->causes);
    if (grouped == NULL || order == NULL || place == NULL || res->causes == NULL) {
        free(grouped);
        free(order);
        free(place);
        return -1;
    }
    size_t ngroups = 0;
    for (size_t i = 0; i < a->nwaits;) {
        const mww_wait *w = &a->waits[i];
        const mww_call *late = late_call(a, w);
        mww_prev prev = previous_call(a, w);
        mww_cause c = {w->rank, w->pattern, late->function, late->site,
                       prev.function, prev.function ? prev.site : 0, 0, 0, 0, 0};
        size_t j = i;
        int last_victim = -1;
        while (j < a->nwaits) {
            mww_wait *x = &a->waits[j];
            mww_wait probe = *w;
            probe.victim = x->victim;   /* the same cause whatever the victim */
            if (by_cause(&probe, x) != 0)
                break;
            c.waiting += x->seconds;
            c.direct += x->direct;
            c.instances++;
            c.waiting_ranks += x->victim != last_victim;
            last_victim = x->victim;
            x->cause = ngroups;
            j++;
        }
        order[ngroups] = ngroups;
        grouped[ngroups++] = c;
        i = j;
    }
    sort_causes = grouped;
    qsort(order, ngroups, sizeof *order, by_waiting);
    for (size_t k = 0; k < ngroups; k++) {
        res->causes[k] = grouped[order[k]];
        place[order[k]] = k;
    }
    res->ncauses = ngroups;
    for (size_t i = 0; i < a->nwaits; i++)
        a->waits[i].cause = place[a->waits[i].cause];
    free(grouped);
    free(order);
    free(place);
    return 0;
}

/* A rank's MPI time: its calls' durations (but MPI_Init's and
 * MPI_Finalize's), and in a polling loop the time between its polls too,
 * since the loop's wait state runs from its first poll's entry
 * (wait_match.c): the waiting is then never more than the MPI time (a
 * loaded node's long gaps between polls made it 100.7%). */
static double mpi_time_of(const mww_rank *r)
{
    double t = 0;
    for (size_t i = 0; i < r->ncalls; i++) {
        const mww_call *c = &r->calls[i];
        if (c->leave > c->enter && mww_fn_mpi_time(c->function))
            t += c->leave - c->enter;
        size_t first = c->polls;
        if (first == 0 || first - 1 >= i)
            continue;
        double gaps = c->leave - r->calls[first - 1].enter;
        for (size_t m = first - 1; m <= i; m++)   /* the loop: this thread's calls in it */
            if (r->calls[m].thread == c->thread && r->calls[m].leave > r->calls[m].enter)
                gaps -= r->calls[m].leave - r->calls[m].enter;
        t += gaps > 0 ? gaps : 0;
    }
    return t;
}

int mww_analyze(const mww_rank *ranks, int nranks, const mww_options *opt, mww_result *res)
{
    memset(res, 0, sizeof *res);
    mww_analysis a = {ranks, nranks, NULL, NULL, 0, 0, opt->victim, 0};
    int rc = -1;
    res->rank_waiting = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *res->rank_waiting);
    res->rank_caused = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *res->rank_caused);
    if (res->rank_waiting == NULL || res->rank_caused == NULL || link_previous(&a) != 0 ||
        mww_match_messages(&a, opt, res) != 0)
        goto out;
    if (opt->instances != NULL)
        mww_given_instances(&a, opt->instances, opt->ninstances);
    else if (mww_match_collectives(&a, res) != 0)
        goto out;
    if (a.oom || gather_causes(&a, res) != 0)
        goto out;
    for (int k = 0; k < nranks; k++)
        if (opt->victim == NULL || k == *opt->victim)
            res->mpi_time += mpi_time_of(&ranks[k]);
    for (size_t i = 0; i < a.nwaits; i++) {
        const mww_wait *w = &a.waits[i];
        res->waiting += w->seconds;
        res->direct += w->direct;
        res->pattern_time[w->pattern] += w->seconds;
        res->pattern_count[w->pattern]++;
        res->rank_waiting[w->victim] += w->seconds;
        res->rank_caused[w->rank] += w->seconds;
    }
    if (opt->details) {
        res->waits = a.waits;
        res->nwaits = a.nwaits;
        a.waits = NULL;
    }
    rc = 0;
out:
    if (a.prev != NULL)
        for (int k = 0; k < nranks; k++)
            free(a.prev[k]);
    free(a.prev);
    free(a.waits);
    if (rc != 0)
        mww_result_free(res);
    return rc;
}

void mww_result_free(mww_result *r)
{
    free(r->rank_waiting);
    free(r->rank_caused);
    free(r->causes);
    free(r->waits);
    free(r->matched);
    memset(r, 0, sizeof *r);
}
