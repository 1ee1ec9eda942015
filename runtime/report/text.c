/* The text report: what a user reads first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mw_functions.h"
#include "report/report.h"
#include "report/wait_section.h"
#include "core/state.h"

/* Ranks listed one by one up to this many; beyond it, a summary. */
#define MW_TEXT_RANKS 16
#define MW_TEXT_PAIRS 10
#define MW_TEXT_SITES 20

static void human_bytes(char *out, size_t size, double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(out, size, u ? "%.1f %s" : "%.0f %s", bytes, units[u]);
}

static double percent(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* A partial profile's first lines: whose, when and why. */
static void write_partial(FILE *out, const mw_job_summary *job)
{
    char when[32] = "?";
    time_t t = (time_t)job->taken;
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(out, "mpiwatch PARTIAL profile of rank %d (of %d): %s (%s)\n", job->first_rank,
            mw_state.world_size, job->program, mw_mpi_description);
    fprintf(out, "taken %s on %s (pid %ld) because: %s; `mpiwatch --merge` combines the "
                 "ranks' partial files\n",
            when, job->partial_host, (long)getpid(), job->partial);
    fprintf(out, "command: %s\n", job->command);
}

/* When, where and why one rank's partial profile was taken. */
static void write_taken(FILE *out, const mw_merged_rank *p)
{
    char when[32] = "?";
    time_t t = (time_t)p->taken;
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(out, "  rank %-6d taken %s on %s (pid %ld) because: %s\n", p->rank, when, p->host,
            p->pid, p->reason);
}

void mw_report_rank_ranges(FILE *out, const int *ranks, int n)
{
    int ranges = 0, i = 0;
    for (; i < n && ranges < MW_TEXT_RANKS; ranges++) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        if (j > i)
            fprintf(out, "%s %d-%d", ranges ? "," : "", ranks[i], ranks[j]);
        else
            fprintf(out, "%s %d", ranges ? "," : "", ranks[i]);
        i = j + 1;
    }
    if (i < n)
        fprintf(out, ", and %d more rank%s (all in the JSON report)", n - i, n - i == 1 ? "" : "s");
}

/* A merged report's lines on its partial profiles: the ranks missing, and
 * when and why each rank's data was taken. */
static void write_merged(FILE *out, const mw_job_summary *job)
{
    const mw_merge_facts *m = job->merged;
    fprintf(out, "MERGED from the partial profiles of %d of %d ranks", job->ranks, m->world_size);
    if (m->nmissing == 0)
        fprintf(out, " (none missing)\n");
    else {
        fprintf(out, "; missing (no partial profile):");
        mw_report_rank_ranges(out, m->missing, m->nmissing);
        fprintf(out, "\n");
    }
    if (job->ranks > MW_TEXT_RANKS) {   /* the first and the last taken; all in the JSON */
        int first = 0, last = 0;
        for (int r = 0; r < job->ranks; r++) {
            first = m->ranks[r].taken < m->ranks[first].taken ? r : first;
            last = m->ranks[r].taken > m->ranks[last].taken ? r : last;
        }
        fprintf(out, "  (the first and the last taken; every rank's in the JSON report)\n");
        write_taken(out, &m->ranks[first]);
        if (last != first)
            write_taken(out, &m->ranks[last]);
        return;
    }
    for (int r = 0; r < job->ranks; r++)
        write_taken(out, &m->ranks[r]);
}

