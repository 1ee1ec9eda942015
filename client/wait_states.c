/* Wait states (client/wait_states.h, docs/wait-states.md). */
#include "wait_states.h"

#include <stdlib.h>
#include <string.h>

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

/* ------------------------------------------------------------ functions */

/* The name without a large-count suffix: MPI_Send_c counts as MPI_Send. */
static int named(const char *name, const char *const *list)
{
    size_t n = strlen(name);
    if (n > 2 && strcmp(name + n - 2, "_c") == 0)
        n -= 2;
    for (int i = 0; list[i] != NULL; i++)
        if (strlen(list[i]) == n && strncmp(name, list[i], n) == 0)
            return 1;
    return 0;
}

static const char *const sends[] = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend",
                                    "MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", NULL};
static const char *const synchronous_sends[] = {"MPI_Ssend", NULL};
static const char *const standard_sends[] = {"MPI_Send", NULL};
static const char *const blocking_receives[] = {"MPI_Recv", NULL};
static const char *const send_receives[] = {"MPI_Sendrecv", "MPI_Sendrecv_replace", NULL};
static const char *const nxn[] = {"MPI_Allreduce", "MPI_Allgather", "MPI_Allgatherv",
                                  "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw",
                                  "MPI_Reduce_scatter", "MPI_Reduce_scatter_block", NULL};
static const char *const barriers[] = {"MPI_Barrier", NULL};
/* Not MPI time, as in the report's rank_times (docs/report-format.md). */
static const char *const outside_mpi_time[] = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", NULL};
static const char *const one_to_all[] = {"MPI_Bcast", "MPI_Scatter", "MPI_Scatterv", NULL};
static const char *const all_to_one[] = {"MPI_Reduce", "MPI_Gather", "MPI_Gatherv", NULL};

/* Another call that may receive: a destination's messages on that
 * communicator are then not matched by order alone. */
static int other_receive(const char *name)
{
    static const char *const starts[] = {"MPI_Start", "MPI_Startall", NULL};
    return (strstr(name, "recv") != NULL || named(name, starts)) &&
           !named(name, blocking_receives);
}

/* The collective pattern a function's late arrivals make; -1 none. */
static int collective_pattern(const char *name)
{
    if (named(name, nxn))
        return MWW_WAIT_NXN;
    if (named(name, barriers))
        return MWW_WAIT_BARRIER;
    if (named(name, one_to_all))
        return MWW_LATE_BROADCAST;
    if (named(name, all_to_one))
        return MWW_EARLY_REDUCE;
    return -1;
}

int mww_root_role(const char *function)
{
    return named(function, one_to_all) ? MWW_ROOT_SENDS
           : named(function, all_to_one) ? MWW_ROOT_RECEIVES
                                         : 0;
}

/* ------------------------------------------------------------ wait states */

typedef struct {
    int pattern;
    int victim;                /* the rank that waited */
    int rank;                  /* the rank that was late */
    size_t call;               /* its late call */
    double seconds;
} wait_state;

typedef struct {
    const mww_rank *ranks;
    int nranks;
    size_t **prev;             /* by rank, by call: the same thread's previous call + 1; 0 none */
    wait_state *waits;
    size_t nwaits, cap;
    int oom;
} analysis;

static void add_wait(analysis *a, int pattern, int victim, int rank, size_t call, double seconds)
{
    if (!(seconds > 0))
        return;
    if (a->nwaits == a->cap) {
        size_t c = a->cap ? a->cap * 2 : 256;
        wait_state *more = realloc(a->waits, c * sizeof *more);
        if (more == NULL) {
            a->oom = 1;
            return;
        }
        a->waits = more;
        a->cap = c;
    }
    a->waits[a->nwaits++] = (wait_state){pattern, victim, rank, call, seconds};
}

static double lesser(double x, double y)
{
    return x < y ? x : y;
}

