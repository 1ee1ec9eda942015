/* The JSON report, schema MW_REPORT_SCHEMA (docs/report-format.md). */
#include <stdio.h>
#include <unistd.h>

#include "fortran/bridge.h"
#include "mw_functions.h"
#include "report/report.h"
#include "report/wait_section.h"
#include "core/state.h"
#include "mpiwatch_report.h"

static void write_config(FILE *out)
{
    const mw_config *c = &mw_state.config;
    fprintf(out, "  \"config\": {\"outdir\": ");
    mw_json_string(out, c->outdir);
    fprintf(out, ", \"formats\": \"%s%s%s%s%s\", \"level\": %d, \"timer\": \"%s\", "
                 "\"callsite_depth\": %d},\n",
            c->formats & MW_FORMAT_TEXT ? "text" : "",
            (c->formats & MW_FORMAT_TEXT) && (c->formats & MW_FORMAT_JSON) ? "," : "",
            c->formats & MW_FORMAT_JSON ? "json" : "",
            (c->formats & (MW_FORMAT_TEXT | MW_FORMAT_JSON)) && (c->formats & MW_FORMAT_HTML) ? "," : "",
            c->formats & MW_FORMAT_HTML ? "html" : "", c->initial_level, c->timer,
            c->callsite_depth);
}

/* {"min", "min_rank", "max", "max_rank", "mean"} of one time over the ranks. */
static void write_spread(FILE *out, const char *name, const double *t, const mw_job_summary *job)
{
    int lo = 0, hi = 0;
    double sum = 0;
    for (int r = 0; r < job->ranks; r++) {
        sum += t[r];
        lo = t[r] < t[lo] ? r : lo;
        hi = t[r] > t[hi] ? r : hi;
    }
    fprintf(out, "  \"%s\": {\"min\": %.9g, \"min_rank\": %d, \"max\": %.9g, \"max_rank\": %d, "
                 "\"mean\": %.9g},\n",
            name, t[lo], mw_report_rank(job, lo), t[hi], mw_report_rank(job, hi), sum / job->ranks);
}

static void write_ranks(FILE *out, const mw_job_summary *job)
{
    fprintf(out, "  \"rank_times\": [");
    int have = job->app_time != NULL && job->mpi_time != NULL && job->init_time != NULL;
    for (int r = 0; have && r < job->ranks; r++)
        fprintf(out, "%s{\"rank\": %d, \"app\": %.9g, \"mpi\": %.9g, \"init\": %.9g}",
                r ? ", " : "", mw_report_rank(job, r), job->app_time[r], job->mpi_time[r],
                job->init_time[r]);
    fprintf(out, "],\n");
    if (!have || job->ranks < 1)
        return;
    write_spread(out, "app_time", job->app_time, job);
    write_spread(out, "mpi_time", job->mpi_time, job);
    write_spread(out, "init_time", job->init_time, job);
}

static void write_histogram(FILE *out, const uint64_t *hist)
{
    const char *sep = "";
    fprintf(out, ", \"sizes\": [");
    for (int b = 0; b < MW_HIST_BUCKETS; b++) {
        if (hist[b] == 0)
            continue;
        unsigned long long lo = b ? 1ull << (b - 1) : 0, hi = b ? 1ull << b : 1;
        fprintf(out, "%s[%llu, %llu, %llu]", sep, lo, hi, (unsigned long long)hist[b]);
        sep = ", ";
    }
    fprintf(out, "]");
}

static void write_functions(FILE *out, const mw_job_summary *job)
{
    const char *sep = "\n";
    fprintf(out, "  \"functions\": {");
    for (int i = 0; i < MW_FN_COUNT; i++) {
        const mw_fn_summary *f = &job->fn[i];
        if (f->calls == 0)
            continue;
        fprintf(out, "%s    ", sep);
        mw_json_string(out, mw_fn_names[i]);
        fprintf(out, ": {\"category\": \"%s\", \"calls\": %llu, \"time\": %.9g, "
                     "\"min\": %.9g, \"max\": %.9g, "
                     "\"rank_time\": {\"min\": %.9g, \"min_rank\": %d, \"mean\": %.9g, "
                     "\"max\": %.9g, \"max_rank\": %d, \"cv\": %.6g}, "
                     "\"mpi_time\": %s, \"bytes_sent\": %llu, \"bytes_recv\": %llu",
                mw_fn_categories[i], (unsigned long long)f->calls, f->time, f->min, f->max,
                f->rank_min, f->rank_min_at, f->time / job->ranks, f->rank_max, f->rank_max_at,
                f->cv, mw_fn_is_startup(i) ? "false" : "true", (unsigned long long)f->sent,
                (unsigned long long)f->recv);
        if (f->hist != NULL)
            write_histogram(out, f->hist);
        fprintf(out, "}");
        sep = ",\n";
    }
    fprintf(out, "\n  },\n");
}

