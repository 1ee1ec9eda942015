#include "view_tty.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "matrix.h"
#include "util.h"

static const char *status_name(int s)
{
    switch (s) {
    case MWC_WAITING: return "waiting";
    case MWC_ATTACHED: return "attached";
    case MWC_FINISHED: return "finished";
    default: return "lost";
    }
}

/* One output line, cut to the terminal's width; once the screen is full
 * further lines are dropped (the caller leaves room for what matters). */
static void line(mwc_tty_state *st, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    mwc_printable(buf);   /* names come from the ranks: never escape sequences */
    if (st->live) {
        if (st->row >= st->rows)
            return;
        if (st->cols > 0 && (size_t)st->cols < strlen(buf))
            buf[st->cols] = '\0';
        fputs(buf, st->out);
        fputs("\033[K\n", st->out); /* clear what the last draw left on this line */
    } else {
        fprintf(st->out, "%s\n", buf);
    }
    st->row++;
}

static const char *human_bytes(uint64_t b, char *buf, size_t n)
{
    static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " B", b);
    else
        snprintf(buf, n, "%.1f %s", v, unit[u]);
    return buf;
}

/* Bytes per second, "1.5 KiB/s"; a rate beyond 64 bits shows as their maximum. */
static const char *human_rate(double v, char *buf, size_t n)
{
    char b[24]; /* "1023.9 EiB" at most */
    human_bytes(v < 1.8e19 ? (uint64_t)(v + 0.5) : UINT64_MAX, b, sizeof b);
    snprintf(buf, n, "%s/s", b);
    return buf;
}

/* A count in at most 6 characters for a matrix cell: "." for none,
 * "512", "4.9K", "120M". */
static const char *cell(uint64_t v, char *buf, size_t n)
{
    static const char unit[] = "KMGTPE";
    if (v == 0)
        return snprintf(buf, n, "."), buf;
    if (v < 1024)
        return snprintf(buf, n, "%u", (unsigned)v), buf;
    double x = (double)v;
    int u = -1;
    while (x >= 1024 && u < 5) {
        x /= 1024;
        u++;
    }
    snprintf(buf, n, x < 99.95 ? "%.1f%c" : "%.0f%c", x, unit[u]);
    return buf;
}

static int by_time(const void *a, const void *b)
{
    const mwc_total *x = a, *y = b;
    if (x->c.time != y->c.time)
        return x->c.time < y->c.time ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void header(mwc_tty_state *st, const mwc_model *m, double elapsed, const mwc_summary *s)
{
    const char *program = "?", *mpi = "";
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].have_hello) {
            program = m->r[i].program;
            mpi = m->r[i].mpi;
            break;
        }
    line(st, "mpiwatch: %s%s%s%s | %zu ranks: %zu attached, %zu finished, %zu lost, %zu waiting | %.1f s",
         program, *mpi ? " (" : "", mpi, *mpi ? ")" : "", m->n, s->attached, s->finished, s->lost,
         s->waiting, elapsed);
    line(st, "MPI time %.6f s over all ranks | events received %" PRIu64 ", dropped %" PRIu64
         ", unwatched %" PRIu64, (double)s->mpi_time * 1e-9, s->received, s->dropped, s->unwatched);
}

/* limit: the most function rows to show (the rest are counted). */
static void functions(mwc_tty_state *st, const mwc_model *m, const mwc_summary *s, int limit)
{
    mwc_total *t;
    size_t n = mwc_model_totals(m, &t);
    qsort(t, n, sizeof *t, by_time);
    line(st, "");
    line(st, "%-28s %12s %14s %6s %12s %12s", "FUNCTION", "CALLS", "TIME s", "%MPI", "SENT", "RECV");
    for (size_t i = 0; i < n; i++) {
        if (limit >= 0 && (int)i >= limit && n - i > 0) {
            line(st, "... %zu more functions", n - i);
            break;
        }
        char a[32], b[32];
        double pct = s->mpi_time ? 100.0 * (double)t[i].c.time / (double)s->mpi_time : 0;
        line(st, "%-28s %12" PRIu64 " %14.6f %5.1f%% %12s %12s", t[i].name, t[i].c.calls,
             (double)t[i].c.time * 1e-9, pct, human_bytes(t[i].c.sent, a, sizeof a),
             human_bytes(t[i].c.recv, b, sizeof b));
    }
    if (n == 0)
        line(st, "(no snapshot yet)");
    free(t);
}

