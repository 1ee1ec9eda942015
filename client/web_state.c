/* The job's state as JSON for the viewer page (web_state.h). */
#include "web_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwatch_protocol.h"
#include "mpiwatch_report.h"
#include "util.h"
#include "view_json.h"

static void jstr(FILE *out, const char *s)
{
    mwc_json_string(out, s ? s : "", s ? strlen(s) : 0);
}

static int by_name(const void *key, const void *elem)
{
    return strcmp((const char *)key, ((const mwc_total *)elem)->name);
}

/* The first rank's HELLO, for the job's program, MPI and timer. */
static const mwc_rank *first_hello(const mwc_model *m)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].have_hello)
            return &m->r[i];
    return NULL;
}

static void functions(FILE *out, const mwc_total *t, size_t nt)
{
    fputs(",\n\"functions\":{", out);
    for (size_t k = 0; k < nt; k++) {
        fputs(k ? ",\n" : "\n", out);
        jstr(out, t[k].name);
        int not_mpi = strcmp(t[k].name, "MPI_Init") == 0 ||
                      strcmp(t[k].name, "MPI_Init_thread") == 0 ||
                      strcmp(t[k].name, "MPI_Finalize") == 0;
        fprintf(out, ":{\"calls\":%llu,\"time\":%.9g,\"bytes_sent\":%llu,\"bytes_recv\":%llu,"
                     "\"mpi_time\":%s}",
                (unsigned long long)t[k].c.calls, (double)t[k].c.time * 1e-9,
                (unsigned long long)t[k].c.sent, (unsigned long long)t[k].c.recv,
                not_mpi ? "false" : "true");
    }
    fputs("}", out);
}

/* rank_functions and rank_times, from each rank's last snapshot. */
static void per_rank(FILE *out, const mwc_model *m, const mwc_total *t, size_t nt, int size)
{
    static const char *const fields[] = {"calls", "time", "bytes_sent", "bytes_recv"};
    double *row = mwc_calloc(nt ? nt * 4 : 1, sizeof *row);
    fputs(",\n\"rank_functions\":{\"functions\":[", out);
    for (size_t k = 0; k < nt; k++) {
        fputs(k ? "," : "", out);
        jstr(out, t[k].name);
    }
    fputs("],\"ranks\":[", out);
    int first = 1;
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        int rank = mwc_model_rank(m, i);
        if (rank < 0 || rank >= size || !r->have_snapshot)
            continue;
        memset(row, 0, (nt ? nt * 4 : 1) * sizeof *row);
        for (uint32_t f = 0; f < r->nfunctions; f++) {
            const mwc_counts *c = &r->snap[f];
            if (c->calls == 0)
                continue;
            const mwc_total *hit = bsearch(mwc_model_name(r, f), t, nt, sizeof *t, by_name);
            if (hit == NULL)
                continue;
            size_t k = (size_t)(hit - t);
            row[k * 4] += (double)c->calls;
            row[k * 4 + 1] += (double)c->time * 1e-9;
            row[k * 4 + 2] += (double)c->sent;
            row[k * 4 + 3] += (double)c->recv;
        }
        fprintf(out, "%s\n{\"rank\":%d", first ? "" : ",", rank);
        first = 0;
        for (int q = 0; q < 4; q++) {
            fprintf(out, ",\"%s\":[", fields[q]);
            for (size_t k = 0; k < nt; k++)
                fprintf(out, q == 1 ? "%s%.9g" : "%s%.0f", k ? "," : "", row[k * 4 + q]);
            fputs("]", out);
        }
        fputs("}", out);
    }
    fputs("]}", out);
    free(row);
    fputs(",\n\"rank_times\":[", out);
    first = 1;
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        int rank = mwc_model_rank(m, i);
        if (rank < 0 || rank >= size || !r->have_snapshot)
            continue;
        mwc_counts sum = mwc_rank_total(r);
        fprintf(out, "%s{\"rank\":%d,\"mpi\":%.9g}", first ? "" : ",", rank, (double)sum.time * 1e-9);
        first = 0;
    }
    fputs("]", out);
}

static void pairs(FILE *out, const mwc_model *m, int size)
{
    fputs(",\n\"pairs\":[", out);
    int first = 1;
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        int rank = mwc_model_rank(m, i);
        if (rank < 0 || rank >= size || !r->have_pairs)
            continue;
        for (uint32_t j = 0; j < r->npairs; j++) {
            fprintf(out, "%s{\"from\":%d,\"to\":%u,\"bytes\":%llu,\"messages\":%llu}",
                    first ? "" : ",", rank, (unsigned)r->pairs[j].to,
                    (unsigned long long)r->pairs[j].bytes, (unsigned long long)r->pairs[j].messages);
            first = 0;
        }
    }
    fputs("]", out);
}

