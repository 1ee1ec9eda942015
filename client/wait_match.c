/* Matching the calls that wait for each other (client/wait_match.h). */
#include "wait_match.h"

#include <stdlib.h>

#include "array_room.h"
#include "wait_functions.h"

/* A wait state found: none for a time that is not positive (the partner
 * was not late); out of memory is said by a->oom. */
static void add_wait(mww_analysis *a, int pattern, int victim, size_t victim_call, int rank,
                     size_t call, double seconds)
{
    if (!(seconds > 0) || (a->victim != NULL && victim != *a->victim))
        return;
    if (a->nwaits == a->cap) {
        size_t c = a->cap ? a->cap * 2 : 256;
        mww_wait *more = realloc(a->waits, c * sizeof *more);
        if (more == NULL) {
            a->oom = 1;
            return;
        }
        a->waits = more;
        a->cap = c;
    }
    /* the part the late rank's extra work since its previous call explains */
    mww_prev lp = mww_previous(a, rank, call), vp = mww_previous(a, victim, victim_call);
    double direct = seconds;
    if (lp.function != NULL && vp.function != NULL) {
        double extra = (a->ranks[rank].calls[call].enter - lp.leave) -
                       (a->ranks[victim].calls[victim_call].enter - vp.leave);
        direct = extra <= 0 ? 0 : extra < seconds ? extra : seconds;
    }
    a->waits[a->nwaits++] = (mww_wait){pattern, victim, victim_call, rank, call, seconds, direct, 0};
}

/* Whether a message received by rank is counted: every one, or the
 * analysing rank's (each message is seen by its sender and its receiver). */
static int counted_at(const mww_analysis *a, int rank)
{
    return a->victim == NULL || rank == *a->victim;
}

static double lesser(double x, double y)
{
    return x < y ? x : y;
}

/* ------------------------------------------------------------ messages */

typedef struct {
    int comm, src, dst, tag;
    int rank;                  /* the rank whose call it is */
    size_t call;
    double enter;              /* the order of one rank's calls (a receive's: its post) */
    size_t waits_in;           /* the call that waits for the partner: the call itself,
                                * or the one that completed a non-blocking one */
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
    message_end *room = mwc_array_room(*v, *n, cap, sizeof *room, 256);
    if (room == NULL)
        return -1;
    *v = room;
    (*v)[(*n)++] = e;
    return 0;
}

/* (rank, communicator) pairs whose receives are not matched by order:
 * added as found (repeats too), then sorted once (pair_set_seal), so that
 * a trace of many ranks and receives is not searched linearly per message. */
typedef struct {
    int rank, comm;
} pair;

typedef struct {
    pair *v;
    size_t n, cap;
} pair_set;

static int by_pair(const void *pa, const void *pb)
{
    const pair *x = pa, *y = pb;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->comm < y->comm ? -1 : x->comm > y->comm;
}

static int add_pair(pair_set *u, int rank, int comm)
{
    if (u->n > 0 && u->v[u->n - 1].rank == rank && u->v[u->n - 1].comm == comm)
        return 0;   /* the same as the last: a rank's calls in a row */
    if (u->n == u->cap) {
        size_t c = u->cap ? u->cap * 2 : 64;
        pair *more = realloc(u->v, c * sizeof *more);
        if (more == NULL)
            return -1;
        u->v = more;
        u->cap = c;
    }
    u->v[u->n++] = (pair){rank, comm};
    return 0;
}

/* Sorted, each pair once. */
static void pair_set_seal(pair_set *u)
{
    qsort(u->v, u->n, sizeof *u->v, by_pair);
    size_t kept = 0;
    for (size_t i = 0; i < u->n; i++)
        if (kept == 0 || by_pair(&u->v[kept - 1], &u->v[i]) != 0)
            u->v[kept++] = u->v[i];
    u->n = kept;
}

