/* The wait-state analysis at MPI_Finalize, each rank its own waiting
 * (report/wait_finalize.h). */
#include "report/wait_finalize.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/state.h"
#include "core/warn.h"
#include "core/yielding_collectives.h"
#include "mw_functions.h"
#include "report/callsites.h"
#include "trace/trace.h"
#include "trace_comms.h"
#include "wait_functions.h"
#include "wait_input.h"
#include "wait_match.h"

/* A call as shipped to a peer, or as one rank's part of a collective
 * instance: times on rank 0's clock, the function as this build's id, the
 * sites as module and offset (the same in every rank). */
typedef struct {
    double enter, leave, prev_leave;
    uint64_t bytes;
    mw_wait_site site, prev_site;
    int32_t fn, prev_fn;       /* -1: unknown; prev_fn -1: no previous call */
    int32_t peer, tag, comm, root;
    uint32_t thread;
    int32_t completed_by;      /* within the shipment, + 1; 0 none */
    int32_t recv_peer, recv_tag;   /* a send-receive's receive half (mww_call) */
} wire_call;

/* One collective instance combined over its ranks: the last to enter, the
 * last of those that are not the root, and the root. */
typedef struct {
    wire_call last, last_other, root_call;
    int32_t last_rank, last_other_rank, root_rank;
    int32_t pattern_min, pattern_max, first_member;
} instance_rec;

typedef struct {
    mwc_trace_rank trace;
    mww_call *calls;           /* on rank 0's clock, sites still addresses */
    size_t *prev;              /* each call's previous on its thread, + 1 */
    int *fn;                   /* this build's id of each trace name; -1 unknown */
    uint64_t *addresses;       /* the distinct sites, sorted */
    mw_wait_site *named;       /* their module and offset */
    size_t naddresses;
} own_trace;

/* ------------------------------------------------------------ sites */