static const char *status_name(int status)
{
    switch (status) {
    case MWC_ATTACHED: return "attached";
    case MWC_FINISHED: return "finished";
    case MWC_LOST: return "lost";
    default: return "waiting";
    }
}

/* "wait_for": who waits for whom, as the terminal's Waiting panel and the
 * JSON view's stuck line say it (the model's wait-for graph): the stuck
 * ranks, the cycles (deadlock) and the ranks others wait for; absent while
 * no call is stuck. */
static void wait_for(FILE *out, const mwc_model *m, double now, double stuck_s)
{
    mwc_waitfor w;
    mwc_model_waitfor(m, now, stuck_s, &w);
    if (w.nstuck > 0) {
        fputs(",\n\"wait_for\":{", out);
        mwc_json_waitfor(out, &w);
        putc('}', out);
    }
    mwc_waitfor_free(&w);
}

static void live(FILE *out, const mwc_model *m, double now, double elapsed, double stuck_s,
                 int recording)
{
    mwc_summary s = mwc_model_summary(m);
    mwc_rate rate = {0, 0, 0, 0};
    for (size_t i = 0; i < m->n; i++) {
        if (!m->r[i].have_rates || m->r[i].status != MWC_ATTACHED)
            continue;
        rate.calls += m->r[i].rates.total.calls;
        rate.time += m->r[i].rates.total.time;
        rate.sent += m->r[i].rates.total.sent;
        rate.recv += m->r[i].rates.total.recv;
    }
    fprintf(out, ",\n\"live\":{\"recording\":%s,\"elapsed\":%.3f,\"watched\":%zu,\"waiting\":%zu,\"attached\":%zu,"
                 "\"finished\":%zu,\"lost\":%zu,\"events_received\":%llu,\"events_dropped\":%llu,"
                 "\"stuck_after\":%g,\"rates\":{\"calls\":%.6g,\"mpi_share\":%.6g,\"sent\":%.6g,"
                 "\"recv\":%.6g},\n\"rank_status\":[",
            recording ? "true" : "false", elapsed, m->n, s.waiting, s.attached, s.finished, s.lost,
            (unsigned long long)s.received, (unsigned long long)s.dropped, stuck_s, rate.calls,
            rate.time, rate.sent, rate.recv);
    for (size_t i = 0; i < m->n; i++) {
        fprintf(out, "%s{\"rank\":%d,\"status\":\"%s\"", i ? "," : "", mwc_model_rank(m, i),
                status_name(m->r[i].status));
        if (m->r[i].status == MWC_LOST) {
            fputs(",\"reason\":", out);
            jstr(out, m->r[i].reason);
        }
        fputs("}", out);
    }
    fputs("],\n\"inflight\":[", out);
    int first = 1;
    for (size_t i = 0; i < m->n; i++) {
        const mwc_rank *r = &m->r[i];
        if (!mwc_rank_has_inflight(r))
            continue;
        for (uint32_t j = 0; j < r->ninflight; j++) {
            const mwc_inflight *c = &r->inflight[j];
            double secs = mwc_inflight_seconds(r, c, now);
            fprintf(out, "%s{\"rank\":%d,\"thread\":%u,\"function\":", first ? "" : ",",
                    mwc_model_rank(m, i), (unsigned)c->thread);
            first = 0;
            jstr(out, mwc_model_name(r, c->function));
            if (c->peer != MWP_NONE)
                fprintf(out, ",\"peer\":%d", (int)c->peer);
            if (c->tag != MWP_NONE)
                fprintf(out, ",\"tag\":%d", (int)c->tag);
            if (c->root != MWP_NONE)
                fprintf(out, ",\"root\":%d", (int)c->root);
            fprintf(out, ",\"seconds\":%.3f,\"stuck\":%s}", secs,
                    mwc_stuck(secs, stuck_s) ? "true" : "false");
        }
    }
    fputs("]", out);
    wait_for(out, m, now, stuck_s);
    fputs("}", out);
}

char *mwc_web_state(const mwc_model *m, double now, double elapsed, double stuck_s, int recording,
                    size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *out = open_memstream(&buf, &n);
    if (out == NULL)
        return NULL;
    const mwc_rank *h = first_hello(m);
    int size = h ? (int)h->size : (int)m->n;
    fputs("{\"schema\":\"" MW_REPORT_SCHEMA "\",\"program\":", out);
    jstr(out, h ? h->program : "");
    fprintf(out, ",\"ranks\":%d,\"mpi\":", size);
    jstr(out, h ? h->mpi : "");
    fputs(",\"timer\":", out);
    jstr(out, h ? h->timer : "");
    mwc_total *t = NULL;
    size_t nt = mwc_model_totals(m, &t);
    functions(out, t, nt);
    per_rank(out, m, t, nt, size);
    free(t);
    pairs(out, m, size);
    live(out, m, now, elapsed, stuck_s, recording);
    fputs("}\n", out);
    if (fclose(out) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}