/* Each call's previous call on the same thread. */
static int link_previous(analysis *a)
{
    a->prev = calloc((size_t)a->nranks, sizeof *a->prev);
    if (a->prev == NULL)
        return -1;
    for (int k = 0; k < a->nranks; k++) {
        const mww_rank *r = &a->ranks[k];
        if (r->ncalls == 0)
            continue;
        a->prev[k] = calloc(r->ncalls, sizeof *a->prev[k]);
        uint32_t *thread = NULL;
        size_t *last = NULL, nthreads = 0;
        if (a->prev[k] == NULL)
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
                    return -1;
                }
                last = la;
                thread[nthreads] = r->calls[i].thread;
                last[nthreads++] = 0;
            }
            a->prev[k][i] = last[t];
            last[t] = i + 1;
        }
        free(thread);
        free(last);
    }
    return 0;
}

/* ------------------------------------------------------------ messages */

typedef struct {
    int comm, src, dst, tag;
    int rank;                  /* the rank whose call it is */
    size_t call;
    double enter;              /* the order of one rank's calls */
} message_end;

static int by_channel(const void *pa, const void *pb)
{
    const message_end *x = pa, *y = pb;
    int kx[4] = {x->comm, x->src, x->dst, x->tag}, ky[4] = {y->comm, y->src, y->dst, y->tag};
    for (int i = 0; i < 4; i++)   /* compared, not subtracted: any int is a valid key */
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    if (x->enter != y->enter)
        return x->enter < y->enter ? -1 : 1;
    return x->call < y->call ? -1 : x->call > y->call;
}

static int same_channel(const message_end *x, const message_end *y)
{
    return x->comm == y->comm && x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

static int push_end(message_end **v, size_t *n, size_t *cap, message_end e)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        message_end *more = realloc(*v, c * sizeof *more);
        if (more == NULL)
            return -1;
        *v = more;
        *cap = c;
    }
    (*v)[(*n)++] = e;
    return 0;
}

/* (rank, communicator) pairs whose receives are not matched by order. */
typedef struct {
    int *pair;                 /* rank, comm, rank, comm, ... */
    size_t n;
} pair_set;

static int has_pair(const pair_set *u, int rank, int comm)
{
    for (size_t i = 0; i < u->n; i++)
        if (u->pair[2 * i] == rank && u->pair[2 * i + 1] == comm)
            return 1;
    return 0;
}

static int add_pair(pair_set *u, int rank, int comm)
{
    if (has_pair(u, rank, comm))
        return 0;
    int *more = realloc(u->pair, (u->n + 1) * 2 * sizeof *more);
    if (more == NULL)
        return -1;
    u->pair = more;
    u->pair[2 * u->n] = rank;
    u->pair[2 * u->n++ + 1] = comm;
    return 0;
}

/* The k-th send on a channel (communicator, source, destination, tag)
 * matches the k-th receive on it: MPI's non-overtaking order. */