static int has_pair(const pair_set *u, int rank, int comm)
{
    pair key = {rank, comm};
    return u->n > 0 && bsearch(&key, u->v, u->n, sizeof *u->v, by_pair) != NULL;
}

/* A matched message, for the timeline. */
static int keep_message(mww_result *res, const message_end *se, const message_end *re)
{
    size_t n = res->nmatched;
    if ((n & (n - 1)) == 0) {   /* 0, 1, 2, 4, ...: the array doubles at each power of two */
        mww_message *more = realloc(res->matched, (n ? 2 * n : 1) * sizeof *more);
        if (more == NULL)
            return -1;
        res->matched = more;
    }
    res->matched[res->nmatched++] = (mww_message){se->rank, se->call, re->rank, re->waits_in};
    return 0;
}

/* A Late Sender or Late Receiver candidate: the call that waited (a
 * receive, a synchronous send, or the call that completed a non-blocking
 * one) and the partner it waited for. One call may complete several
 * (MPI_Waitall, receives and sends alike): it waits for the latest of
 * their partners, and only that one is charged, so that the same interval
 * is not counted twice. */
typedef struct {
    int pattern;               /* MWW_LATE_SENDER or MWW_LATE_RECEIVER */
    int rank;
    size_t waits_in;
    double until;              /* the partner's entry */
    int partner_rank;
    size_t partner_call;
} late_partner;

static int by_waiting_call(const void *pa, const void *pb)
{
    const late_partner *x = pa, *y = pb;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->waits_in != y->waits_in)
        return x->waits_in < y->waits_in ? -1 : 1;
    if (x->until != y->until)
        return x->until > y->until ? -1 : 1;   /* the latest first */
    return x->partner_rank < y->partner_rank ? -1 : x->partner_rank > y->partner_rank;
}

/* Where a waiting call's wait began: at its entry, or at the first poll
 * of a polling loop that it ended (mww_call.polls), the call that waited. */
static size_t wait_began_in(const mww_rank *t, size_t call)
{
    size_t p = t->calls[call].polls;
    return p != 0 && p <= call ? p - 1 : call;
}

/* Each waiting call's latest partner, as a wait state of its pattern (the
 * candidates l[0..n) sorted in place). */
static void latest_partner_waits(mww_analysis *a, late_partner *l, size_t n)
{
    qsort(l, n, sizeof *l, by_waiting_call);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && l[i].rank == l[i - 1].rank && l[i].waits_in == l[i - 1].waits_in)
            continue;
        const mww_rank *t = &a->ranks[l[i].rank];
        size_t from = wait_began_in(t, l[i].waits_in);
        add_wait(a, l[i].pattern, l[i].rank, from, l[i].partner_rank, l[i].partner_call,
                 lesser(l[i].until, t->calls[l[i].waits_in].leave) - t->calls[from].enter);
    }
}

static int push_late(late_partner **v, size_t *n, size_t *cap, late_partner l)
{
    late_partner *room = mwc_array_room(*v, *n, cap, sizeof *room, 256);
    if (room == NULL)
        return -1;
    *v = room;
    (*v)[(*n)++] = l;
    return 0;
}

/* The call a message's end waits in: a non-blocking call's completion
 * when the trace saw it (index + 1 within the rank's calls), else itself. */
static size_t waiting_call(const mww_call *c, size_t i, size_t ncalls)
{
    return c->completed_by != 0 && c->completed_by <= ncalls ? c->completed_by - 1 : i;
}

/* Whether the end's waiting call blocks: the call itself, a completion
 * that blocks, or an MPI_Test* that ended a polling loop (a single MPI_Test
 * returns at once: it waited in nothing). */
static int waits_there(const mww_rank *t, const message_end *e)
{
    const mww_call *w = &t->calls[e->waits_in];
    return e->waits_in == e->call || mww_fn_blocking_completion(w->function) || w->polls != 0;
}

