/* The text report: what a user reads first. */
#include <stdio.h>
#include <stdlib.h>

#include "mw_functions.h"
#include "report/report.h"
#include "core/state.h"

/* Ranks listed one by one up to this many; beyond it, a summary. */
#define MW_TEXT_RANKS 16
#define MW_TEXT_PAIRS 10

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

static void write_header(FILE *out, const mw_job_summary *job)
{
    const mw_config *c = &mw_state.config;
    if (job->snapshot)
        fprintf(out, "mpiwatch snapshot %d of rank %d (of %d): %s (%s)\n", job->snapshot,
                job->first_rank, mw_state.world_size, job->program, mw_mpi_description);
    else
        fprintf(out, "mpiwatch report: %s on %d rank%s (%s)\n", job->program, job->ranks,
                job->ranks == 1 ? "" : "s", mw_mpi_description);
    fprintf(out, "timer: %s; profiling level at start: %d; reports in: %s\n", job->timer,
            c->initial_level, c->outdir);
    if (job->monitor != NULL)
        fprintf(out, "live monitor (%s): events sent %llu, dropped %llu, unwatched %llu (all ranks)\n",
                job->monitor, (unsigned long long)job->monitor_sent,
                (unsigned long long)job->monitor_dropped, (unsigned long long)job->monitor_unwatched);
    fprintf(out, "\n");
}

static void write_ranks(FILE *out, const mw_job_summary *job)
{
    double app_sum = 0, mpi_sum = 0, mpi_max = 0;
    int slowest = 0;
    if (job->app_time == NULL)
        return;
    for (int r = 0; r < job->ranks; r++) {
        app_sum += job->app_time[r];
        mpi_sum += job->mpi_time[r];
        if (job->mpi_time[r] > mpi_max) {
            mpi_max = job->mpi_time[r];
            slowest = r;
        }
    }
    fprintf(out, "Time per rank        application (s)      MPI (s)    MPI %%\n");
    for (int r = 0; r < job->ranks && r < MW_TEXT_RANKS; r++)
        fprintf(out, "  rank %-6d        %15.6f %12.6f %7.1f%%\n", job->first_rank + r, job->app_time[r],
                job->mpi_time[r], percent(job->mpi_time[r], job->app_time[r]));
    if (job->ranks > MW_TEXT_RANKS)
        fprintf(out, "  ... %d more ranks (all of them are in the JSON report)\n",
                job->ranks - MW_TEXT_RANKS);
    double mpi_mean = mpi_sum / job->ranks;
    fprintf(out, "  mean               %15.6f %12.6f %7.1f%%\n", app_sum / job->ranks, mpi_mean,
            percent(mpi_sum, app_sum));
    fprintf(out, "MPI time imbalance: max/mean %.2f (rank %d spends the most time in MPI)\n\n",
            mpi_mean > 0 ? mpi_max / mpi_mean : 1.0, job->first_rank + slowest);
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
        total += job->fn[ids[k]].time;
    fprintf(out, "MPI functions by time (summed over ranks; per-rank time min/mean/max)\n");
    fprintf(out, "  %-26s %10s %12s %6s %30s %12s %12s\n", "function", "calls", "time (s)",
            "%MPI", "per rank min / mean / max (s)", "sent", "received");
    for (int k = 0; k < n; k++) {
        const mw_fn_summary *f = &job->fn[ids[k]];
        char sent[32], recv[32], spread[64];
        human_bytes(sent, sizeof sent, (double)f->sent);
        human_bytes(recv, sizeof recv, (double)f->recv);
        snprintf(spread, sizeof spread, "%.6f / %.6f / %.6f", f->rank_min, f->time / job->ranks,
                 f->rank_max);
        fprintf(out, "  %-26s %10llu %12.6f %6.1f %30s %12s %12s\n", mw_fn_names[ids[k]],
                (unsigned long long)f->calls, f->time, percent(f->time, total), spread, sent,
                recv);
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

void mw_report_text(FILE *out, const mw_job_summary *job)
{
    static int ids[MW_FN_COUNT];
    int n = functions_by_time(job, ids);
    write_header(out, job);
    write_ranks(out, job);
    write_functions(out, job, ids, n);
    write_histograms(out, job, ids, n);
    write_pairs(out, job);
    write_regions(out, job);
}