static void write_pairs(FILE *out, const mw_job_summary *job)
{
    fprintf(out, "  \"pairs\": [");
    for (int i = 0; i < job->npairs; i++) {
        const mw_pair *p = &job->pairs[i];
        fprintf(out, "%s\n    {\"from\": %llu, \"to\": %llu, \"bytes\": %llu, \"messages\": %llu}",
                i ? "," : "", (unsigned long long)p->from, (unsigned long long)p->to,
                (unsigned long long)p->bytes, (unsigned long long)p->messages);
    }
    fprintf(out, "%s],\n", job->npairs ? "\n  " : "");
}

static void write_monitor(FILE *out, const mw_job_summary *job)
{
    if (job->monitor == NULL)
        return;
    fprintf(out, "  \"monitor\": {\"transport\": \"%s\", \"events_sent\": %llu, "
                 "\"events_dropped\": %llu, \"events_unwatched\": %llu, "
                 "\"snapshots_skipped\": %llu},\n",
            job->monitor, (unsigned long long)job->monitor_sent,
            (unsigned long long)job->monitor_dropped, (unsigned long long)job->monitor_unwatched,
            (unsigned long long)job->monitor_skipped);
}

static void write_trace(FILE *out, const mw_job_summary *job)
{
    if (job->trace_ranks == 0)
        return;
    fprintf(out, "  \"trace\": {\"ranks\": %d, \"events\": %llu, \"dropped\": %llu, "
                 "\"bytes\": %llu},\n",
            job->trace_ranks, (unsigned long long)job->trace_events,
            (unsigned long long)job->trace_dropped, (unsigned long long)job->trace_bytes);
}

static void write_waits(FILE *out, const mw_job_summary *job)
{
    if (job->waits == NULL)
        return;
    fprintf(out, "  \"waits\": ");
    mw_wait_report_json(out, job->waits);
    fprintf(out, ",\n");
}

static void write_regions(FILE *out, const mw_job_summary *job)
{
    fprintf(out, "  \"regions\": {");
    for (int i = 0; i < job->nregions; i++) {
        const mw_region_summary *r = &job->regions[i];
        fprintf(out, "%s\n    ", i ? "," : "");
        mw_json_string(out, r->name);
        fprintf(out, ": {\"ranks\": %d, \"entries\": %llu, \"calls\": %llu, "
                     "\"wall\": {\"sum\": %.9g, \"max\": %.9g}, \"mpi\": {\"sum\": %.9g, \"max\": %.9g}}",
                r->ranks, (unsigned long long)r->entries, (unsigned long long)r->calls, r->wall_sum,
                r->wall_max, r->mpi_sum, r->mpi_max);
    }
    fprintf(out, "%s}\n", job->nregions ? "\n  " : "");
}

