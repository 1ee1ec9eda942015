#include "view_json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "matrix.h"
#include "util.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid:
 * overlong forms, surrogates and code points above U+10FFFF are invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp, min;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
    else return 0;
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

void mwc_json_string(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    putc('"', out);
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            putc('\\', out);
            putc(c, out);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            switch (c) {
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
            case '\b': fputs("\\b", out); break;
            case '\f': fputs("\\f", out); break;
            default: fprintf(out, "\\u%04x", c); break;
            }
            i++;
        } else {
            size_t k = utf8_len(s + i, n - i);
            if (k == 0) {
                fputs("\\ufffd", out);
                i++;
            } else {
                fwrite(s + i, 1, k, out);
                i += k;
            }
        }
    }
    putc('"', out);
}

static void jstr(FILE *out, const char *s)
{
    mwc_json_string(out, s, strlen(s));
}

static void jsecs(FILE *out, const char *key, uint64_t ns)
{
    fprintf(out, ",\"%s\":", key);
    mwc_print_ns(out, ns);
}

/* Every line starts with its type and the rank (null when no HELLO or
 * endpoint line has said which rank the slot is). */
static void start(FILE *out, const char *type, const mwc_model *m, size_t slot)
{
    int rank = mwc_model_rank(m, slot);
    fprintf(out, "{\"type\":\"%s\",\"rank\":", type);
    if (rank >= 0)
        fprintf(out, "%d", rank);
    else
        fputs("null", out);
}

static void counts(FILE *out, const mwc_counts *c)
{
    fprintf(out, "{\"calls\":%" PRIu64 ",\"time\":", c->calls);
    mwc_print_ns(out, c->time);
    fprintf(out, ",\"bytes_sent\":%" PRIu64 ",\"bytes_recv\":%" PRIu64 "}", c->sent, c->recv);
}

/* The most functions a rates line lists, and the most pairs a matrix line
 * holds (pairs_total says how many there were; the most bytes are kept). */
#define MAX_RATE_FUNCTIONS 10
#define MAX_PAIRS 100000

static void rate_fields(FILE *out, const char *calls, const char *share, const mwc_rate *r)
{
    fprintf(out, ",\"%s\":%.3f,\"%s\":%.6f,\"sent_per_s\":%.3f,\"recv_per_s\":%.3f", calls,
            r->calls, share, r->time, r->sent, r->recv);
}

/* A rank's rates over the interval its last SNAPSHOT closed. */
static void rates_line(FILE *out, const mwc_model *m, size_t slot)
{
    const mwc_rank *r = &m->r[slot];
    start(out, "rates", m, slot);
    jsecs(out, "interval", r->snap_t - r->prev_t);
    rate_fields(out, "calls_per_s", "mpi_share", &r->rates.total);
    fputs(",\"functions\":[", out);
    uint32_t ids[MAX_RATE_FUNCTIONS];
    size_t n = mwc_rates_top(&r->rates, r->nfunctions, r->names, ids, MAX_RATE_FUNCTIONS);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",{\"function\":" : "{\"function\":", out);
        jstr(out, mwc_model_name(r, ids[i]));
        rate_fields(out, "calls_per_s", "time_share", &r->rates.fn[ids[i]]);
        putc('}', out);
    }
    fputs("]}\n", out);
}

/* The communication matrix: every rank's last row, the nonzero pairs. */
static void matrix_line(FILE *out, const mwc_model *m)
{
    mwc_mpair *p;
    size_t total, n = mwc_matrix_pairs(m, MAX_PAIRS, &p, &total);
    fprintf(out, "{\"type\":\"matrix\",\"ranks\":%u,\"pairs\":[", (unsigned)mwc_matrix_ranks(m));
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s[%u,%u,%" PRIu64 ",%" PRIu64 "]", i ? "," : "", (unsigned)p[i].from,
                (unsigned)p[i].to, p[i].bytes, p[i].messages);
    fprintf(out, "],\"pairs_total\":%zu}\n", total);
    free(p);
}

/* A matrix line once per round: when every attached rank has sent its row
 * since the last line. Driven by the frames, not the clock, so that a
 * replay prints the same lines as the live run. */
static void pairs_arrived(mwc_json_state *st, const mwc_model *m, size_t slot)
{
    if (!st->fresh) {
        st->fresh = mwc_calloc(m->n, 1);
        st->need = 1;
    }
    st->nfresh += !st->fresh[slot];
    st->fresh[slot] = 1;
    if (st->nfresh < st->need)
        return; /* cheap: no whole round can be there yet */
    size_t fresh = 0, attached = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].status == MWC_ATTACHED) {
            attached++;
            fresh += st->fresh[i];
        }
    if (fresh < attached) {
        st->need = attached;
        return;
    }
    matrix_line(st->out, m);
    memset(st->fresh, 0, m->n);
    st->nfresh = 0;
    st->need = attached ? attached : 1;
}