/* A call in progress in a few words: "MPI_Recv from 3 tag 99",
 * "MPI_Bcast root 0 on world", "MPI_Allreduce on comm 3 (8 ranks)". */
static void describe(const mwc_rank *r, const mwc_inflight *c, char *buf, size_t n)
{
    char peer[16] = "?", tag[16] = "any";
    if (c->peer != MWP_ANY)
        snprintf(peer, sizeof peer, "%d", (int)c->peer);
    else
        snprintf(peer, sizeof peer, "any");
    if (c->tag != MWP_ANY)
        snprintf(tag, sizeof tag, "%d", (int)c->tag);
    size_t k = (size_t)snprintf(buf, n, "%s", mwc_model_name(r, c->function));
    const char *dir = (c->flags & MWP_IF_RECEIVES) ? " from" : (c->flags & MWP_IF_SENDS) ? " to"
                      : (c->flags & MWP_IF_COMPLETES) ? " on a request of" : " peer";
    if (c->peer != MWP_NONE && k < n)
        k += (size_t)snprintf(buf + k, n - k, "%s %s", dir, peer);
    if (c->tag != MWP_NONE && k < n)
        k += (size_t)snprintf(buf + k, n - k, " tag %s", tag);
    if (c->root != MWP_NONE && k < n)
        k += (size_t)snprintf(buf + k, n - k, " root %d", (int)c->root);
    if ((c->flags & MWP_IF_COLLECTIVE) && k < n) {
        if (c->flags & MWP_IF_WORLD)
            snprintf(buf + k, n - k, " on world");
        else if (c->comm != MWP_NONE && c->comm_size > 0)
            snprintf(buf + k, n - k, " on comm %d (%d ranks)", (int)c->comm, (int)c->comm_size);
        else if (c->comm != MWP_NONE)
            snprintf(buf + k, n - k, " on comm %d", (int)c->comm);
    }
}

static double stuck_after(const mwc_tty_state *st)
{
    return st->stuck_s > 0 ? st->stuck_s : MWC_STUCK_DEFAULT_S;
}

/* The call a rank has been in longest, for how long, marked when stuck;
 * "+N" when other threads are inside calls too. Empty when none. */
static void in_call(const mwc_tty_state *st, const mwc_rank *r, double now, char *buf, size_t n)
{
    buf[0] = '\0';
    if (!mwc_rank_has_inflight(r))
        return;
    uint32_t longest = 0;
    double secs = -1;
    for (uint32_t j = 0; j < r->ninflight; j++) {
        double s = mwc_inflight_seconds(r, &r->inflight[j], now);
        if (s > secs) {
            secs = s;
            longest = j;
        }
    }
    char what[160], more[24] = "";
    describe(r, &r->inflight[longest], what, sizeof what);
    if (r->ninflight > 1)
        snprintf(more, sizeof more, " (+%u threads)", (unsigned)(r->ninflight - 1));
    snprintf(buf, n, "%s, %.1f s%s%s", what, secs, mwc_stuck(secs, stuck_after(st)) ? " STUCK" : "", more);
}

/* The "Waiting" panel: when some rank is stuck, the cycles of the wait-for
 * graph (deadlock) and the ranks others wait for, most waiters first.
 * limit: the most lines (negative: no limit). */
static void waiting(mwc_tty_state *st, const mwc_model *m, int limit)
{
    mwc_waitfor w;
    mwc_model_waitfor(m, mwc_now(), stuck_after(st), &w);
    if (w.nstuck == 0 || limit == 0) {
        mwc_waitfor_free(&w);
        return;
    }
    char list[200];
    size_t k = 0;
    for (size_t i = 0; i < w.nstuck && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, " %d", w.stuck[i]);
    line(st, "");
    line(st, "WAITING: %zu rank(s) in a call for over %g s:%s", w.nstuck, stuck_after(st), list);
    int shown = 2;
    for (size_t i = 0; i < w.ncycles; i++, shown++) {
        if (limit >= 0 && shown >= limit) {
            line(st, "... %zu more", w.ncycles - i + w.nwaited);
            goto done;
        }
        k = 0;
        for (size_t j = 0; j < w.cycle_len[i] && k < sizeof list; j++)
            k += (size_t)snprintf(list + k, sizeof list - k, " %d", w.cycles[i][j]);
        line(st, "  deadlock: ranks%s wait for each other", list);
    }
    for (size_t i = 0; i < w.nwaited; i++, shown++) {
        if (limit >= 0 && shown >= limit) {
            line(st, "... %zu more", w.nwaited - i);
            break;
        }
        k = 0;
        for (size_t j = 0; j < w.waited[i].nwaiters && k < sizeof list; j++)
            k += (size_t)snprintf(list + k, sizeof list - k, " %d", w.waited[i].waiters[j]);
        line(st, "  rank %d is waited for by %zu:%s", w.waited[i].rank, w.waited[i].nwaiters, list);
    }
done:
    mwc_waitfor_free(&w);
}