static void write_sites(FILE *out, const mw_job_summary *job)
{
    if (job->sites_resolver == NULL)
        return;   /* a snapshot: no call sites */
    fprintf(out, "  \"callsites\": {\"resolver\": ");
    mw_json_string(out, job->sites_resolver);
    fprintf(out, ", \"other_calls\": %llu, \"sites\": [", (unsigned long long)job->sites_other);
    for (int i = 0; i < job->nsites; i++) {
        const mw_site_summary *s = &job->sites[i];
        fprintf(out, "%s\n    {\"function\": ", i ? "," : "");
        mw_json_string(out, mw_fn_names[s->all.fn]);
        fprintf(out, ", \"caller\": ");
        mw_json_string(out, s->function);
        fprintf(out, ", \"file\": ");
        mw_json_string(out, s->file);
        fprintf(out, ", \"line\": %d, \"module\": ", s->line);
        mw_json_string(out, s->module);
        if (s->up != NULL) {     /* MPIWATCH_CALLSITE_DEPTH > 1: the callers above */
            fprintf(out, ", \"stack\": [");
            for (int d = 0; d < s->all.depth - 1; d++) {
                fprintf(out, "%s{\"caller\": ", d ? ", " : "");
                mw_json_string(out, s->up[d].function);
                fprintf(out, ", \"file\": ");
                mw_json_string(out, s->up[d].file);
                fprintf(out, ", \"line\": %d}", s->up[d].line);
            }
            fprintf(out, "]");
        }
        fprintf(out, ", \"offset\": \"0x%llx\", \"ranks\": %d, \"calls\": %llu, \"time\": %.9g, "
                     "\"min\": %.9g, \"max\": %.9g, "
                     "\"rank_time\": {\"min\": %.9g, \"min_rank\": %d, \"mean\": %.9g, "
                     "\"max\": %.9g, \"max_rank\": %d, \"cv\": %.6g}, "
                     "\"bytes_sent\": %llu, \"bytes_recv\": %llu, \"size_ranges\": [",
                (unsigned long long)s->all.offset, s->ranks, (unsigned long long)s->all.calls,
                s->all.time, s->all.min, s->all.max, s->rank_min, s->rank_min_at,
                s->all.time / job->ranks, s->rank_max, s->rank_max_at, s->cv,
                (unsigned long long)s->all.sent, (unsigned long long)s->all.recv);
        for (int b = 0, k = 0; b < MW_HIST_BUCKETS; b++)
            if (s->all.sizes >> b & 1)
                fprintf(out, "%s[%llu, %llu]", k++ ? ", " : "", b ? 1ull << (b - 1) : 0ull,
                        b ? 1ull << b : 1ull);
        fprintf(out, "]}");
    }
    fprintf(out, "%s]},\n", job->nsites ? "\n  " : "");
}

/* "rank_functions": the functions called somewhere, and for each rank its
 * calls, time, bytes sent and received in each of them. */
static void write_matrix(FILE *out, const mw_job_summary *job)
{
    static const char *const fields[] = {"calls", "time", "bytes_sent", "bytes_recv"};
    if (job->matrix == NULL)
        return;
    int rows = job->matrix_rows;
    fprintf(out, "  \"rank_functions\": {\"functions\": [");
    for (int k = 0; k < rows; k++) {
        fprintf(out, "%s", k ? ", " : "");
        mw_json_string(out, mw_fn_names[job->matrix_fns[k]]);
    }
    fprintf(out, "],\n    \"ranks\": [");
    for (int r = 0; r < job->ranks; r++) {
        fprintf(out, "%s\n      {\"rank\": %d", r ? "," : "", mw_report_rank(job, r));
        for (int f = 0; f < 4; f++) {
            fprintf(out, ", \"%s\": [", fields[f]);
            for (int k = 0; k < rows; k++)
                fprintf(out, f == 1 ? "%s%.9g" : "%s%.0f", k ? ", " : "",
                        job->matrix[((size_t)r * (size_t)rows + (size_t)k) * 4 + (size_t)f]);
            fprintf(out, "]");
        }
        fprintf(out, "}");
    }
    fprintf(out, "%s]},\n", job->ranks ? "\n    " : "");
}

static void write_counters(FILE *out, const mw_job_summary *job)
{
    fprintf(out, "  \"counters\": {");
    for (int i = 0; i < job->ncounters; i++) {
        const mw_counter_summary *c = &job->counters[i];
        fprintf(out, "%s\n    ", i ? "," : "");
        mw_json_string(out, c->name);
        fprintf(out, ": {\"sum\": %lld, \"ranks\": %d, \"min\": %lld, \"min_rank\": %d, "
                     "\"max\": %lld, \"max_rank\": %d}",
                (long long)c->sum, c->ranks, (long long)c->min, c->min_rank, (long long)c->max,
                c->max_rank);
    }
    fprintf(out, "%s},\n", job->ncounters ? "\n  " : "");
}