static int match_messages(analysis *a, const mww_options *opt, mww_result *res)
{
    message_end *s = NULL, *r = NULL;
    size_t ns = 0, nr = 0, cs = 0, cr = 0;
    pair_set unordered = {NULL, 0};
    int rc = -1;
    for (int k = 0; k < a->nranks; k++) {
        const mww_rank *t = &a->ranks[k];
        for (size_t i = 0; i < t->ncalls; i++) {
            const mww_call *c = &t->calls[i];
            message_end e = {c->comm, k, c->peer, c->tag, k, i, c->enter};
            if (named(c->function, send_receives)) {
                /* one record for both halves: neither is matched, and the
                 * destination's receives on it lose their order */
                if (add_pair(&unordered, k, c->comm) != 0 ||
                    (c->peer >= 0 && add_pair(&unordered, c->peer, c->comm) != 0))
                    goto out;
            } else if (named(c->function, sends) && c->peer >= 0 && c->tag >= 0) {
                if (push_end(&s, &ns, &cs, e) != 0)
                    goto out;
            } else if (named(c->function, blocking_receives)) {
                if (c->peer < 0 || c->tag < 0) {
                    if (add_pair(&unordered, k, c->comm) != 0)
                        goto out;
                    continue;
                }
                e.src = c->peer;
                e.dst = k;
                if (push_end(&r, &nr, &cr, e) != 0)
                    goto out;
            } else if (other_receive(c->function)) {
                if (add_pair(&unordered, k, c->comm) != 0)
                    goto out;
            }
        }
    }
    res->unordered_receivers = (long)unordered.n;
    qsort(s, ns, sizeof *s, by_channel);
    qsort(r, nr, sizeof *r, by_channel);
    size_t a_ = 0, b = 0;
    while (a_ < ns && b < nr) {
        if (!same_channel(&s[a_], &r[b])) {
            /* the lesser channel's end has no partner (unless its receiver
             * is not matched by order anyway) */
            const message_end *alone =
                by_channel(&(message_end){s[a_].comm, s[a_].src, s[a_].dst, s[a_].tag, 0, 0, 0},
                           &(message_end){r[b].comm, r[b].src, r[b].dst, r[b].tag, 0, 0, 0}) < 0
                    ? &s[a_++]
                    : &r[b++];
            res->unmatched += !has_pair(&unordered, alone->dst, alone->comm);
            continue;
        }
        const message_end *se = &s[a_++], *re = &r[b++];
        if (has_pair(&unordered, se->dst, se->comm))
            continue;
        const mww_call *snd = &a->ranks[se->rank].calls[se->call];
        const mww_call *rcv = &a->ranks[re->rank].calls[re->call];
        res->messages++;
        /* Late Sender: the receive was posted before the send began. */
        if (snd->enter > rcv->enter)
            add_wait(a, MWW_LATE_SENDER, re->rank, se->rank, se->call,
                     lesser(snd->enter, rcv->leave) - rcv->enter);
        /* Late Receiver: a send that cannot complete before its receive is
         * posted began before it. */
        int waits_for_receive =
            named(snd->function, synchronous_sends) ||
            (opt->rendezvous_bytes > 0 && named(snd->function, standard_sends) &&
             snd->bytes >= opt->rendezvous_bytes);
        if (waits_for_receive && rcv->enter > snd->enter)
            add_wait(a, MWW_LATE_RECEIVER, se->rank, re->rank, re->call,
                     lesser(rcv->enter, snd->leave) - snd->enter);
    }
    for (size_t i = a_; i < ns; i++)
        res->unmatched += !has_pair(&unordered, s[i].dst, s[i].comm);
    for (size_t i = b; i < nr; i++)
        res->unmatched += !has_pair(&unordered, r[i].dst, r[i].comm);
    rc = 0;
out:
    free(s);
    free(r);
    free(unordered.pair);
    return rc;
}

/* ------------------------------------------------------------ collectives */

typedef struct {
    int comm;
    long seq;                  /* the rank's n-th collective on comm */
    int rank;
    size_t call;
    int pattern;
} coll_entry;

static int by_instance(const void *pa, const void *pb)
{
    const coll_entry *x = pa, *y = pb;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->rank - y->rank;
}

static const mww_rank *sort_rank;   /* qsort has no context argument in C11 */