static void write_header(FILE *out, const mw_job_summary *job)
{
    const mw_config *c = &mw_state.config;
    if (job->partial)
        write_partial(out, job);
    else if (job->snapshot)
        fprintf(out, "mpiwatch snapshot %d of rank %d (of %d): %s (%s)\n", job->snapshot,
                job->first_rank, mw_state.world_size, job->program, mw_mpi_description);
    else
        fprintf(out, "mpiwatch report: %s on %d rank%s (%s)\n", job->program, job->ranks,
                job->ranks == 1 ? "" : "s", mw_mpi_description);
    if (!job->snapshot && !job->partial) {
        char start[32] = "?", end[32] = "?";
        time_t t0 = (time_t)job->start, t1 = (time_t)job->end;
        struct tm tm;
        if (job->start && localtime_r(&t0, &tm))
            strftime(start, sizeof start, "%Y-%m-%d %H:%M:%S", &tm);
        if (job->end && localtime_r(&t1, &tm))
            strftime(end, sizeof end, "%Y-%m-%d %H:%M:%S", &tm);
        if (mw_state.config.label[0] != '\0')
            fprintf(out, "label: %s\n", mw_state.config.label);
        fprintf(out, "command: %s\n", job->command);
        fprintf(out, "build-id: %s\n", job->build_id[0] ? job->build_id : "(none)");
        fprintf(out, "ran: %s to %s, on %d node%s: %s\n", start, end, job->nodes,
                job->nodes == 1 ? "" : "s", job->hosts);
        fprintf(out, "MPI library: %s\n", job->library);
    }
    if (job->merged)
        write_merged(out, job);
    fprintf(out, "timer: %s; profiling level at start: %d; reports in: %s\n", job->timer,
            c->initial_level, c->outdir);
    if (job->monitor != NULL)
        fprintf(out, "live monitor (%s): events sent %llu, dropped %llu, unwatched %llu; snapshots "
                     "skipped while a client was behind %llu (all ranks)\n",
                job->monitor, (unsigned long long)job->monitor_sent,
                (unsigned long long)job->monitor_dropped, (unsigned long long)job->monitor_unwatched,
                (unsigned long long)job->monitor_skipped);
    if (job->trace_ranks != 0)
        fprintf(out, "trace (%d ranks): calls recorded %llu, dropped %llu (MPIWATCH_TRACE_BUFFER "
                     "reached), %llu bytes written\n",
                job->trace_ranks, (unsigned long long)job->trace_events,
                (unsigned long long)job->trace_dropped, (unsigned long long)job->trace_bytes);
    fprintf(out, "\n");
}

/* The per-rank times qsort is ordering (qsort passes no context). */
static const double *sort_times;

static int by_rank_time_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    double tx = sort_times[x], ty = sort_times[y];
    return tx != ty ? (tx < ty) - (tx > ty) : (x > y) - (x < y);
}

static void write_rank_line(FILE *out, const mw_job_summary *job, int r, const char *note)
{
    fprintf(out, "  rank %-6d        %15.6f %12.6f %7.1f%% %12.6f%s%s\n", mw_report_rank(job, r),
            job->app_time[r], job->mpi_time[r], percent(job->mpi_time[r], job->app_time[r]),
            job->init_time[r], *note ? "  " : "", note);
}

/* Every rank of a small job; of a large one, those with the most and the
 * least MPI time and the median, so that no outlier hides past the first
 * lines. */
static void write_ranks(FILE *out, const mw_job_summary *job)
{
    double app_sum = 0, mpi_sum = 0;
    int n = job->ranks, *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (job->app_time == NULL || job->mpi_time == NULL || job->init_time == NULL || order == NULL) {
        free(order);
        return;
    }
    for (int r = 0; r < n; r++) {
        app_sum += job->app_time[r];
        mpi_sum += job->mpi_time[r];
        order[r] = r;
    }
    sort_times = job->mpi_time;
    qsort(order, (size_t)n, sizeof *order, by_rank_time_desc);
    int most = order[0], least = order[n - 1], median = order[n / 2];
    fprintf(out, "Time per rank        application (s)      MPI (s)    MPI %%  MPI_Init (s)\n");
    if (n <= MW_TEXT_RANKS) {
        for (int r = 0; r < n; r++)
            write_rank_line(out, job, r,
                            n < 3 ? "" : r == most ? "most MPI" : r == least ? "least MPI" : "");
    } else {
        int shown = MW_TEXT_RANKS / 2 - 1;
        for (int k = 0; k < shown; k++)
            write_rank_line(out, job, order[k], k == 0 ? "most MPI" : "");
        fprintf(out, "  ...\n");
        write_rank_line(out, job, median, "median");
        fprintf(out, "  ...\n");
        for (int k = n - shown; k < n; k++)
            write_rank_line(out, job, order[k], k == n - 1 ? "least MPI" : "");
        fprintf(out, "  (%d ranks, ordered by MPI time; all of them are in the JSON report)\n", n);
    }
    double mpi_mean = mpi_sum / n;
    fprintf(out, "  mean               %15.6f %12.6f %7.1f%%\n", app_sum / n, mpi_mean,
            percent(mpi_sum, app_sum));
    fprintf(out, "Application time runs from the end of MPI_Init to the start of MPI_Finalize; "
                 "MPI time leaves out MPI_Init and MPI_Finalize.\n");
    if (n > 1)
        fprintf(out, "MPI time imbalance: max/mean %.2f; rank %d spends the most time in MPI "
                     "(%.6f s), rank %d the least (%.6f s)%s\n",
                mpi_mean > 0 ? job->mpi_time[most] / mpi_mean : 1.0, mw_report_rank(job, most),
                job->mpi_time[most], mw_report_rank(job, least), job->mpi_time[least],
                job->mpi_time[least] < 0.5 * mpi_mean ? ": the others may be waiting for it" : "");
    fprintf(out, "\n");
    free(order);
}