static int by_address(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int by_site(const void *a, const void *b)
{
    const mw_wait_site *x = a, *y = b;
    if (x->module != y->module)
        return x->module < y->module ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The module and offset of each distinct site of this rank's calls, found
 * once each (dl_iterate_phdr is not cheap). */
static int name_own_sites(own_trace *o)
{
    size_t n = o->trace.ncalls;
    o->addresses = malloc((n ? n : 1) * sizeof *o->addresses);
    if (o->addresses == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        o->addresses[i] = o->calls[i].site;
    qsort(o->addresses, n, sizeof *o->addresses, by_address);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || o->addresses[kept - 1] != o->addresses[i])
            o->addresses[kept++] = o->addresses[i];
    o->naddresses = kept;
    o->named = calloc(kept ? kept : 1, sizeof *o->named);
    if (o->named == NULL)
        return -1;
    for (size_t i = 0; i < kept; i++)
        if (o->addresses[i] == 0 ||
            !mw_module_of((uintptr_t)o->addresses[i], &o->named[i].module, &o->named[i].offset))
            o->named[i] = (mw_wait_site){0, o->addresses[i]};
    return 0;
}

static mw_wait_site own_site(const own_trace *o, uint64_t address)
{
    const uint64_t *at = bsearch(&address, o->addresses, o->naddresses, sizeof address,
                                 by_address);
    return at ? o->named[at - o->addresses] : (mw_wait_site){0, address};
}

/* The table every site of the analysis indexes (+ 1): sorted, distinct. */
typedef struct {
    mw_wait_site *v;
    size_t n, cap;
} site_table;

static int table_add(site_table *t, mw_wait_site s)
{
    if (t->n == t->cap) {
        size_t c = t->cap ? 2 * t->cap : 256;
        mw_wait_site *more = realloc(t->v, c * sizeof *more);
        if (more == NULL)
            return -1;
        t->v = more;
        t->cap = c;
    }
    t->v[t->n++] = s;
    return 0;
}

static void table_seal(site_table *t)
{
    qsort(t->v, t->n, sizeof *t->v, by_site);
    size_t kept = 0;
    for (size_t i = 0; i < t->n; i++)
        if (kept == 0 || by_site(&t->v[kept - 1], &t->v[i]) != 0)
            t->v[kept++] = t->v[i];
    t->n = kept;
}

static uint64_t table_index(const site_table *t, mw_wait_site s)
{
    const mw_wait_site *at = bsearch(&s, t->v, t->n, sizeof s, by_site);
    return at ? (uint64_t)(at - t->v) + 1 : 0;
}

/* ------------------------------------------------------------ this rank */

static int function_ids(own_trace *o)
{
    o->fn = malloc((o->trace.nnames ? (size_t)o->trace.nnames : 1) * sizeof *o->fn);
    if (o->fn == NULL)
        return -1;
    for (int i = 0; i < o->trace.nnames; i++) {
        o->fn[i] = -1;
        for (int id = 0; id < MW_FN_COUNT && o->trace.names[i] != NULL; id++)
            if (strcmp(mw_fn_names[id], o->trace.names[i]) == 0)
                o->fn[i] = id;
    }
    return 0;
}

/* Rank 0's clock, which the trace files' sync points map every rank's onto. */
typedef struct {
    double per_second;
    uint64_t origin, wall_ns;
    int ok;
} zero_clock;

static int read_own(own_trace *o)
{
    const char *path = mw_trace_file();
    char err[4800];
    err[0] = '\0';
    if (path == NULL || mwc_trace_read_file(path, &o->trace, err, sizeof err) != 0 ||
        err[0] != '\0') {
        mw_warn("the wait-state analysis could not read this rank's trace back (%s)",
                path == NULL ? "the trace is off, or writing it failed" : err);
        return -1;
    }
    /* communicators by the key every member gives them, not by this rank's handles */
    if (mwc_trace_key_comms(&o->trace) != 0) {
        mw_warn("the wait-state analysis ran out of memory naming this rank's communicators");
        return -1;
    }
    return 0;
}

/* This rank's calls on rank 0's clock (client/trace_job.h), their
 * functions, previous calls and sites. */
static int prepare_own(own_trace *o, const zero_clock *z)
{
    mwc_trace_rank zero = {0};
    zero.path = (char *)"rank 0";
    zero.per_second = z->per_second;
    zero.origin = z->origin;
    zero.wall_ns = z->wall_ns;
    mwc_trace_job job = {mw_state.world_rank == 0 ? &o->trace : &zero, 1, z->wall_ns, 0, NULL, 0};
    if (mwc_wait_rank_calls(&job, &o->trace, &o->calls) != 0 || function_ids(o) != 0)
        return -1;
    mww_rank view = {o->calls, o->trace.ncalls, NULL};
    if (mww_previous_calls(&view, &o->prev) != 0 || name_own_sites(o) != 0)
        return -1;
    return 0;
}

static wire_call to_wire(const own_trace *o, size_t i)
{
    const mww_call *c = &o->calls[i];
    size_t p = o->prev != NULL ? o->prev[i] : 0;
    wire_call w = {c->enter, c->leave, 0, c->bytes, own_site(o, c->site), {0, 0},
                   o->fn[o->trace.calls[i].fn], -1, c->peer, c->tag, c->comm, c->root,
                   c->thread, 0, c->recv_peer, c->recv_tag};
    if (p != 0) {
        w.prev_fn = o->fn[o->trace.calls[p - 1].fn];
        w.prev_site = own_site(o, o->calls[p - 1].site);
        w.prev_leave = o->calls[p - 1].leave;
    }
    return w;
}

static int is_message_call(const char *f)
{
    return mww_fn_send(f) || mww_fn_blocking_receive(f) || mww_fn_nonblocking_receive(f) ||
           mww_fn_send_receive(f) || mww_fn_other_receive(f);
}

/* ------------------------------------------------------------ messages */

/* What each peer needs of this rank's calls: its sends to the peer and
 * receives from it (a non-blocking one with the call that completed it),
 * and the first call on each communicator that hides the order of its
 * receives. Shipped with one MPI_Alltoallv; *got and *counts (by rank,
 * calls) are what the peers shipped here. */
typedef struct {
    size_t *v;
    size_t n, cap;
} index_list;

static int list_add(index_list *l, size_t i)
{
    if (l->n == l->cap) {
        size_t c = l->cap ? 2 * l->cap : 16;
        size_t *more = realloc(l->v, c * sizeof *more);
        if (more == NULL)
            return -1;
        l->v = more;
        l->cap = c;
    }
    l->v[l->n++] = i;
    return 0;
}

static int by_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Per peer counts and displacements for the exchange (allocated before
 * the ranks agree to analyse, so that no rank drops out half-way). */
typedef struct {
    int *sendc, *recvc, *sdis, *rdis;
} peer_arrays;

/* Whether every rank of comm says ok (a collective agreement). */
static int all_ok(int ok, MPI_Comm comm)
{
    int all = 0;
    return mw_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm) == MPI_SUCCESS && all;
}

static int exchange_messages(const own_trace *o, int size, MPI_Comm comm, const peer_arrays *pa,
                             wire_call **got)
{
    index_list *to = calloc((size_t)size, sizeof *to), hiding = {NULL, 0, 0};
    wire_call *out = NULL;
    int ok = 0;
    *got = NULL;
    memset(pa->sendc, 0, (size_t)size * sizeof *pa->sendc);
    if (to == NULL)
        goto agree;
    for (size_t i = 0; i < o->trace.ncalls; i++) {
        const mww_call *c = &o->calls[i];
        if (!is_message_call(c->function))
            continue;
        if (mww_hides_order(c, o->trace.ncalls)) {
            size_t h = 0;
            while (h < hiding.n && o->calls[hiding.v[h]].comm != c->comm)
                h++;
            if (h == hiding.n && list_add(&hiding, i) != 0)
                goto agree;
        }
        if (c->peer >= 0 && c->peer < size) {
            if (list_add(&to[c->peer], i) != 0)
                goto agree;
            if (c->completed_by != 0 && list_add(&to[c->peer], c->completed_by - 1) != 0)
                goto agree;
        }
        /* a send-receive's receive half: its source matches it too */
        if (c->recv_peer >= 0 && c->recv_peer < size && c->recv_peer != c->peer &&
            list_add(&to[c->recv_peer], i) != 0)
            goto agree;
    }
    size_t total = 0;
    for (int p = 0; p < size; p++) {
        if (to[p].n == 0 && hiding.n == 0)
            continue;
        for (size_t h = 0; h < hiding.n; h++)
            if (list_add(&to[p], hiding.v[h]) != 0)
                goto agree;
        qsort(to[p].v, to[p].n, sizeof *to[p].v, by_index);
        size_t kept = 0;
        for (size_t i = 0; i < to[p].n; i++)
            if (kept == 0 || to[p].v[kept - 1] != to[p].v[i])
                to[p].v[kept++] = to[p].v[i];
        to[p].n = kept;
        total += kept;
    }
    if (total * sizeof(wire_call) > INT_MAX) {
        mw_warn("the wait-state analysis has too many messages to ship (%zu calls)", total);
        goto agree;
    }
    out = malloc((total ? total : 1) * sizeof *out);
    if (out == NULL)
        goto agree;
    size_t at = 0;
    for (int p = 0; p < size; p++) {
        pa->sdis[p] = (int)(at * sizeof *out);
        pa->sendc[p] = (int)(to[p].n * sizeof *out);
        for (size_t k = 0; k < to[p].n; k++) {
            size_t i = to[p].v[k], done = o->calls[i].completed_by;
            const size_t *in = done ? bsearch(&(size_t){done - 1}, to[p].v, to[p].n,
                                              sizeof *to[p].v, by_index)
                                    : NULL;
            out[at + k] = to_wire(o, i);
            out[at + k].completed_by = in ? (int32_t)(in - to[p].v) + 1 : 0;
        }
        at += to[p].n;
    }
    ok = 1;
agree:
    for (int p = 0; to != NULL && p < size; p++)
        free(to[p].v);
    free(to);
    free(hiding.v);
    /* Collective whatever happened here: the counts, then the calls if
     * every rank has room for what it gets. */
    if (!ok)
        memset(pa->sendc, 0, (size_t)size * sizeof *pa->sendc);
    if (PMPI_Alltoall(pa->sendc, 1, MPI_INT, pa->recvc, 1, MPI_INT, comm) != MPI_SUCCESS)
        ok = 0;
    size_t incoming = 0;
    for (int p = 0; p < size; p++) {
        pa->rdis[p] = (int)incoming;
        incoming += (size_t)pa->recvc[p];
    }
    if (ok && (incoming > INT_MAX || (*got = malloc(incoming ? incoming : 1)) == NULL))
        ok = 0;
    if (!all_ok(ok, comm) ||
        PMPI_Alltoallv(out, pa->sendc, pa->sdis, MPI_BYTE, *got, pa->recvc, pa->rdis, MPI_BYTE,
                       comm) != MPI_SUCCESS) {
        free(out);
        free(*got);
        *got = NULL;
        return -1;
    }
    for (int p = 0; p < size; p++)
        pa->recvc[p] /= (int)sizeof(wire_call);
    free(out);
    return 0;
}

/* ------------------------------------------------------------ collectives */

/* A rank's collective calls in the order wait_match.c numbers them: by
 * entry, per communicator. */
static const mww_call *sort_calls;

static int by_entry(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (sort_calls[x].enter != sort_calls[y].enter)
        return sort_calls[x].enter < sort_calls[y].enter ? -1 : 1;
    return x < y ? -1 : x > y;
}

typedef struct {
    int64_t comm, count;
} comm_count;

static int by_comm(const void *a, const void *b)
{
    const comm_count *x = a, *y = b;
    return x->comm < y->comm ? -1 : x->comm > y->comm;
}

/* The instances every rank agrees on: per communicator value (its key,
 * mwc_trace_key_comms: alike on every member), the number of complete ones (every
 * member reached them; calls without a communicator only when every rank
 * made as many) and where they start among all. */
typedef struct {
    comm_count *comms;         /* distinct values, sorted; count: complete instances */
    int64_t *first;            /* each one's first instance's index */
    size_t ncomms;
    size_t ninstances;
    long incomplete;           /* instances some member did not reach */
} instance_plan;

static int plan_instances(const comm_count *mine, int nmine, int size, MPI_Comm comm,
                          instance_plan *plan)
{
    int most = 0;
    memset(plan, 0, sizeof *plan);
    if (mw_allreduce(&nmine, &most, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
        return -1;
    if (most == 0)
        return 0;
    comm_count *pad = malloc((size_t)most * sizeof *pad);
    comm_count *all = malloc((size_t)most * (size_t)size * sizeof *all);
    int ok = pad != NULL && all != NULL;
    for (int i = 0; ok && i < most; i++)
        pad[i] = i < nmine ? mine[i] : (comm_count){INT64_MIN, 0};
    if (!all_ok(ok, comm) ||
        PMPI_Allgather(pad, 2 * most, MPI_INT64_T, all, 2 * most, MPI_INT64_T, comm) !=
            MPI_SUCCESS) {
        free(pad);
        free(all);
        return -1;
    }
    size_t n = (size_t)most * (size_t)size;
    qsort(all, n, sizeof *all, by_comm);
    plan->comms = malloc(n * sizeof *plan->comms);
    plan->first = malloc(n * sizeof *plan->first);
    ok = plan->comms != NULL && plan->first != NULL;
    for (size_t i = 0; ok && i < n;) {
        size_t end = i;
        int64_t fewest = INT64_MAX, largest = 0;
        while (end < n && all[end].comm == all[i].comm) {
            fewest = all[end].count < fewest ? all[end].count : fewest;
            largest = all[end].count > largest ? all[end].count : largest;
            end++;
        }
        if (all[i].comm != INT64_MIN) {
            int64_t complete = all[i].comm != -1 || fewest == largest ? fewest : 0;
            plan->first[plan->ncomms] = (int64_t)plan->ninstances;
            plan->comms[plan->ncomms++] = (comm_count){all[i].comm, complete};
            plan->ninstances += (size_t)complete;
            plan->incomplete += (long)(largest - complete);
        }
        i = end;
    }
    free(pad);
    free(all);
    return all_ok(ok, comm) ? 0 : -1;
}

static void pick_later(wire_call *into, int32_t *into_rank, const wire_call *from, int32_t rank)
{
    if (rank < 0)
        return;
    if (*into_rank < 0 || from->enter > into->enter ||
        (from->enter == into->enter && rank < *into_rank)) {
        *into = *from;
        *into_rank = rank;
    }
}

static void combine(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const instance_rec *a = in;
    instance_rec *b = inout;
    for (int i = 0; i < *len; i++, a++, b++) {
        pick_later(&b->last, &b->last_rank, &a->last, a->last_rank);
        pick_later(&b->last_other, &b->last_other_rank, &a->last_other, a->last_other_rank);
        pick_later(&b->root_call, &b->root_rank, &a->root_call, a->root_rank);
        b->pattern_min = a->pattern_min < b->pattern_min ? a->pattern_min : b->pattern_min;
        b->pattern_max = a->pattern_max > b->pattern_max ? a->pattern_max : b->pattern_max;
        b->first_member = a->first_member < b->first_member ? a->first_member : b->first_member;
    }
}

/* Each instance's last entry, last non-root entry and root, over its ranks:
 * one reduction. *recs (plan->ninstances) and *mine (this rank's call in
 * each, SIZE_MAX when not a member; malloc'd). */
static int reduce_instances(const own_trace *o, int size, MPI_Comm comm, instance_plan *plan,
                            instance_rec **recs, size_t **mine)
{
    int me = mw_state.world_rank, nmine = 0;
    size_t n = o->trace.ncalls, ncoll = 0;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    comm_count *counts = malloc((n ? n : 1) * sizeof *counts);
    *recs = NULL;
    *mine = NULL;
    int ok = order != NULL && counts != NULL;
    for (size_t i = 0; ok && i < n; i++)
        if (mww_fn_collective_pattern(o->calls[i].function) >= 0)
            order[ncoll++] = i;
    if (ok) {
        sort_calls = o->calls;
        qsort(order, ncoll, sizeof *order, by_entry);
    }
    for (size_t k = 0; ok && k < ncoll; k++) {
        int at = 0;
        while (at < nmine && counts[at].comm != o->calls[order[k]].comm)
            at++;
        if (at == nmine)
            counts[nmine++] = (comm_count){o->calls[order[k]].comm, 0};
        counts[at].count++;
    }
    if (!ok)
        nmine = 0;
    qsort(counts, (size_t)nmine, sizeof *counts, by_comm);
    int rc = plan_instances(counts, ok ? nmine : 0, size, comm, plan);
    size_t ni = plan->ninstances;
    if (rc == 0 && ni != 0) {
        *recs = malloc(ni * sizeof **recs);
        *mine = malloc(ni * sizeof **mine);
        ok = ok && *recs != NULL && *mine != NULL;
        for (size_t g = 0; ok && g < ni; g++) {
            (*mine)[g] = SIZE_MAX;
            (*recs)[g] = (instance_rec){.last_rank = -1, .last_other_rank = -1, .root_rank = -1,
                                        .pattern_min = INT32_MAX, .pattern_max = INT32_MIN,
                                        .first_member = INT32_MAX};
        }
        for (int c = 0; ok && c < nmine; c++)
            counts[c].count = 0;   /* now the sequence number on each */
        for (size_t k = 0; ok && k < ncoll; k++) {
            const mww_call *call = &o->calls[order[k]];
            int at = 0;
            while (counts[at].comm != call->comm)
                at++;
            int64_t seq = counts[at].count++;
            const comm_count *pc = bsearch(&counts[at], plan->comms, plan->ncomms,
                                           sizeof *plan->comms, by_comm);
            if (pc == NULL || seq >= pc->count)
                continue;
            size_t g = (size_t)(plan->first[pc - plan->comms] + seq);
            instance_rec *r = &(*recs)[g];
            wire_call w = to_wire(o, order[k]);
            int pattern = mww_fn_collective_pattern(call->function);
            (*mine)[g] = order[k];
            pick_later(&r->last, &r->last_rank, &w, me);
            if (call->root == me)
                pick_later(&r->root_call, &r->root_rank, &w, me);
            else
                pick_later(&r->last_other, &r->last_other_rank, &w, me);
            r->pattern_min = r->pattern_max = pattern;
            r->first_member = me;
        }
        MPI_Datatype type;
        MPI_Op op;
        if (!all_ok(ok, comm)) {
            rc = -1;
        } else if (PMPI_Type_contiguous((int)sizeof(instance_rec), MPI_BYTE, &type) !=
                   MPI_SUCCESS) {
            rc = -1;
        } else {
            PMPI_Type_commit(&type);
            PMPI_Op_create(combine, 1, &op);
            rc = PMPI_Allreduce(MPI_IN_PLACE, *recs, (int)ni, type, op, comm) == MPI_SUCCESS
                     ? 0
                     : -1;
            PMPI_Op_free(&op);
            PMPI_Type_free(&type);
        }
    }
    free(order);
    free(counts);
    return rc;
}

/* ------------------------------------------------------------ the analysis */

/* A peer's calls as this rank's analysis sees them: what it shipped, and
 * its part in the collective instances shared with this rank. */
typedef struct {
    mww_call *calls;
    mww_prev *prev;
    size_t n, cap;
} ghost_list;

static size_t ghost_add(ghost_list *g, const wire_call *w, const site_table *t, size_t base)
{
    if (g->n == g->cap) {
        size_t c = g->cap ? 2 * g->cap : 16;
        mww_call *calls = realloc(g->calls, c * sizeof *calls);
        if (calls != NULL)
            g->calls = calls;
        mww_prev *prev = calls ? realloc(g->prev, c * sizeof *prev) : NULL;
        if (prev == NULL)
            return SIZE_MAX;
        g->prev = prev;
        g->cap = c;
    }
    g->calls[g->n] = (mww_call){w->fn >= 0 ? mw_fn_names[w->fn] : "?", w->enter, w->leave,
                                w->peer, w->tag, w->comm, w->root, w->bytes,
                                table_index(t, w->site), w->thread,
                                w->completed_by ? base + (size_t)w->completed_by : 0,
                                0,   /* polls: a peer's waiting is not measured here */
                                w->recv_peer, w->recv_tag};
    g->prev[g->n] = (mww_prev){w->prev_fn >= 0 ? mw_fn_names[w->prev_fn] : NULL,
                               table_index(t, w->prev_site), w->prev_leave};
    return g->n++;
}

static int table_add_wire(site_table *t, const wire_call *w)
{
    return table_add(t, w->site) != 0 || table_add(t, w->prev_site) != 0 ? -1 : 0;
}

/* The sites of every call the analysis sees: this rank's and the peers'. */
static int fill_table(site_table *t, const own_trace *o, const wire_call *got, size_t ngot,
                      const instance_rec *recs, size_t ni)
{
    for (size_t i = 0; i < o->naddresses; i++)
        if (table_add(t, o->named[i]) != 0)
            return -1;
    for (size_t i = 0; i < ngot; i++)
        if (table_add_wire(t, &got[i]) != 0)
            return -1;
    for (size_t g = 0; g < ni; g++)
        if (table_add_wire(t, &recs[g].last) != 0 || table_add_wire(t, &recs[g].last_other) != 0 ||
            table_add_wire(t, &recs[g].root_call) != 0)
            return -1;
    table_seal(t);
    return 0;
}

/* This rank's member list of instance g: its own call and the peers'
 * calls that decide its waiting (their ghosts). */
static int instance_members(const instance_rec *r, size_t own_call, ghost_list *ghosts,
                            const site_table *t, mww_member *m, size_t *n)
{
    int me = mw_state.world_rank;
    const wire_call *calls[3] = {&r->last, &r->last_other, &r->root_call};
    const int32_t ranks[3] = {r->last_rank, r->last_other_rank, r->root_rank};
    m[0] = (mww_member){me, own_call};
    *n = 1;
    for (int k = 0; k < 3; k++) {
        int dup = ranks[k] < 0 || ranks[k] == me;
        for (size_t j = 0; j < *n; j++)
            dup |= m[j].rank == ranks[k];
        if (dup)
            continue;
        size_t at = ghost_add(&ghosts[ranks[k]], calls[k], t, 0);
        if (at == SIZE_MAX)
            return -1;
        m[(*n)++] = (mww_member){ranks[k], at};
    }
    return 0;
}

/* The timeline's part of this rank: its calls and the messages it received,
 * while the peers' calls (the views) are at hand. */
static int keep_timeline(const own_trace *o, const mww_rank *view, mw_wait_local *out)
{
    int me = mw_state.world_rank;
    size_t n = o->trace.ncalls, m = 0;
    out->timeline_calls = malloc((n ? n : 1) * sizeof *out->timeline_calls);
    out->timeline_messages = malloc((out->result.nmatched ? out->result.nmatched : 1) *
                                    sizeof *out->timeline_messages);
    if (out->timeline_calls == NULL || out->timeline_messages == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        out->timeline_calls[i] = (mw_timeline_call){o->fn[o->trace.calls[i].fn],
                                                    o->calls[i].enter, o->calls[i].leave};
    for (size_t i = 0; i < out->result.nmatched; i++) {
        const mww_message *g = &out->result.matched[i];
        if (g->recv_rank == me)   /* each message once: at its receiver */
            out->timeline_messages[m++] = (mw_timeline_message){
                g->send_rank, view[g->send_rank].calls[g->send_call].enter, g->recv_call};
    }
    out->timeline_nmessages = m;
    return 0;
}

static int analyze(own_trace *o, int size, const wire_call *got, const int *counts,
                   const instance_plan *plan, const instance_rec *recs, const size_t *mine,
                   int details, mw_wait_local *out)
{
    int me = mw_state.world_rank, rc = -1;
    size_t ni = plan->ninstances, ngot = 0;
    for (int p = 0; p < size; p++)
        ngot += (size_t)counts[p];
    site_table t = {NULL, 0, 0};
    ghost_list *ghosts = calloc((size_t)size, sizeof *ghosts);
    mww_rank *view = calloc((size_t)size, sizeof *view);
    mww_member *members = malloc((ni ? ni : 1) * 4 * sizeof *members);
    mww_instance *inst = malloc((ni ? ni : 1) * sizeof *inst);
    if (ghosts == NULL || view == NULL || members == NULL || inst == NULL ||
        fill_table(&t, o, got, ngot, recs, ni) != 0)
        goto out;
    for (size_t i = 0; i < o->trace.ncalls; i++)
        o->calls[i].site = table_index(&t, own_site(o, o->calls[i].site));
    const wire_call *w = got;
    for (int p = 0; p < size; p++)
        for (int k = 0; k < counts[p]; k++, w++)
            if (p != me && ghost_add(&ghosts[p], w, &t, ghosts[p].n - (size_t)k) == SIZE_MAX)
                goto out;
    size_t ninst = 0;
    for (size_t g = 0; g < ni; g++) {
        if (mine[g] == SIZE_MAX)
            continue;
        const instance_rec *r = &recs[g];
        if (r->pattern_min != r->pattern_max) {
            out->incomplete_collectives += r->first_member == me;
            continue;
        }
        out->extra_collectives += r->first_member == me;
        inst[ninst].members = &members[4 * ninst];
        if (instance_members(r, mine[g], ghosts, &t, &members[4 * ninst], &inst[ninst].n) != 0)
            goto out;
        ninst++;
    }
    for (int p = 0; p < size; p++)
        view[p] = p == me ? (mww_rank){o->calls, o->trace.ncalls, NULL}
                          : (mww_rank){ghosts[p].calls, ghosts[p].n, ghosts[p].prev};
    mww_options opt = {MWW_RENDEZVOUS_BYTES_DEFAULT, details, &me, inst, ninst};
    if (mww_analyze(view, size, &opt, &out->result) != 0 ||
        (details && keep_timeline(o, view, out) != 0))
        goto out;
    out->sites = t.v;
    out->nsites = t.n;
    t.v = NULL;
    rc = 0;
out:
    for (int p = 0; ghosts != NULL && p < size; p++) {
        free(ghosts[p].calls);
        free(ghosts[p].prev);
    }
    free(ghosts);
    free(view);
    free(members);
    free(inst);
    free(t.v);
    return rc;
}

static void own_free(own_trace *o)
{
    mwc_trace_rank_free(&o->trace);
    free(o->calls);
    free(o->prev);
    free(o->fn);
    free(o->addresses);
    free(o->named);
}

void mw_wait_analyze_local(MPI_Comm comm, int details, mw_wait_local *out)
{
    int size = mw_state.world_size;
    own_trace o;
    zero_clock z = {0, 0, 0, 0};
    peer_arrays pa = {calloc((size_t)size, sizeof(int)), calloc((size_t)size, sizeof(int)),
                      calloc((size_t)size, sizeof(int)), calloc((size_t)size, sizeof(int))};
    wire_call *got = NULL;
    instance_plan plan = {0};
    instance_rec *recs = NULL;
    size_t *mine = NULL;
    memset(&o, 0, sizeof o);
    memset(out, 0, sizeof *out);
    out->failed = 1;
    int ok = read_own(&o) == 0;
    if (mw_state.world_rank == 0 && ok)
        z = (zero_clock){o.trace.per_second, o.trace.origin, o.trace.wall_ns, 1};
    if (mw_bcast(&z, (int)sizeof z, MPI_BYTE, comm) != MPI_SUCCESS || !z.ok)
        ok = 0;
    ok = ok && prepare_own(&o, &z) == 0 && pa.sendc && pa.recvc && pa.sdis && pa.rdis;
    if (!all_ok(ok, comm))
        goto out;
    if (exchange_messages(&o, size, comm, &pa, &got) != 0 ||
        reduce_instances(&o, size, comm, &plan, &recs, &mine) != 0)
        goto out;
    out->calls = o.trace.ncalls;
    if (mw_state.world_rank == 0)
        out->incomplete_collectives += plan.incomplete;
    out->failed = analyze(&o, size, got, pa.recvc, &plan, recs, mine, details, out) != 0;
out:
    own_free(&o);
    free(pa.sendc);
    free(pa.recvc);
    free(pa.sdis);
    free(pa.rdis);
    free(got);
    free(plan.comms);
    free(plan.first);
    free(recs);
    free(mine);
}

void mw_wait_local_free(mw_wait_local *l)
{
    mww_result_free(&l->result);
    free(l->sites);
    free(l->timeline_calls);
    free(l->timeline_messages);
    memset(l, 0, sizeof *l);
}