static void ranks(mwc_tty_state *st, const mwc_model *m, int limit)
{
    double now = mwc_now();
    line(st, "");
    line(st, "%-6s %-9s %-16s %12s %12s %9s %6s %12s %12s %10s %9s  %s", "RANK", "STATUS", "HOST",
         "MPI s", "CALLS", "CALLS/s", "MPI%", "SENT/s", "RECV/s", "EVENTS", "DROPPED", "IN CALL");
    for (size_t i = 0; i < m->n; i++) {
        if (limit >= 0 && (int)i >= limit) {
            line(st, "... %zu more ranks", m->n - i);
            break;
        }
        const mwc_rank *r = &m->r[i];
        mwc_counts c = mwc_rank_total(r);
        char rank[16];
        int rk = mwc_model_rank(m, i);
        if (rk >= 0)
            snprintf(rank, sizeof rank, "%d", rk);
        else
            snprintf(rank, sizeof rank, "?");
        /* A lost rank keeps its last totals and call: the last known state. */
        char call[256];
        in_call(st, r, now, call, sizeof call);
        /* Rates over the rank's last interval; "-" until two snapshots came. */
        char cps[24] = "-", share[16] = "-", sent[32] = "-", recv[32] = "-";
        if (r->have_rates) {
            snprintf(cps, sizeof cps, "%.1f", r->rates.total.calls);
            snprintf(share, sizeof share, "%.1f%%", 100 * r->rates.total.time);
            human_rate(r->rates.total.sent, sent, sizeof sent);
            human_rate(r->rates.total.recv, recv, sizeof recv);
        }
        line(st, "%-6s %-9s %-16.16s %12.6f %12" PRIu64 " %9s %6s %12s %12s %10" PRIu64 " %9" PRIu64
             "%s%s", rank, status_name(r->status), r->have_hello ? r->host : "-",
             (double)c.time * 1e-9, c.calls, cps, share, sent, recv, r->events,
             mwc_rank_dropped(r), *call ? "  " : "", call);
        if (r->status == MWC_LOST)
            line(st, "%-6s %s: %s", "", r->endpoint ? r->endpoint : "", r->reason);
    }
}

/* The --rank panel's order: busiest in the last interval, then by total
 * time, then by name. */
typedef struct {
    uint32_t id;
    const mwc_rank *r;
} fn_ref;

static int by_activity(const void *a, const void *b)
{
    const fn_ref *x = a, *y = b;
    const mwc_rank *r = x->r;
    double tx = r->have_rates ? r->rates.fn[x->id].time : 0;
    double ty = r->have_rates ? r->rates.fn[y->id].time : 0;
    if (tx != ty)
        return tx < ty ? 1 : -1;
    if (r->snap[x->id].time != r->snap[y->id].time)
        return r->snap[x->id].time < r->snap[y->id].time ? 1 : -1;
    return strcmp(r->names[x->id], r->names[y->id]);
}

/* --rank R: that rank by function, the last interval's rates and the
 * totals so far. limit: the most lines (negative: no limit). */