int mww_hides_order(const mww_call *c, size_t ncalls)
{
    if (mww_fn_blocking_receive(c->function))
        return c->peer < 0 || c->tag < 0;
    if (mww_fn_nonblocking_receive(c->function))
        return c->completed_by == 0 || c->completed_by > ncalls || c->peer < 0 || c->tag < 0;
    if (mww_fn_send_receive(c->function))
        return c->recv_peer < 0 || c->recv_tag < 0;
    return mww_fn_other_receive(c->function);
}

/* MPI's non-overtaking order. */
int mww_match_messages(mww_analysis *a, const mww_options *opt, mww_result *res)
{
    message_end *s = NULL, *r = NULL;
    size_t ns = 0, nr = 0, cs = 0, cr = 0;
    late_partner *late = NULL;
    size_t nlate = 0, clate = 0;
    pair_set unordered = {NULL, 0, 0};
    int rc = -1;
    for (int k = 0; k < a->nranks; k++) {
        const mww_rank *t = &a->ranks[k];
        for (size_t i = 0; i < t->ncalls; i++) {
            const mww_call *c = &t->calls[i];
            message_end e = {c->comm, k, c->peer, c->tag, k, i, c->enter, i};
            if (mww_fn_send_receive(c->function)) {
                /* one record for both halves, each waiting in the call: the
                 * send, and the receive when the trace says its source and
                 * tag (else this rank's receives on comm lose their order) */
                if (c->peer >= 0 && c->tag >= 0 && push_end(&s, &ns, &cs, e) != 0)
                    goto out;
                e = (message_end){c->comm, c->recv_peer, k, c->recv_tag, k, i, c->enter, i};
                if (mww_hides_order(c, t->ncalls) ? add_pair(&unordered, k, c->comm) != 0
                                                  : push_end(&r, &nr, &cr, e) != 0)
                    goto out;
            } else if (mww_fn_send(c->function) && c->peer >= 0 && c->tag >= 0) {
                e.waits_in = waiting_call(c, i, t->ncalls);
                if (push_end(&s, &ns, &cs, e) != 0)
                    goto out;
            } else if (mww_hides_order(c, t->ncalls)) {
                if (add_pair(&unordered, k, c->comm) != 0)
                    goto out;
            } else if (mww_fn_blocking_receive(c->function)) {
                e.src = c->peer;
                e.dst = k;
                if (push_end(&r, &nr, &cr, e) != 0)
                    goto out;
            } else if (mww_fn_nonblocking_receive(c->function)) {
                /* in order at its post, waiting in the call that completed it */
                e.src = c->peer;
                e.dst = k;
                e.waits_in = waiting_call(c, i, t->ncalls);
                if (push_end(&r, &nr, &cr, e) != 0)
                    goto out;
            }
        }
    }
    pair_set_seal(&unordered);
    for (size_t i = 0; i < unordered.n; i++)
        res->unordered_receivers += counted_at(a, unordered.v[i].rank);
    qsort(s, ns, sizeof *s, by_channel);
    qsort(r, nr, sizeof *r, by_channel);
    size_t a_ = 0, b = 0;
    while (a_ < ns && b < nr) {
        if (!same_channel(&s[a_], &r[b])) {
            /* the lesser channel's end has no partner (unless its receiver
             * is not matched by order anyway) */
            const message_end *alone =
                by_channel(&(message_end){s[a_].comm, s[a_].src, s[a_].dst, s[a_].tag, 0, 0, 0, 0},
                           &(message_end){r[b].comm, r[b].src, r[b].dst, r[b].tag, 0, 0, 0, 0}) < 0
                    ? &s[a_++]
                    : &r[b++];
            res->unmatched += !has_pair(&unordered, alone->dst, alone->comm) &&
                              counted_at(a, alone->dst);
            continue;
        }
        const message_end *se = &s[a_++], *re = &r[b++];
        if (has_pair(&unordered, se->dst, se->comm))
            continue;
        const mww_call *snd = &a->ranks[se->rank].calls[se->call];
        const mww_call *rcv = &a->ranks[re->rank].calls[re->call];
        const mww_call *waiter = &a->ranks[re->rank].calls[wait_began_in(&a->ranks[re->rank],
                                                                           re->waits_in)];
        const mww_call *sender = &a->ranks[se->rank].calls[wait_began_in(&a->ranks[se->rank],
                                                                          se->waits_in)];
        res->messages += counted_at(a, re->rank);
        if (opt->details && keep_message(res, se, re) != 0)
            goto out;
        /* Late Sender: the receive (a non-blocking one's completing call,
         * when that blocks) began waiting before the send began. */
        if (snd->enter > waiter->enter && waits_there(&a->ranks[re->rank], re) &&
            push_late(&late, &nlate, &clate,
                      (late_partner){MWW_LATE_SENDER, re->rank, re->waits_in, snd->enter,
                                     se->rank, se->call}) != 0)
            goto out;
        /* Late Receiver: a send that cannot complete before its receive is
         * posted (a non-blocking one's completing call, when that blocks)
         * began waiting before the receive was posted. */
        if (mww_fn_waits_for_receive(snd->function, snd->bytes, opt->rendezvous_bytes) &&
            rcv->enter > sender->enter && waits_there(&a->ranks[se->rank], se) &&
            push_late(&late, &nlate, &clate,
                      (late_partner){MWW_LATE_RECEIVER, se->rank, se->waits_in, rcv->enter,
                                     re->rank, re->call}) != 0)
            goto out;
    }
    for (size_t i = a_; i < ns; i++)
        res->unmatched += !has_pair(&unordered, s[i].dst, s[i].comm) && counted_at(a, s[i].dst);
    for (size_t i = b; i < nr; i++)
        res->unmatched += !has_pair(&unordered, r[i].dst, r[i].comm) && counted_at(a, r[i].dst);
    latest_partner_waits(a, late, nlate);
    rc = 0;
out:
    free(late);
    free(s);
    free(r);
    free(unordered.v);
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
static void instance_waits(mww_analysis *a, const coll_entry *e, size_t n)
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
                add_wait(a, pattern, e[j].rank, e[j].call, e[last].rank, e[last].call,
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
                add_wait(a, pattern, e[j].rank, e[j].call, e[at].rank, e[at].call,
                         lesser(CALL(at)->enter, CALL(j)->leave) - CALL(j)->enter);
    } else {
        /* the root waits for the last of the others */
        size_t last = n;
        for (size_t j = 0; j < n; j++)
            if (j != at && (last == n || CALL(j)->enter > CALL(last)->enter))
                last = j;
        if (last != n)
            add_wait(a, pattern, e[at].rank, e[at].call, e[last].rank, e[last].call,
                     lesser(CALL(last)->enter, CALL(at)->leave) - CALL(at)->enter);
    }
#undef CALL
}

/* Per communicator, a rank's n-th collective call is the n-th instance;
 * an instance is complete when it has as many ranks as the communicator's
 * largest instance (a communicator's members are the ranks calling on it). */
int mww_match_collectives(mww_analysis *a, mww_result *res)
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
            int pattern = mww_fn_collective_pattern(c->function);
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

void mww_given_instances(mww_analysis *a, const mww_instance *v, size_t n)
{
    size_t most = 0;
    for (size_t i = 0; i < n; i++)
        most = v[i].n > most ? v[i].n : most;
    coll_entry *e = malloc((most ? most : 1) * sizeof *e);
    if (e == NULL) {
        a->oom = 1;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (v[i].n == 0)
            continue;
        const mww_member *m = v[i].members;
        int pattern = mww_fn_collective_pattern(a->ranks[m[0].rank].calls[m[0].call].function);
        if (pattern < 0)
            continue;
        for (size_t j = 0; j < v[i].n; j++)
            e[j] = (coll_entry){0, 0, m[j].rank, m[j].call, pattern};
        instance_waits(a, e, v[i].n);
    }
    free(e);
}
