/* The wait states of a trace, printed (client/wait_report.h). */
#include "wait_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_lines.h"
#include "trace_read.h"
#include "wait_states.h"

/* Causes listed by the text report, and the most ranks it lists one by
 * one; the JSON has them all. */
enum { TEXT_CAUSES = 20, TEXT_RANKS = 32 };

typedef struct {
    mwc_trace_rank *ranks;     /* by world rank; path NULL when missing */
    int nranks;
    mww_call **calls;          /* by rank: its calls for the analysis */
    mww_rank *view;
    int problems;              /* files damaged or unreadable (said on stderr) */
} traced_run;

double mwc_wait_seconds(const mwc_trace_rank *r, uint64_t base_ns, uint64_t t)
{
    /* differences taken in integers: nanoseconds since the epoch and TSC
     * counts do not fit a double's 53 bits exactly */
    return (double)(int64_t)(r->wall_ns - base_ns) / 1e9 +
           (double)(int64_t)(t - r->origin) / r->per_second;
}

/* A rooted collective's root, where the trace says it. */
static int root_of(const mwc_trace_call *c)
{
    (void)c;
    return -1;
}

/* The name without a large-count suffix is one of list. */
static int is_one_of(const char *name, const char *const *list)
{
    size_t n = strlen(name);
    if (n > 2 && strcmp(name + n - 2, "_c") == 0)
        n -= 2;
    for (int i = 0; list[i] != NULL; i++)
        if (strlen(list[i]) == n && strncmp(name, list[i], n) == 0)
            return 1;
    return 0;
}

/* A rooted call: its communicator and place among the rank's rooted calls
 * on it, the instance the analysis will match it to. */
typedef struct {
    int comm;
    long seq;
    mww_call *call;
} rooted_call;

static int by_instance(const void *pa, const void *pb)
{
    const rooted_call *x = pa, *y = pb;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Until the trace records roots: a rooted collective's root is the one
 * rank that sends in a broadcast or scatter, the one that receives in a
 * reduce or gather; the other calls of the instance (the same place on the
 * same communicator) learn it from the root's. */
static int infer_roots(traced_run *j)
{
    static const char *const outward[] = {"MPI_Bcast", "MPI_Scatter", "MPI_Scatterv", NULL};
    static const char *const inward[] = {"MPI_Reduce", "MPI_Gather", "MPI_Gatherv", NULL};
    rooted_call *v = NULL;
    size_t n = 0, cap = 0;
    int comms[64];             /* a rank's communicators, and its rooted calls on each */
    long counts[64];
    for (int k = 0; k < j->nranks; k++) {
        int ncomms = 0;
        for (size_t i = 0; i < j->ranks[k].ncalls; i++) {
            mww_call *c = &j->calls[k][i];
            const mwc_trace_call *t = &j->ranks[k].calls[i];
            int out = is_one_of(c->function, outward), in = is_one_of(c->function, inward);
            if (!out && !in)
                continue;
            if (c->root < 0 && t->traffic && ((out && t->sent > 0) || (in && t->recv > 0)))
                c->root = k;
            int at = 0;
            while (at < ncomms && comms[at] != c->comm)
                at++;
            if (at == ncomms && ncomms < 64) {
                comms[ncomms] = c->comm;
                counts[ncomms++] = 0;
            }
            if (at == 64)
                continue;   /* a 65th communicator: its calls' roots stay unknown */
            long seq = counts[at]++;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 256;
                rooted_call *more = realloc(v, nc * sizeof *more);
                if (more == NULL) {
                    free(v);
                    return -1;
                }
                v = more;
                cap = nc;
            }
            v[n++] = (rooted_call){c->comm, seq, c};
        }
    }
    qsort(v, n, sizeof *v, by_instance);
    for (size_t i = 0; i < n;) {
        size_t end = i;
        int root = -1;
        while (end < n && v[end].comm == v[i].comm && v[end].seq == v[i].seq)
            root = v[end++].call->root >= 0 ? v[end - 1].call->root : root;
        for (; i < end; i++)
            if (v[i].call->root < 0)
                v[i].call->root = root;
    }
    free(v);
    return 0;
}