/* The functions qsort is ordering (qsort passes no context). */
static const mw_fn_summary *sort_fns;

static int by_time_desc(const void *a, const void *b)
{
    double x = sort_fns[*(const int *)a].time, y = sort_fns[*(const int *)b].time;
    return (x < y) - (x > y);
}

static int functions_by_time(const mw_job_summary *job, int *ids)
{
    int n = 0;
    for (int i = 0; i < MW_FN_COUNT; i++)
        if (job->fn[i].calls > 0)
            ids[n++] = i;
    sort_fns = job->fn;
    qsort(ids, (size_t)n, sizeof *ids, by_time_desc);
    return n;
}

static void write_functions(FILE *out, const mw_job_summary *job, const int *ids, int n)
{
    double total = 0;
    for (int k = 0; k < n; k++)
        if (!mw_fn_is_startup(ids[k]))
            total += job->fn[ids[k]].time;
    fprintf(out, "MPI functions by time (summed over ranks; per-rank time min/mean/max, with the "
                 "rank of each extreme, and its coefficient of variation)\n");
    fprintf(out, "  %-26s %10s %12s %6s %48s %5s %12s %12s\n", "function", "calls", "time (s)",
            "%MPI", "per rank min (rank) / mean / max (rank) (s)", "CV", "sent", "received");
    for (int k = 0; k < n; k++) {
        const mw_fn_summary *f = &job->fn[ids[k]];
        char sent[32], recv[32], spread[96], share[16];
        human_bytes(sent, sizeof sent, (double)f->sent);
        human_bytes(recv, sizeof recv, (double)f->recv);
        snprintf(spread, sizeof spread, "%.6f (%d) / %.6f / %.6f (%d)", f->rank_min,
                 f->rank_min_at, f->time / job->ranks, f->rank_max, f->rank_max_at);
        if (mw_fn_is_startup(ids[k]))
            snprintf(share, sizeof share, "%6s", "-");
        else
            snprintf(share, sizeof share, "%6.1f", percent(f->time, total));
        fprintf(out, "  %-26s %10llu %12.6f %s %48s %5.2f %12s %12s\n", mw_fn_names[ids[k]],
                (unsigned long long)f->calls, f->time, share, spread, f->cv, sent, recv);
    }
    fprintf(out, "\n");
}

static void write_histograms(FILE *out, const mw_job_summary *job, const int *ids, int n)
{
    int any = 0;
    for (int k = 0; k < n; k++) {
        const uint64_t *h = job->fn[ids[k]].hist;
        if (h == NULL)
            continue;
        if (!any++)
            fprintf(out, "Message sizes (calls per size range, all ranks)\n");
        fprintf(out, "  %s:", mw_fn_names[ids[k]]);
        for (int b = 0; b < MW_HIST_BUCKETS; b++) {
            if (h[b] == 0)
                continue;
            char lo[32], hi[32];
            human_bytes(lo, sizeof lo, b ? (double)(1ull << (b - 1)) : 0.0);
            human_bytes(hi, sizeof hi, (double)(1ull << b));
            if (b == 0)
                fprintf(out, "  [0 B]: %llu", (unsigned long long)h[b]);
            else
                fprintf(out, "  [%s, %s): %llu", lo, hi, (unsigned long long)h[b]);
        }
        fprintf(out, "\n");
    }
    if (any)
        fprintf(out, "\n");
}

static void write_pairs(FILE *out, const mw_job_summary *job)
{
    if (job->npairs == 0)
        return;
    fprintf(out, "Most talkative rank pairs (point-to-point and one-sided sends)\n");
    fprintf(out, "  %8s %8s %14s %12s\n", "from", "to", "bytes", "messages");
    for (int i = 0; i < job->npairs && i < MW_TEXT_PAIRS; i++) {
        const mw_pair *p = &job->pairs[i];
        char bytes[32];
        human_bytes(bytes, sizeof bytes, (double)p->bytes);
        fprintf(out, "  %8llu %8llu %14s %12llu\n", (unsigned long long)p->from,
                (unsigned long long)p->to, bytes, (unsigned long long)p->messages);
    }
    if (job->matrix_file)   /* the text keeps the busiest; the file has them all */
        fprintf(out, "  every pair, exactly: %s.matrix (`mpiwatch --matrix-file` prints it, "
                     "`mpiwatch --report %s.json --html` draws it)\n", job->name, job->name);
    fprintf(out, "\n");
}