static void on_frame(void *vst, const mwc_model *m, size_t slot, const mwc_frame *f)
{
    mwc_json_state *st = vst;
    FILE *out = st->out;
    const mwc_rank *r = &m->r[slot];
    switch (f->type) {
    case MWP_HELLO:
        start(out, "hello", m, slot);
        fprintf(out, ",\"size\":%u,\"pid\":%u,\"host\":", (unsigned)r->size, (unsigned)r->pid);
        jstr(out, r->host);
        fputs(",\"program\":", out);
        jstr(out, r->program);
        fputs(",\"timer\":", out);
        jstr(out, r->timer);
        fputs(",\"mpi\":", out);
        jstr(out, r->mpi);
        jsecs(out, "epoch", r->epoch);
        fprintf(out, ",\"functions\":%u}\n", (unsigned)r->nfunctions);
        break;
    case MWP_EVENTS:
        if (!st->events)
            break;
        for (uint32_t i = 0; i < f->u.events.count; i++) {
            mwc_event e;
            mwc_frame_event(f, i, &e);
            start(out, "event", m, slot);
            fputs(",\"function\":", out);
            jstr(out, mwc_model_name(r, e.function));
            fprintf(out, ",\"thread\":%u", (unsigned)e.thread);
            jsecs(out, "t_in", e.t_in);
            jsecs(out, "t_out", e.t_out);
            fprintf(out, ",\"peer\":%d,\"tag\":%d,\"comm\":%d", (int)e.peer, (int)e.tag,
                    (int)e.comm);
            /* Bytes only mean something when flags bit 0 says the call moved data. */
            fprintf(out, ",\"bytes_sent\":%" PRIu64 ",\"bytes_recv\":%" PRIu64 "}\n",
                    (e.flags & 1) ? e.sent : 0, (e.flags & 1) ? e.recv : 0);
        }
        break;
    case MWP_SNAPSHOT:
        start(out, "snapshot", m, slot);
        jsecs(out, "t", f->u.snapshot.t);
        fprintf(out, ",\"events_sent\":%" PRIu64 ",\"dropped\":%" PRIu64
                ",\"unwatched\":%" PRIu64 ",\"functions\":{",
                f->u.snapshot.sent, f->u.snapshot.dropped, f->u.snapshot.unwatched);
        for (uint32_t i = 0; i < f->u.snapshot.count; i++) {
            mwc_entry e;
            mwc_frame_entry(f, i, &e);
            mwc_counts c = { e.calls, e.time, e.sent, e.recv };
            if (i)
                putc(',', out);
            jstr(out, mwc_model_name(r, e.function));
            putc(':', out);
            counts(out, &c);
        }
        fputs("}}\n", out);
        if (r->rates_new)
            rates_line(out, m, slot);
        break;
    case MWP_PAIRS:
        pairs_arrived(st, m, slot);
        break;
    case MWP_GOODBYE:
        start(out, "goodbye", m, slot);
        jsecs(out, "t", f->u.goodbye.t);
        fprintf(out, ",\"events_sent\":%" PRIu64 ",\"dropped\":%" PRIu64 "}\n",
                f->u.goodbye.sent, f->u.goodbye.dropped);
        break;
    case MWP_LEVEL:
        start(out, "level", m, slot);
        jsecs(out, "t", f->u.level.t);
        fprintf(out, ",\"level\":%d}\n", (int)f->u.level.level);
        break;
    default:
        break;
    }
}

/* An INFLIGHT field: null when the rank says none (MWP_NONE, or comm_size
 * 0), "any" for MPI_ANY_SOURCE/MPI_ANY_TAG (MWP_ANY), else the number. */
static void jfield(FILE *out, const char *key, int32_t v, int32_t none, int any)
{
    fprintf(out, ",\"%s\":", key);
    if (v == none)
        fputs("null", out);
    else if (any && v == MWP_ANY)
        fputs("\"any\"", out);
    else
        fprintf(out, "%d", (int)v);
}

static void int_list(FILE *out, const int *v, size_t n)
{
    putc('[', out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, i ? ",%d" : "%d", v[i]);
    putc(']', out);
}

void mwc_json_waitfor(FILE *out, const mwc_waitfor *w)
{
    fputs("\"ranks\":", out);
    int_list(out, w->stuck, w->nstuck);
    fputs(",\"cycles\":[", out);
    for (size_t i = 0; i < w->ncycles; i++) {
        if (i)
            putc(',', out);
        int_list(out, w->cycles[i], w->cycle_len[i]);
    }
    fputs("],\"waited_on\":[", out);
    for (size_t i = 0; i < w->nwaited; i++) {
        fprintf(out, "%s{\"rank\":%d,\"waiters\":", i ? "," : "", w->waited[i].rank);
        int_list(out, w->waited[i].waiters, w->waited[i].nwaiters);
        putc('}', out);
    }
    putc(']', out);
}

/* The JSON view prints at most this many edges (a collective of many ranks
 * waiting for one gives as many edges as ranks); edges_total says how many. */
#define MAX_EDGES 10000