static int by_enter(const void *pa, const void *pb)
{
    size_t x = *(const size_t *)pa, y = *(const size_t *)pb;
    double ex = sort_rank->calls[x].enter, ey = sort_rank->calls[y].enter;
    if (ex != ey)
        return ex < ey ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The waits of one instance: entries e[0..n), all ranks of it. */
static void instance_waits(analysis *a, const coll_entry *e, size_t n)
{
    int pattern = e[0].pattern;
#define CALL(j) (&a->ranks[e[j].rank].calls[e[j].call])
    if (pattern == MWW_WAIT_NXN || pattern == MWW_WAIT_BARRIER) {
        /* everyone waits for the last to enter */
        size_t last = 0;
        for (size_t j = 1; j < n; j++)
            if (CALL(j)->enter > CALL(last)->enter)
                last = j;
        for (size_t j = 0; j < n; j++)
            if (j != last)
                add_wait(a, pattern, e[j].rank, e[last].rank, e[last].call,
                         lesser(CALL(last)->enter, CALL(j)->leave) - CALL(j)->enter);
        return;
    }
    int root = CALL(0)->root;
    size_t at = n;
    for (size_t j = 0; j < n; j++)
        if (e[j].rank == root)
            at = j;
    if (at == n)
        return;   /* no root known, or it is not among the instance's ranks */
    if (pattern == MWW_LATE_BROADCAST) {
        /* the others wait for the root */
        for (size_t j = 0; j < n; j++)
            if (j != at)
                add_wait(a, pattern, e[j].rank, e[at].rank, e[at].call,
                         lesser(CALL(at)->enter, CALL(j)->leave) - CALL(j)->enter);
    } else {
        /* the root waits for the last of the others */
        size_t last = n;
        for (size_t j = 0; j < n; j++)
            if (j != at && (last == n || CALL(j)->enter > CALL(last)->enter))
                last = j;
        if (last != n)
            add_wait(a, pattern, e[at].rank, e[last].rank, e[last].call,
                     lesser(CALL(last)->enter, CALL(at)->leave) - CALL(at)->enter);
    }
#undef CALL
}

/* Per communicator, a rank's n-th collective call is the n-th instance;
 * an instance is complete when it has as many ranks as the communicator's
 * largest instance (a communicator's members are the ranks calling on it). */
static int match_collectives(analysis *a, mww_result *res)
{
    coll_entry *v = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;
    for (int k = 0; k < a->nranks; k++) {
        const mww_rank *t = &a->ranks[k];
        size_t *order = malloc((t->ncalls ? t->ncalls : 1) * sizeof *order);
        if (order == NULL)
            goto out;
        for (size_t i = 0; i < t->ncalls; i++)
            order[i] = i;
        sort_rank = t;
        qsort(order, t->ncalls, sizeof *order, by_enter);
        /* sequence numbers by communicator: a short list, few communicators */
        int *comm = NULL;
        long *seq = NULL;
        size_t ncomms = 0;
        for (size_t o = 0; o < t->ncalls; o++) {
            const mww_call *c = &t->calls[order[o]];
            int pattern = collective_pattern(c->function);
            if (pattern < 0)
                continue;
            size_t j = 0;
            while (j < ncomms && comm[j] != c->comm)
                j++;
            if (j == ncomms) {
                int *cm = realloc(comm, (ncomms + 1) * sizeof *cm);
                long *sq = cm ? realloc(seq, (ncomms + 1) * sizeof *sq) : NULL;
                if (cm != NULL)
                    comm = cm;
                if (sq == NULL)
                    goto oom_rank;
                seq = sq;
                comm[ncomms] = c->comm;
                seq[ncomms++] = 0;
            }
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 256;
                coll_entry *more = realloc(v, nc * sizeof *more);
                if (more == NULL)
                    goto oom_rank;
                v = more;
                cap = nc;
            }
            v[n++] = (coll_entry){c->comm, seq[j]++, k, order[o], pattern};
        }
        free(comm);
        free(seq);
        free(order);
        continue;
    oom_rank:
        free(comm);
        free(seq);
        free(order);
        goto out;
    }
    qsort(v, n, sizeof *v, by_instance);
    for (size_t i = 0; i < n;) {
        /* the communicator's members: its largest instance's ranks */
        size_t end = i, members = 0, fewest = SIZE_MAX;
        while (end < n && v[end].comm == v[i].comm)
            end++;
        for (size_t j = i; j < end;) {
            size_t m = j;
            while (m < end && v[m].seq == v[j].seq)
                m++;
            members = m - j > members ? m - j : members;
            fewest = m - j < fewest ? m - j : fewest;
            j = m;
        }
        /* Calls whose communicator is not recorded (-1: those that move no
         * data, MPI_Barrier) may be on several communicators: their order
         * is trusted only when every rank made as many. */
        int trusted = v[i].comm != -1 || fewest == members;
        for (size_t j = i; j < end;) {
            size_t m = j;
            int same = 1;
            while (m < end && v[m].seq == v[j].seq) {
                same &= v[m].pattern == v[j].pattern;
                m++;
            }
            if (m - j == members && same && trusted) {
                res->collectives++;
                instance_waits(a, &v[j], m - j);
            } else {
                res->incomplete_collectives++;
            }
            j = m;
        }
        i = end;
    }
    rc = 0;
out:
    free(v);
    return rc;
}