static void rank_panel(mwc_tty_state *st, const mwc_model *m, int limit)
{
    const mwc_rank *r = NULL;
    for (size_t i = 0; i < m->n && !r; i++)
        if (mwc_model_rank(m, i) == st->rank)
            r = &m->r[i];
    line(st, "");
    uint32_t size = mwc_matrix_ranks(m);
    if (!r) {
        if (size > 0 && (uint32_t)st->rank >= size)
            line(st, "RANK %d: not in this job (%u ranks)", st->rank, (unsigned)size);
        else
            line(st, "RANK %d: not watched", st->rank);
        return;
    }
    if (!r->have_hello || !r->have_snapshot) {
        line(st, "RANK %d: %s, no snapshot yet", st->rank, status_name(r->status));
        return;
    }
    char a[32], b[32], c[32], d[32];
    if (r->have_rates)
        line(st, "RANK %d (%s) by function, over its last %.1f s: %.1f calls/s, MPI %.1f%%, "
             "sent %s, received %s", st->rank, status_name(r->status), r->rates.interval,
             r->rates.total.calls, 100 * r->rates.total.time,
             human_rate(r->rates.total.sent, a, sizeof a), human_rate(r->rates.total.recv, b, sizeof b));
    else
        line(st, "RANK %d (%s) by function: rates after its second snapshot", st->rank,
             status_name(r->status));
    line(st, "%-24s %9s %6s %12s %12s %12s %14s %10s %10s", "FUNCTION", "CALLS/s", "TIME%", "SENT/s",
         "RECV/s", "CALLS", "TIME s", "SENT", "RECV");
    fn_ref *v = mwc_malloc(((size_t)r->nfunctions + 1) * sizeof *v);
    size_t n = 0;
    for (uint32_t i = 0; i < r->nfunctions; i++)
        if (r->snap[i].calls > 0)
            v[n++] = (fn_ref){ i, r };
    qsort(v, n, sizeof *v, by_activity);
    for (size_t i = 0; i < n; i++) {
        /* 3 heading lines, and 1 for "... more": the panel ends at limit. */
        if (limit >= 0 && (int)i + 4 >= limit && i + 1 < n) {
            line(st, "... %zu more functions", n - i);
            break;
        }
        const mwc_counts *t = &r->snap[v[i].id];
        mwc_rate z = { 0, 0, 0, 0 };
        const mwc_rate *q = r->have_rates ? &r->rates.fn[v[i].id] : &z;
        line(st, "%-24s %9.1f %5.1f%% %12s %12s %12" PRIu64 " %14.6f %10s %10s", r->names[v[i].id],
             q->calls, 100 * q->time, human_rate(q->sent, a, sizeof a),
             human_rate(q->recv, b, sizeof b), t->calls, (double)t->time * 1e-9,
             human_bytes(t->sent, c, sizeof c), human_bytes(t->recv, d, sizeof d));
    }
    free(v);
}

/* --matrix: bytes sent so far from each rank (row) to each rank (column),
 * from the ranks' last PAIRS. When the ranks do not fit the screen (width,
 * and limit lines), they are summed in blocks of consecutive ranks, and the
 * heading says so. */
static void matrix_panel(mwc_tty_state *st, const mwc_model *m, int limit)
{
    enum { CELL = 7 };
    uint32_t size = mwc_matrix_ranks(m);
    line(st, "");
    if (!mwc_matrix_any(m) || size == 0) {
        line(st, "MATRIX: no rank has sent its row yet");
        return;
    }
    char label[32];
    snprintf(label, sizeof label, "%u-%u", (unsigned)(size - 1), (unsigned)(size - 1));
    int lw = (int)strlen(label) > 7 ? (int)strlen(label) : 7;
    int width = st->live && st->cols > 0 ? st->cols : 132;
    int fit = (width - lw) / CELL;
    if (limit >= 0 && limit - 3 < fit)
        fit = limit - 3; /* a blank line, the title and the column heading */
    if (fit > 64)
        fit = 64; /* wider than that is no longer readable */
    uint32_t block = mwc_matrix_block(size, fit > 1 ? (uint32_t)fit : 1);
    uint32_t nb = size / block + (size % block != 0);
    if (block == 1)
        line(st, "MATRIX: bytes sent so far, from the row's rank to the column's");
    else
        line(st, "MATRIX: bytes sent so far, from the row's ranks to the column's; %u ranks do not "
             "fit: summed in blocks of %u (a column is named by its first rank)",
             (unsigned)size, (unsigned)block);
    uint64_t *cells = mwc_malloc((size_t)nb * nb * sizeof *cells);
    mwc_matrix_blocks(m, size, block, cells);
    char buf[1024], v[16];
    size_t k = (size_t)snprintf(buf, sizeof buf, "%-*s", lw, "FROM\\TO");
    for (uint32_t j = 0; j < nb && k < sizeof buf; j++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, " %*u", CELL - 1, (unsigned)(j * block));
    line(st, "%s", buf);
    for (uint32_t i = 0; i < nb; i++) {
        if (block == 1)
            snprintf(label, sizeof label, "%u", (unsigned)i);
        else
            snprintf(label, sizeof label, "%u-%u", (unsigned)(i * block),
                     (unsigned)((i + 1) * block - 1 < size - 1 ? (i + 1) * block - 1 : size - 1));
        k = (size_t)snprintf(buf, sizeof buf, "%-*s", lw, label);
        for (uint32_t j = 0; j < nb && k < sizeof buf; j++)
            k += (size_t)snprintf(buf + k, sizeof buf - k, " %*s", CELL - 1,
                                  cell(cells[(size_t)i * nb + j], v, sizeof v));
        line(st, "%s", buf);
    }
    free(cells);
}

