#include "waitfor.h"

#include <stdlib.h>
#include <string.h>

#include "mpiwatch_protocol.h"
#include "util.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_edge(const void *a, const void *b)
{
    const mwc_wf_edge *x = a, *y = b;
    if (x->from != y->from)
        return (x->from > y->from) - (x->from < y->from);
    return (x->to > y->to) - (x->to < y->to);
}

static int cmp_edge_to(const void *a, const void *b)
{
    const mwc_wf_edge *x = a, *y = b;
    if (x->to != y->to)
        return (x->to > y->to) - (x->to < y->to);
    return (x->from > y->from) - (x->from < y->from);
}

static int cmp_waited(const void *a, const void *b)
{
    const mwc_wf_waited *x = a, *y = b;
    if (x->nwaiters != y->nwaiters)
        return x->nwaiters < y->nwaiters ? 1 : -1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sort and drop repeats; returns the new count. */
static size_t unique_ints(int *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_int);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || v[w - 1] != v[i])
            v[w++] = v[i];
    return w;
}

/* The index of x in the sorted set v (it is there by construction). */
static size_t node_of(const int *v, size_t n, int x)
{
    const int *p = bsearch(&x, v, n, sizeof *v, cmp_int);
    return p ? (size_t)(p - v) : 0;
}

static int p2p_edge(const mwc_wf_call *c)
{
    return c->stuck && c->peer >= 0 &&
           (c->flags & (MWP_IF_SENDS | MWP_IF_RECEIVES | MWP_IF_COMPLETES));
}

static int world_collective(const mwc_wf_call *c)
{
    return (c->flags & (MWP_IF_COLLECTIVE | MWP_IF_WORLD)) == (MWP_IF_COLLECTIVE | MWP_IF_WORLD);
}

/* Tarjan's strongly connected components, without recursion (a hostile or
 * simply large job must not exhaust the stack). adj/off: the graph in
 * compressed rows over n nodes. Components of two or more nodes, or one with
 * a self edge, are the cycles. */
static void cycles(mwc_waitfor *w, const int *nodes, size_t n, const size_t *off, const size_t *adj)
{
    size_t *index = mwc_malloc((n + 1) * sizeof *index), *low = mwc_malloc((n + 1) * sizeof *low);
    size_t *stack = mwc_malloc((n + 1) * sizeof *stack), *call = mwc_malloc((n + 1) * sizeof *call);
    size_t *next = mwc_malloc((n + 1) * sizeof *next);
    char *on = mwc_calloc(n + 1, 1);
    const size_t unseen = (size_t)-1;
    for (size_t i = 0; i < n; i++)
        index[i] = unseen;
    size_t counter = 0, sp = 0;
    for (size_t root = 0; root < n; root++) {
        if (index[root] != unseen)
            continue;
        size_t cp = 0;
        call[cp++] = root;
        index[root] = low[root] = counter++;
        next[root] = off[root];
        stack[sp++] = root;
        on[root] = 1;
        while (cp > 0) {
            size_t v = call[cp - 1];
            if (next[v] < off[v + 1]) {
                size_t u = adj[next[v]++];
                if (index[u] == unseen) {
                    index[u] = low[u] = counter++;
                    next[u] = off[u];
                    stack[sp++] = u;
                    on[u] = 1;
                    call[cp++] = u;
                } else if (on[u] && index[u] < low[v]) {
                    low[v] = index[u];
                }
                continue;
            }
            cp--;
            if (cp > 0 && low[v] < low[call[cp - 1]])
                low[call[cp - 1]] = low[v];
            if (low[v] != index[v])
                continue;
            size_t k = sp;
            while (stack[k - 1] != v)
                k--;
            k--; /* stack[k..sp) is v's component */
            size_t len = sp - k;
            int self = 0;
            for (size_t e = off[v]; e < off[v + 1]; e++)
                self |= adj[e] == v;
            if (len > 1 || self) {
                int *c = mwc_malloc(len * sizeof *c);
                for (size_t i = 0; i < len; i++)
                    c[i] = nodes[stack[k + i]];
                qsort(c, len, sizeof *c, cmp_int);
                w->cycles = mwc_realloc(w->cycles, (w->ncycles + 1) * sizeof *w->cycles);
                w->cycle_len = mwc_realloc(w->cycle_len, (w->ncycles + 1) * sizeof *w->cycle_len);
                w->cycles[w->ncycles] = c;
                w->cycle_len[w->ncycles] = len;
                w->ncycles++;
            }
            for (size_t i = k; i < sp; i++)
                on[stack[i]] = 0;
            sp = k;
        }
    }
    /* Order the groups by their first rank, for stable output. */
    for (size_t i = 1; i < w->ncycles; i++)
        for (size_t j = i; j > 0 && w->cycles[j - 1][0] > w->cycles[j][0]; j--) {
            int *c = w->cycles[j];
            size_t l = w->cycle_len[j];
            w->cycles[j] = w->cycles[j - 1];
            w->cycle_len[j] = w->cycle_len[j - 1];
            w->cycles[j - 1] = c;
            w->cycle_len[j - 1] = l;
        }
    free(index);
    free(low);
    free(stack);
    free(call);
    free(next);
    free(on);
}