static size_t stuck_calls(const mwc_json_state *st, const mwc_model *m, double now)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n; i++)
        for (uint32_t j = 0; mwc_rank_has_inflight(&m->r[i]) && j < m->r[i].ninflight; j++)
            n += mwc_stuck(mwc_inflight_seconds(&m->r[i], &m->r[i].inflight[j], now), st->stuck_s);
    return n;
}

/* The calls in progress, one line each, then, when some rank is stuck,
 * the wait-for graph's summary. */
static void inflight_report(mwc_json_state *st, const mwc_model *m)
{
    FILE *out = st->out;
    double now = mwc_now();
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        if (!mwc_rank_has_inflight(r))
            continue;
        for (uint32_t j = 0; j < r->ninflight; j++) {
            const mwc_inflight *c = &r->inflight[j];
            double secs = mwc_inflight_seconds(r, c, now);
            start(out, "inflight", m, i);
            fprintf(out, ",\"status\":\"%s\",\"thread\":%u,\"function\":",
                    r->status == MWC_LOST ? "lost" : "attached", (unsigned)c->thread);
            jstr(out, mwc_model_name(r, c->function));
            jfield(out, "peer", c->peer, MWP_NONE, 1);
            jfield(out, "tag", c->tag, MWP_NONE, 1);
            jfield(out, "root", c->root, MWP_NONE, 0);
            jfield(out, "comm", c->comm, MWP_NONE, 0);
            jfield(out, "comm_size", c->comm_size, 0, 0);
            fprintf(out, ",\"seconds\":%.3f,\"stuck\":%s}\n", secs,
                    mwc_stuck(secs, st->stuck_s) ? "true" : "false");
        }
    }
    mwc_waitfor w;
    mwc_model_waitfor(m, now, st->stuck_s, &w);
    st->stuck = stuck_calls(st, m, now);
    if (w.nstuck > 0) {
        fprintf(out, "{\"type\":\"stuck\",\"after\":%g,", st->stuck_s);
        mwc_json_waitfor(out, &w);
        fputs(",\"edges\":[", out);
        for (size_t i = 0; i < w.nedges && i < MAX_EDGES; i++)
            fprintf(out, "%s[%d,%d]", i ? "," : "", w.edges[i].from, w.edges[i].to);
        fprintf(out, "],\"edges_total\":%zu}\n", w.nedges);
    }
    mwc_waitfor_free(&w);
}

static void on_lost(void *vst, const mwc_model *m, size_t slot)
{
    mwc_json_state *st = vst;
    const mwc_rank *r = &m->r[slot];
    start(st->out, "lost", m, slot);
    fputs(",\"endpoint\":", st->out);
    jstr(st->out, r->endpoint ? r->endpoint : "");
    fputs(",\"reason\":", st->out);
    jstr(st->out, r->reason);
    fputs("}\n", st->out);
    fflush(st->out);
}

static void on_tick(void *vst, const mwc_model *m, double elapsed)
{
    mwc_json_state *st = vst;
    /* Once a second, and at once when the number of stuck calls changes:
     * a hang is reported as soon as it passes --stuck. */
    if (elapsed >= st->next || stuck_calls(st, m, mwc_now()) != st->stuck) {
        st->next = elapsed + 1.0;
        inflight_report(st, m);
    }
    fflush(st->out);
}

static void on_finish(void *vst, const mwc_model *m, double elapsed)
{
    mwc_json_state *st = vst;
    FILE *out = st->out;
    (void)elapsed;
    inflight_report(st, m); /* the last known state of the ranks that did not finish */
    if (mwc_matrix_any(m))
        matrix_line(out, m); /* every rank's last row, lost ones included */
    free(st->fresh);
    st->fresh = NULL;
    mwc_summary s = mwc_model_summary(m);
    fprintf(out, "{\"type\":\"totals\",\"ranks\":%zu,\"finished\":%zu,\"lost\":[", m->n,
            s.finished);
    int first = 1;
    for (size_t i = 0; i < m->n; i++) {
        if (m->r[i].status == MWC_FINISHED)
            continue;
        int rank = mwc_model_rank(m, i);
        if (!first)
            putc(',', out);
        first = 0;
        if (rank >= 0)
            fprintf(out, "%d", rank);
        else
            fputs("null", out);
    }
    fputs("],\"functions\":{", out);
    mwc_total *t;
    size_t n = mwc_model_totals(m, &t);
    for (size_t i = 0; i < n; i++) {
        if (i)
            putc(',', out);
        jstr(out, t[i].name);
        putc(':', out);
        counts(out, &t[i].c);
    }
    free(t);
    fprintf(out, "},\"events\":{\"received\":%" PRIu64 ",\"dropped\":%" PRIu64
            ",\"unwatched\":%" PRIu64 "}}\n", s.received, s.dropped, s.unwatched);
    fflush(out);
}

mwc_view mwc_view_json(mwc_json_state *st)
{
    if (!(st->stuck_s > 0))
        st->stuck_s = MWC_STUCK_DEFAULT_S;
    st->next = 1.0;
    mwc_view v = { on_frame, on_lost, on_tick, on_finish, st };
    return v;
}