static int load(const char *spec, traced_run *j, int quiet)
{
    char err[4800];
    char **paths = NULL;
    memset(j, 0, sizeof *j);
    int n = mwc_trace_find(spec, &paths, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "mpiwatch: %s\n", err);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        mwc_trace_rank r;
        if (mwc_trace_read_file(paths[i], &r, err, sizeof err) != 0) {
            fprintf(stderr, "mpiwatch: %s\n", err);
            j->problems++;
        } else if (j->nranks != 0 && r.ranks != j->nranks) {
            fprintf(stderr, "mpiwatch: %s is a trace of %d ranks, the others of %d; skipped\n",
                    paths[i], r.ranks, j->nranks);
            j->problems++;
        } else {
            if (j->ranks == NULL && (j->ranks = calloc((size_t)r.ranks, sizeof *j->ranks)) != NULL)
                j->nranks = r.ranks;
            if (j->ranks == NULL || j->ranks[r.rank].path != NULL) {
                fprintf(stderr, "mpiwatch: %s: %s\n", paths[i],
                        j->ranks == NULL ? "out of memory" : "a second file for its rank; skipped");
                j->problems++;
            } else {
                if (err[0] != '\0') {
                    fprintf(stderr, "mpiwatch: %s\n", err);
                    j->problems++;
                } else if (r.truncated && !quiet) {
                    fprintf(stderr, "mpiwatch: %s ends inside a chunk (the job was stopped while "
                                    "writing it); its whole chunks are analysed\n", paths[i]);
                }
                j->ranks[r.rank] = r;
                continue;
            }
        }
        mwc_trace_rank_free(&r);
    }
    for (int i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    if (j->nranks == 0)
        return -1;
    uint64_t base_ns = UINT64_MAX;
    for (int k = 0; k < j->nranks; k++)
        if (j->ranks[k].path != NULL && j->ranks[k].wall_ns < base_ns)
            base_ns = j->ranks[k].wall_ns;
    j->calls = calloc((size_t)j->nranks, sizeof *j->calls);
    j->view = calloc((size_t)j->nranks, sizeof *j->view);
    if (j->calls == NULL || j->view == NULL)
        return -1;
    for (int k = 0; k < j->nranks; k++) {
        const mwc_trace_rank *r = &j->ranks[k];
        if (r->ncalls == 0)
            continue;
        if ((j->calls[k] = malloc(r->ncalls * sizeof *j->calls[k])) == NULL)
            return -1;
        for (size_t i = 0; i < r->ncalls; i++) {
            const mwc_trace_call *t = &r->calls[i];
            j->calls[k][i] = (mww_call){r->names[t->fn],
                                        mwc_wait_seconds(r, base_ns, t->t_in),
                                        mwc_wait_seconds(r, base_ns, t->t_out),
                                        t->traffic ? t->peer : -1,
                                        t->traffic ? t->tag : -1,
                                        t->traffic ? t->comm : -1,
                                        root_of(t),
                                        t->sent,
                                        t->site,
                                        t->thread};
        }
        j->view[k] = (mww_rank){j->calls[k], r->ncalls};
    }
    return infer_roots(j);
}