static void write_regions(FILE *out, const mw_job_summary *job)
{
    if (job->nregions == 0)
        return;
    fprintf(out, "MPI time by region (slowest rank; sums over ranks in the JSON report)\n");
    fprintf(out, "  %-24s %6s %10s %12s %12s %7s %12s\n", "region", "ranks", "entries", "wall (s)",
            "MPI (s)", "MPI %", "MPI calls");
    for (int i = 0; i < job->nregions; i++) {
        const mw_region_summary *r = &job->regions[i];
        fprintf(out, "  %-24s %6d %10llu %12.6f %12.6f %6.1f%% %12llu\n", r->name, r->ranks,
                (unsigned long long)r->entries, r->wall_max, r->mpi_max,
                percent(r->mpi_sum, r->wall_sum), (unsigned long long)r->calls);
    }
    fprintf(out, "\n");
}

/* "file:line (function)", or what is known of the site. */
static void site_name(char *out, size_t size, const mw_site_summary *s)
{
    const char *base = strrchr(s->file, '/') ? strrchr(s->file, '/') + 1 : s->file;
    const char *module = strrchr(s->module, '/') ? strrchr(s->module, '/') + 1 : s->module;
    if (s->file[0])
        snprintf(out, size, "%s:%d (%s)", base, s->line, s->function[0] ? s->function : "?");
    else if (s->function[0])
        snprintf(out, size, "%s (%s+0x%llx, no line information)", s->function, module,
                 (unsigned long long)s->all.offset);
    else
        snprintf(out, size, "%s+0x%llx", module, (unsigned long long)s->all.offset);
    /* With MPIWATCH_CALLSITE_DEPTH > 1, the callers above: " < f (file:line)". */
    for (int d = 0; s->up != NULL && d < s->all.depth - 1; d++) {
        const mw_frame_name *f = &s->up[d];
        const char *file = strrchr(f->file, '/') ? strrchr(f->file, '/') + 1 : f->file;
        size_t used = strlen(out);
        if (f->file[0])
            snprintf(out + used, size - used, " < %s (%s:%d)", f->function[0] ? f->function : "?",
                     file, f->line);
        else
            snprintf(out + used, size - used, " < %s", f->function[0] ? f->function : "?");
    }
}

/* The modules of listed sites that had no line information, once each. */
static void write_unlined_modules(FILE *out, const mw_job_summary *job)
{
    int listed = 0;
    for (int i = 0, shown = 0; i < job->nsites && shown < MW_TEXT_SITES; i++) {
        const mw_site_summary *s = &job->sites[i];
        if (mw_fn_is_startup(s->all.fn))
            continue;
        shown++;
        int seen = s->file[0] != '\0' || s->module[0] != '/';
        for (int k = 0, before = 0; !seen && k < i && before < shown - 1; k++) {
            const mw_site_summary *o = &job->sites[k];
            if (mw_fn_is_startup(o->all.fn))
                continue;
            before++;
            seen = o->file[0] == '\0' && strcmp(o->module, s->module) == 0;
        }
        if (seen)
            continue;
        fprintf(out, "%s%s", listed++ ? ", " : "  (no line information in: ", s->module);
    }
    if (listed)
        fprintf(out, "; build with -g, or install the debug symbols of these modules)\n");
}

static void write_sites(FILE *out, const mw_job_summary *job)
{
    double total = 0;
    if (job->sites_resolver == NULL || job->nsites == 0)
        return;
    for (int i = 0; i < MW_FN_COUNT; i++)
        if (!mw_fn_is_startup(i))
            total += job->fn[i].time;
    fprintf(out, "Call sites by time (the busiest %d, MPI_Init and MPI_Finalize left out; all %d "
                 "are in the JSON report; resolved with %s)\n",
            MW_TEXT_SITES, job->nsites, job->sites_resolver);
    fprintf(out, "  %-20s %-44s %10s %12s %6s %46s %5s %12s %12s\n", "function", "site", "calls",
            "time (s)", "%MPI", "per rank min (rank) / mean / max (rank) (s)", "CV", "sent",
            "received");
    for (int i = 0, shown = 0; i < job->nsites && shown < MW_TEXT_SITES; i++) {
        const mw_site_summary *s = &job->sites[i];
        if (mw_fn_is_startup(s->all.fn))
            continue;
        shown++;
        char name[2048], spread[96], low[16], sent[32], recv[32];
        site_name(name, sizeof name, s);
        if (s->rank_min_at >= 0)
            snprintf(low, sizeof low, "%d", s->rank_min_at);
        else
            snprintf(low, sizeof low, "absent");
        snprintf(spread, sizeof spread, "%.6f (%s) / %.6f / %.6f (%d)", s->rank_min, low,
                 s->all.time / job->ranks, s->rank_max, s->rank_max_at);
        human_bytes(sent, sizeof sent, (double)s->all.sent);
        human_bytes(recv, sizeof recv, (double)s->all.recv);
        fprintf(out, "  %-20s %-44s %10llu %12.6f %6.1f %46s %5.2f %12s %12s\n",
                mw_fn_names[s->all.fn], name, (unsigned long long)s->all.calls, s->all.time,
                percent(s->all.time, total), spread, s->cv,
                sent, recv);
    }
    write_unlined_modules(out, job);
    if (job->sites_other > 0)
        fprintf(out, "  (%llu calls were kept by function only: the per-thread table of %d sites "
                     "was full, or a rank had more than %d sites)\n",
                (unsigned long long)job->sites_other, MW_SITES, MW_SITES_PER_RANK);
    fprintf(out, "\n");
}