/* A partial profile's facts (docs/report-format.md, "partial"). */
static void write_partial(FILE *out, const mw_job_summary *job)
{
    fprintf(out, "  \"partial\": {\"rank\": %d, \"world_size\": %d, \"reason\": ", job->first_rank,
            mw_state.world_size);
    mw_json_string(out, job->partial);
    fprintf(out, ", \"taken\": %lld, \"started\": %lld, \"job\": ", job->taken,
            mw_state.start_wall);
    mw_json_string(out, job->partial_job);
    fprintf(out, ", \"host\": ");
    mw_json_string(out, job->partial_host);
    fprintf(out, ", \"pid\": %ld},\n", (long)getpid());
}

/* A merged report's facts (docs/report-format.md, "merged"). */
static void write_merged(FILE *out, const mw_merge_facts *m, int ranks)
{
    fprintf(out, "  \"merged\": {\"world_size\": %d, \"job\": ", m->world_size);
    mw_json_string(out, m->job);
    fprintf(out, ", \"missing\": [");
    for (int i = 0; i < m->nmissing; i++)
        fprintf(out, "%s%d", i ? ", " : "", m->missing[i]);
    fprintf(out, "], \"ranks\": [");
    for (int r = 0; r < ranks; r++) {
        const mw_merged_rank *p = &m->ranks[r];
        fprintf(out, "%s\n    {\"rank\": %d, \"reason\": ", r ? "," : "", p->rank);
        mw_json_string(out, p->reason);
        fprintf(out, ", \"taken\": %lld, \"started\": %lld, \"host\": ", p->taken, p->started);
        mw_json_string(out, p->host);
        fprintf(out, ", \"pid\": %ld, \"file\": ", p->pid);
        mw_json_string(out, p->file);
        fprintf(out, "}");
    }
    fprintf(out, "%s]},\n", ranks ? "\n  " : "");
}

void mw_report_json(FILE *out, const mw_job_summary *job)
{
    mw_report_json_page(out, job, 0);
}

void mw_report_json_page(FILE *out, const mw_job_summary *job, int page)
{
    fprintf(out, "{\n  \"schema\": \"%s\",\n  \"program\": ", MW_REPORT_SCHEMA);
    mw_json_string(out, job->program);
    fprintf(out, ",\n  \"ranks\": %d,\n", job->ranks);
    if (job->snapshot)
        fprintf(out, "  \"snapshot\": {\"rank\": %d, \"index\": %d, \"world_size\": %d},\n",
                job->first_rank, job->snapshot, mw_state.world_size);
    if (job->partial)
        write_partial(out, job);
    if (job->merged)
        write_merged(out, job->merged, job->ranks);
    fprintf(out, "  \"mpi\": ");
    mw_json_string(out, mw_mpi_description);
    fprintf(out, ",\n  \"timer\": ");
    mw_json_string(out, job->timer);
    const char *layering = mw_fortran_layers;
    if (layering != NULL) {
        fprintf(out, ",\n  \"fortran_binding_calls\": ");
        mw_json_string(out, layering);
    }
    if (!job->snapshot && !job->partial) {
        fprintf(out, ",\n  \"command\": ");
        mw_json_string(out, job->command);
        fprintf(out, ",\n  \"hosts\": ");
        mw_json_string(out, job->hosts);
        fprintf(out, ",\n  \"library\": ");
        mw_json_string(out, job->library);
        fprintf(out, ",\n  \"start\": %lld, \"end\": %lld", job->start, job->end);
        fprintf(out, ",\n  \"build_id\": ");
        mw_json_string(out, job->build_id);
        fprintf(out, ", \"nodes\": %d, \"label\": ", job->nodes);
        mw_json_string(out, mw_state.config.label);
    } else if (job->partial) {   /* what a merge puts in the job's header */
        fprintf(out, ",\n  \"command\": ");
        mw_json_string(out, job->command);
        fprintf(out, ",\n  \"build_id\": ");
        mw_json_string(out, job->build_id);
    }
    fprintf(out, ",\n");
    write_config(out);
    write_ranks(out, job);
    write_functions(out, job);
    write_sites(out, job);
    write_matrix(out, job);
    write_counters(out, job);
    write_pairs(out, job);
    write_monitor(out, job);
    write_trace(out, job);
    write_waits(out, job);
    write_regions(out, job);
    if (page && job->timeline != NULL && job->page_timeline != NULL) {
        fprintf(out, ",\n  \"timeline\": ");
        job->page_timeline(out, job);
    }
    fprintf(out, "}\n");
}