static void unload(traced_run *j)
{
    for (int k = 0; k < j->nranks; k++) {
        mwc_trace_rank_free(&j->ranks[k]);
        if (j->calls != NULL)
            free(j->calls[k]);
    }
    free(j->ranks);
    free(j->calls);
    free(j->view);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static double share(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0;
}

static void print_json(FILE *out, const traced_run *j, const mww_result *r, size_t calls,
                       mwc_site_lines *lines, const char *sites_note)
{
    char site[512];
    fprintf(out, "{\"ranks\":%d,\"calls\":%zu,\"mpi_time\":%.9f,\"waiting\":%.9f,"
                 "\"waiting_share\":%.3f,\"patterns\":{",
            j->nranks, calls, r->mpi_time, r->waiting, share(r->waiting, r->mpi_time));
    for (int p = 0; p < MWW_PATTERNS; p++)
        fprintf(out, "%s\"%s\":{\"time\":%.9f,\"count\":%ld}", p ? "," : "", mww_pattern_key(p),
                r->pattern_time[p], r->pattern_count[p]);
    fputs("},\"causes\":[", out);
    for (size_t i = 0; i < r->ncauses; i++) {
        const mww_cause *c = &r->causes[i];
        mwc_site_lines_name(lines, c->site, site, sizeof site);
        fprintf(out, "%s\n{\"rank\":%d,\"pattern\":\"%s\",\"function\":", i ? "," : "", c->rank,
                mww_pattern_key(c->pattern));
        json_string(out, c->function);
        fputs(",\"site\":", out);
        json_string(out, site);
        fprintf(out, ",\"address\":\"0x%llx\",\"after\":", (unsigned long long)c->site);
        if (c->prev_function != NULL) {
            mwc_site_lines_name(lines, c->prev_site, site, sizeof site);
            fputs("{\"function\":", out);
            json_string(out, c->prev_function);
            fputs(",\"site\":", out);
            json_string(out, site);
            fprintf(out, ",\"address\":\"0x%llx\"}", (unsigned long long)c->prev_site);
        } else {
            fputs("null", out);
        }
        fprintf(out, ",\"waiting\":%.9f,\"share\":%.3f,\"instances\":%ld,\"waiting_ranks\":%ld}",
                c->waiting, share(c->waiting, r->mpi_time), c->instances, c->waiting_ranks);
    }
    fputs("],\n\"rank_waiting\":[", out);
    for (int k = 0; k < j->nranks; k++)
        fprintf(out, "%s%.9f", k ? "," : "", r->rank_waiting[k]);
    fputs("],\"rank_caused\":[", out);
    for (int k = 0; k < j->nranks; k++)
        fprintf(out, "%s%.9f", k ? "," : "", r->rank_caused[k]);
    fprintf(out, "],\"messages\":%ld,\"unmatched\":%ld,\"unordered_receivers\":%ld,"
                 "\"collectives\":%ld,\"incomplete_collectives\":%ld,\"sites\":",
            r->messages, r->unmatched, r->unordered_receivers, r->collectives,
            r->incomplete_collectives);
    json_string(out, sites_note);
    fputs("}\n", out);
}

static void print_text(FILE *out, const traced_run *j, const mww_result *r, size_t calls,
                       mwc_site_lines *lines, const char *sites_note)
{
    char site[512], prev[800];
    fprintf(out, "Waiting, and what caused it\n");
    fprintf(out, "  %d ranks, %zu calls: MPI time %.6f s, of which waiting %.6f s (%.1f%%)\n",
            j->nranks, calls, r->mpi_time, r->waiting, share(r->waiting, r->mpi_time));
    for (int p = 0; p < MWW_PATTERNS; p++)
        if (r->pattern_count[p] != 0)
            fprintf(out, "  %-16s %12.6f s  %8ld wait states\n", mww_pattern_name(p),
                    r->pattern_time[p], r->pattern_count[p]);
    if (r->ncauses != 0) {
        fprintf(out, "\n  %12s  %6s  %4s  %-16s  %-36s  %s\n", "caused (s)", "share", "rank",
                "pattern", "arrived late at", "after the work since");
        for (size_t i = 0; i < r->ncauses && i < TEXT_CAUSES; i++) {
            const mww_cause *c = &r->causes[i];
            char at[800];
            mwc_site_lines_name(lines, c->site, site, sizeof site);
            snprintf(at, sizeof at, "%s (%s)", site, c->function);
            if (c->prev_function != NULL) {
                mwc_site_lines_name(lines, c->prev_site, site, sizeof site);
                snprintf(prev, sizeof prev, "%s (%s)", site, c->prev_function);
            } else {
                snprintf(prev, sizeof prev, "the start");
            }
            fprintf(out, "  %12.6f  %5.1f%%  %4d  %-16s  %-36s  %s; %ld wait states of %ld rank%s\n",
                    c->waiting, share(c->waiting, r->mpi_time), c->rank,
                    mww_pattern_name(c->pattern), at, prev, c->instances, c->waiting_ranks,
                    c->waiting_ranks == 1 ? "" : "s");
        }
        if (r->ncauses > TEXT_CAUSES)
            fprintf(out, "  (%zu more causes: --json lists them all)\n", r->ncauses - TEXT_CAUSES);
    }
    if (r->ncauses != 0 && j->nranks <= TEXT_RANKS) {
        fprintf(out, "\n  %4s  %12s  %22s\n", "rank", "waited (s)", "made others wait (s)");
        for (int k = 0; k < j->nranks; k++)
            fprintf(out, "  %4d  %12.6f  %22.6f\n", k, r->rank_waiting[k], r->rank_caused[k]);
    }
    fprintf(out, "\n  %ld messages and %ld collective instances matched", r->messages,
            r->collectives);
    if (r->unmatched || r->unordered_receivers || r->incomplete_collectives)
        fprintf(out, "; not analysed: %ld sends or receives without a partner, %ld receiving "
                     "ranks whose non-blocking or combined receives hide the order, %ld "
                     "collective instances not every rank reached",
                r->unmatched, r->unordered_receivers, r->incomplete_collectives);
    fprintf(out, "\n  sites: %s\n", sites_note);
}

int mwc_wait_report(const char *spec, const char *program, int json, int quiet)
{
    traced_run j;
    if (load(spec, &j, quiet) != 0) {
        if (j.nranks != 0)
            fprintf(stderr, "mpiwatch: out of memory reading the trace\n");
        unload(&j);
        return 1;
    }
    mww_result r;
    mww_options opt = {MWW_RENDEZVOUS_BYTES_DEFAULT};
    if (mww_analyze(j.view, j.nranks, &opt, &r) != 0) {
        fprintf(stderr, "mpiwatch: out of memory analysing the trace\n");
        unload(&j);
        return 1;
    }
    char note[1200] = "addresses (give --exe PROGRAM to name them file:line)";
    mwc_site_lines *lines = NULL;
    if (program != NULL) {
        char why[1000];
        lines = mwc_site_lines_open(program, why, sizeof why);
        if (lines != NULL)
            snprintf(note, sizeof note, "file:line from %s (libdw)", program);
        else
            snprintf(note, sizeof note, "%s", why);
    }
    size_t calls = 0;
    uint64_t dropped = 0;
    int files = 0;
    for (int k = 0; k < j.nranks; k++) {
        calls += j.ranks[k].ncalls;
        dropped += j.ranks[k].dropped;
        files += j.ranks[k].path != NULL;
    }
    if (json)
        print_json(stdout, &j, &r, calls, lines, note);
    else
        print_text(stdout, &j, &r, calls, lines, note);
    if (!quiet && files < j.nranks)
        fprintf(stderr, "mpiwatch: only %d of %d ranks' files were read: waits involving the "
                        "others are not seen\n", files, j.nranks);
    if (!quiet && dropped)
        fprintf(stderr, "mpiwatch: the ranks dropped %llu calls (MPIWATCH_TRACE_BUFFER reached): "
                        "messages and collectives around the holes may be matched wrongly\n",
                (unsigned long long)dropped);
    mwc_site_lines_close(lines);
    mww_result_free(&r);
    int status = j.problems != 0;
    unload(&j);
    return status;
}