/* The bounds of size bucket b (MW_HIST_BUCKETS): [0, 1) for empty messages. */
static double bucket_low(int b)
{
    return b ? (double)(1ull << (b - 1)) : 0.0;
}

/* Per call site, the mean message and the size ranges its messages fell in
 * (which power-of-two ranges occurred, not how often: that costs the call
 * path two instructions, a histogram per site would cost ten). */
static void write_site_sizes(FILE *out, const mw_job_summary *job)
{
    int shown = 0;
    for (int i = 0; i < job->nsites && shown < MW_TEXT_SITES; i++) {
        const mw_site_summary *s = &job->sites[i];
        if (s->all.sizes == 0 || mw_fn_is_startup(s->all.fn))
            continue;
        if (!shown++)
            fprintf(out, "Message sizes by call site (the busiest %d sites that moved "
                         "messages; mean, and the power-of-two ranges their sizes fell in)\n"
                         "  %-20s %-44s %10s %12s  %s\n", MW_TEXT_SITES, "function", "site",
                    "calls", "mean", "ranges");
        char name[2048], mean[32], ranges[512] = "";
        size_t used = 0;
        site_name(name, sizeof name, s);
        uint64_t moved = s->all.sent ? s->all.sent : s->all.recv;
        human_bytes(mean, sizeof mean, s->all.calls ? (double)moved / (double)s->all.calls : 0);
        for (int b = 0; b < MW_HIST_BUCKETS && used < sizeof ranges - 64; b++) {
            if (!(s->all.sizes >> b & 1))
                continue;
            char lo[32], hi[32];
            human_bytes(lo, sizeof lo, bucket_low(b));
            human_bytes(hi, sizeof hi, bucket_low(b + 1));
            used += (size_t)snprintf(ranges + used, sizeof ranges - used,
                                     b ? "%s[%s, %s)" : "%s[0 B]", used ? " " : "", lo, hi);
        }
        fprintf(out, "  %-20s %-44s %10llu %12s  %s\n", mw_fn_names[s->all.fn], name,
                (unsigned long long)s->all.calls, mean, ranges);
    }
    if (shown)
        fprintf(out, "\n");
}

static void write_counters(FILE *out, const mw_job_summary *job)
{
    if (job->ncounters == 0)
        return;
    fprintf(out, "Counters (mpiwatch_counter_add; summed over the ranks that counted)\n");
    fprintf(out, "  %-40s %16s %6s %24s %24s\n", "counter", "sum", "ranks", "least (rank)",
            "most (rank)");
    for (int i = 0; i < job->ncounters; i++) {
        const mw_counter_summary *c = &job->counters[i];
        char low[48], high[48];
        snprintf(low, sizeof low, "%lld (%d)", (long long)c->min, c->min_rank);
        snprintf(high, sizeof high, "%lld (%d)", (long long)c->max, c->max_rank);
        fprintf(out, "  %-40s %16lld %6d %24s %24s\n", c->name, (long long)c->sum, c->ranks, low,
                high);
    }
    fprintf(out, "\n");
}

void mw_report_text(FILE *out, const mw_job_summary *job)
{
    static int ids[MW_FN_COUNT];
    int n = functions_by_time(job, ids);
    write_header(out, job);
    write_ranks(out, job);
    write_functions(out, job, ids, n);
    write_sites(out, job);
    write_histograms(out, job, ids, n);
    write_site_sizes(out, job);
    write_pairs(out, job);
    write_regions(out, job);
    write_counters(out, job);
    if (job->waits != NULL) {
        mw_wait_report_text(out, job->waits);
        fprintf(out, "\n");
    }
}