void mwc_waitfor_build(mwc_waitfor *w, const int *ranks, size_t nranks, const mwc_wf_call *calls,
                       size_t ncalls)
{
    memset(w, 0, sizeof *w);
    /* The nodes: watched ranks, ranks in calls, and peers waited for. */
    size_t nn = 0;
    int *nodes = mwc_malloc((nranks + 2 * ncalls + 1) * sizeof *nodes);
    for (size_t i = 0; i < nranks; i++)
        if (ranks[i] >= 0)
            nodes[nn++] = ranks[i];
    for (size_t i = 0; i < ncalls; i++) {
        nodes[nn++] = calls[i].rank;
        if (p2p_edge(&calls[i]))
            nodes[nn++] = calls[i].peer;
    }
    nn = unique_ints(nodes, nn);
    int *watched = mwc_malloc((nranks + 1) * sizeof *watched);
    size_t nw = 0;
    for (size_t i = 0; i < nranks; i++)
        if (ranks[i] >= 0)
            watched[nw++] = ranks[i];
    nw = unique_ints(watched, nw);

    /* Which watched ranks have entered a world collective (stuck or not).
     * A rank's collective edges are added once, however many of its
     * threads are in one: the edges stay within ranks x watched ranks. */
    char *entered = mwc_calloc(nn + 1, 1), *added = mwc_calloc(nn + 1, 1);
    for (size_t i = 0; i < ncalls; i++)
        if (world_collective(&calls[i]))
            entered[node_of(nodes, nn, calls[i].rank)] = 1;
    size_t nstuck = 0;
    int *stuck = mwc_malloc((ncalls + 1) * sizeof *stuck);
    size_t ne = 0, cap = 16;
    mwc_wf_edge *e = mwc_malloc(cap * sizeof *e);
    for (size_t i = 0; i < ncalls; i++) {
        const mwc_wf_call *c = &calls[i];
        if (!c->stuck)
            continue;
        stuck[nstuck++] = c->rank;
        int coll = world_collective(c) && !added[node_of(nodes, nn, c->rank)];
        if (coll)
            added[node_of(nodes, nn, c->rank)] = 1;
        size_t add = (p2p_edge(c) ? 1 : 0) + (coll ? nw : 0);
        if (ne + add > cap) {
            cap = (ne + add) * 2;
            e = mwc_realloc(e, cap * sizeof *e);
        }
        if (p2p_edge(c))
            e[ne++] = (mwc_wf_edge){ c->rank, c->peer };
        if (coll)
            for (size_t j = 0; j < nw; j++)
                if (!entered[node_of(nodes, nn, watched[j])])
                    e[ne++] = (mwc_wf_edge){ c->rank, watched[j] };
    }
    w->nstuck = unique_ints(stuck, nstuck);
    w->stuck = stuck;
    qsort(e, ne, sizeof *e, cmp_edge);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (k == 0 || cmp_edge(&e[k - 1], &e[i]) != 0)
            e[k++] = e[i];
    w->nedges = k;
    w->edges = e;

    /* Compressed rows over the node indices, edges already sorted by from. */
    size_t *off = mwc_calloc(nn + 2, sizeof *off), *adj = mwc_malloc((k + 1) * sizeof *adj);
    for (size_t i = 0; i < k; i++)
        off[node_of(nodes, nn, e[i].from) + 1]++;
    for (size_t i = 0; i < nn; i++)
        off[i + 1] += off[i];
    for (size_t i = 0; i < k; i++)
        adj[i] = node_of(nodes, nn, e[i].to);
    cycles(w, nodes, nn, off, adj);

    /* Waited-on ranks: the edges grouped by their target. */
    mwc_wf_edge *byto = mwc_malloc((k + 1) * sizeof *byto);
    memcpy(byto, e, k * sizeof *e);
    qsort(byto, k, sizeof *byto, cmp_edge_to);
    for (size_t i = 0; i < k;) {
        size_t j = i;
        while (j < k && byto[j].to == byto[i].to)
            j++;
        w->waited = mwc_realloc(w->waited, (w->nwaited + 1) * sizeof *w->waited);
        mwc_wf_waited *x = &w->waited[w->nwaited++];
        x->rank = byto[i].to;
        x->nwaiters = j - i;
        x->waiters = mwc_malloc((j - i) * sizeof *x->waiters);
        for (size_t t = i; t < j; t++)
            x->waiters[t - i] = byto[t].from;
        i = j;
    }
    if (w->nwaited)
        qsort(w->waited, w->nwaited, sizeof *w->waited, cmp_waited);
    free(byto);
    free(off);
    free(adj);
    free(entered);
    free(added);
    free(watched);
    free(nodes);
}

void mwc_waitfor_free(mwc_waitfor *w)
{
    for (size_t i = 0; i < w->ncycles; i++)
        free(w->cycles[i]);
    for (size_t i = 0; i < w->nwaited; i++)
        free(w->waited[i].waiters);
    free(w->cycles);
    free(w->cycle_len);
    free(w->waited);
    free(w->stuck);
    free(w->edges);
    memset(w, 0, sizeof *w);
}