static void panels(mwc_tty_state *st, const mwc_model *m, int rank_limit, int matrix_limit)
{
    if (st->rank >= 0)
        rank_panel(st, m, rank_limit);
    if (st->matrix)
        matrix_panel(st, m, matrix_limit);
}

static void draw(mwc_tty_state *st, const mwc_model *m, double elapsed)
{
    mwc_summary s = mwc_model_summary(m);
    st->row = 0;
    if (st->live) {
        struct winsize ws;
        st->rows = 24;
        st->cols = 80;
        if (ioctl(fileno(st->out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) {
            st->rows = ws.ws_row - 1; /* a newline on the last row would scroll */
            st->cols = ws.ws_col;
        }
        if (!st->screen) {
            fputs("\033[?1049h", st->out); /* the alternate screen: the shell's is kept */
            st->screen = 1;
        }
        fputs("\033[H", st->out);
        /* Two header lines and two tables of two heading lines each: ranks
         * get up to a third of the rest, functions what ranks leave over. */
        header(st, m, elapsed, &s);
        /* The waiting panel, when a rank is stuck, first: up to a quarter. */
        waiting(st, m, (st->rows - 6) / 4 > 3 ? (st->rows - 6) / 4 : 3);
        /* The --rank and --matrix panels next: up to a quarter and a third. */
        panels(st, m, (st->rows - 6) / 4 > 4 ? (st->rows - 6) / 4 : 4,
               (st->rows - 6) / 3 > 4 ? (st->rows - 6) / 3 : 4);
        int room = st->rows - st->row - 4;
        int rk = room / 3 < (int)m->n ? room / 3 : (int)m->n;
        int fn = room - (rk > 1 ? rk : 1) - 2; /* 2: the two "... N more" lines */
        functions(st, m, &s, fn > 1 ? fn : 1);
        int left = st->rows - st->row - 2;
        ranks(st, m, (int)m->n <= left ? -1 : (left > 1 ? left - 1 : 0));
        fputs("\033[J", st->out); /* clear below */
    } else {
        header(st, m, elapsed, &s);
        waiting(st, m, 12);
        panels(st, m, 14, 18);
        functions(st, m, &s, 10);
        line(st, "");
    }
    fflush(st->out);
}

static void on_tick(void *vst, const mwc_model *m, double elapsed)
{
    mwc_tty_state *st = vst;
    if (elapsed < st->next)
        return;
    st->next = elapsed + st->period;
    draw(st, m, elapsed);
}

static void on_lost(void *vst, const mwc_model *m, size_t slot)
{
    mwc_tty_state *st = vst;
    char endpoint[256], reason[512];
    if (st->live)
        return;
    snprintf(endpoint, sizeof endpoint, "%s", m->r[slot].endpoint ? m->r[slot].endpoint : "");
    snprintf(reason, sizeof reason, "%s", m->r[slot].reason);
    fprintf(st->out, "mpiwatch: rank %d (%s) lost: %s\n", mwc_model_rank(m, slot),
            mwc_printable(endpoint), mwc_printable(reason));
}

void mwc_tty_restore(mwc_tty_state *st)
{
    if (st->screen) {
        fputs("\033[?1049l", st->out);
        fflush(st->out);
        st->screen = 0;
    }
}

static void on_finish(void *vst, const mwc_model *m, double elapsed)
{
    mwc_tty_state *st = vst;
    mwc_tty_restore(st);
    mwc_summary s = mwc_model_summary(m);
    int live = st->live;
    st->live = 0; /* the final summary is plain text, complete */
    line(st, "mpiwatch: final summary");
    header(st, m, elapsed, &s);
    waiting(st, m, -1);
    panels(st, m, -1, -1);
    functions(st, m, &s, -1);
    ranks(st, m, -1);
    st->live = live;
    fflush(st->out);
}

mwc_view mwc_view_tty(mwc_tty_state *st, FILE *out)
{
    memset(st, 0, sizeof *st);
    st->out = out;
    st->rank = -1;
    st->live = isatty(fileno(out));
    st->period = st->live ? 1.0 : 5.0;
    st->next = st->live ? 0.0 : 5.0;
    mwc_view v = { NULL, on_lost, on_tick, on_finish, st };
    return v;
}