/* ------------------------------------------------------------ causes */

static const mww_call *late_call(const analysis *a, const wait_state *w)
{
    return &a->ranks[w->rank].calls[w->call];
}

static const mww_call *previous_call(const analysis *a, const wait_state *w)
{
    size_t p = a->prev[w->rank][w->call];
    return p ? &a->ranks[w->rank].calls[p - 1] : NULL;
}

static const analysis *sort_analysis;

static int by_cause(const void *pa, const void *pb)
{
    const wait_state *x = pa, *y = pb;
    const analysis *a = sort_analysis;
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
    const mww_call *px = previous_call(a, x), *py = previous_call(a, y);
    uint64_t sx = px ? px->site : 0, sy = py ? py->site : 0;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    f = strcmp(px ? px->function : "", py ? py->function : "");
    if (f != 0)
        return f;
    return x->victim - y->victim;
}

static int by_waiting(const void *pa, const void *pb)
{
    const mww_cause *x = pa, *y = pb;
    if (x->waiting != y->waiting)
        return x->waiting > y->waiting ? -1 : 1;
    return x->rank - y->rank;
}

static int gather_causes(analysis *a, mww_result *res)
{
    sort_analysis = a;
    qsort(a->waits, a->nwaits, sizeof *a->waits, by_cause);
    res->causes = malloc((a->nwaits ? a->nwaits : 1) * sizeof *res->causes);
    if (res->causes == NULL)
        return -1;
    for (size_t i = 0; i < a->nwaits;) {
        const wait_state *w = &a->waits[i];
        const mww_call *late = late_call(a, w), *prev = previous_call(a, w);
        mww_cause c = {w->rank, w->pattern, late->function, late->site,
                       prev ? prev->function : NULL, prev ? prev->site : 0, 0, 0, 0};
        size_t j = i;
        int last_victim = -1;
        while (j < a->nwaits) {
            const wait_state *x = &a->waits[j];
            wait_state probe = *w;
            probe.victim = x->victim;   /* the same cause whatever the victim */
            if (by_cause(&probe, x) != 0)
                break;
            c.waiting += x->seconds;
            c.instances++;
            c.waiting_ranks += x->victim != last_victim;
            last_victim = x->victim;
            j++;
        }
        res->causes[res->ncauses++] = c;
        i = j;
    }
    qsort(res->causes, res->ncauses, sizeof *res->causes, by_waiting);
    return 0;
}

int mww_analyze(const mww_rank *ranks, int nranks, const mww_options *opt, mww_result *res)
{
    memset(res, 0, sizeof *res);
    analysis a = {ranks, nranks, NULL, NULL, 0, 0, 0};
    int rc = -1;
    res->rank_waiting = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *res->rank_waiting);
    res->rank_caused = calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *res->rank_caused);
    if (res->rank_waiting == NULL || res->rank_caused == NULL || link_previous(&a) != 0 ||
        match_messages(&a, opt, res) != 0 || match_collectives(&a, res) != 0 || a.oom ||
        gather_causes(&a, res) != 0)
        goto out;
    for (int k = 0; k < nranks; k++)
        for (size_t i = 0; i < ranks[k].ncalls; i++)
            if (ranks[k].calls[i].leave > ranks[k].calls[i].enter &&
                !named(ranks[k].calls[i].function, outside_mpi_time))
                res->mpi_time += ranks[k].calls[i].leave - ranks[k].calls[i].enter;
    for (size_t i = 0; i < a.nwaits; i++) {
        const wait_state *w = &a.waits[i];
        res->waiting += w->seconds;
        res->pattern_time[w->pattern] += w->seconds;
        res->pattern_count[w->pattern]++;
        res->rank_waiting[w->victim] += w->seconds;
        res->rank_caused[w->rank] += w->seconds;
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
    memset(r, 0, sizeof *r);
}
