/* A rank's partial profile from its JSON file (client/merge_read.h). */
#include "merge_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge_read_tables.h"
#include "mpiwatch_report.h"
#include "util.h"

void mwc_partial_free(mwc_partial *p)
{
    free(p->file);
    free(p->program);
    free(p->timer);
    free(p->mpi);
    free(p->reason);
    free(p->job);
    free(p->host);
    free(p->config_timer);
    free(p->fns);
    free(p->pairs);
    free(p->command);
    free(p->build_id);
    free(p->resolver);
    for (int i = 0; p->sites != NULL && i < p->nsites; i++)
        free(p->sites[i].up);
    free(p->sites);
    free(p->regions);
    memset(p, 0, sizeof *p);
}

#ifndef MW_HAVE_JANSSON

const char *mwc_partial_unavailable(void)
{
    return "mpiwatch was built without libjansson: install libjansson-dev (Debian) and run "
           "configure again";
}

int mwc_partial_read(const char *path, mwc_partial *p, char *err, size_t size)
{
    (void)p;
    snprintf(err, size, "%s: %s", path, mwc_partial_unavailable());
    return -1;
}

#else

#include <jansson.h>

const char *mwc_partial_unavailable(void)
{
    return "";
}

int mwc_merge_fail(char *err, size_t size, const char *path, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err, size, "%s: %s", path, what);
    return -1;
}

int mwc_fn_id(const char *name)
{
    for (int i = 0; i < MW_FN_COUNT; i++)
        if (strcmp(mw_fn_names[i], name) == 0)
            return i;
    return -1;
}

/* [lo, hi, count] as the report writes a size range: its bucket, or -1. */
static int bucket_of(json_t *range, uint64_t *count)
{
    json_int_t lo, hi, n;
    if (json_unpack(range, "[III!]", &lo, &hi, &n) != 0 || n < 0)
        return -1;
    for (int b = 0; b < MW_HIST_BUCKETS; b++)
        if ((unsigned long long)lo == (b ? 1ull << (b - 1) : 0) &&
            (unsigned long long)hi == (b ? 1ull << b : 1)) {
            *count = (uint64_t)n;
            return b;
        }
    return -1;
}

static int read_function(const char *path, const char *name, json_t *v, mwc_partial_fn *f,
                         char *err, size_t size)
{
    json_t *sizes = NULL;
    json_int_t calls, sent, recv;
    json_error_t e;
    memset(f, 0, sizeof *f);
    if ((f->id = mwc_fn_id(name)) < 0)
        return mwc_merge_fail(err, size, path, "functions.%s: not an MPI function this mpiwatch knows", name);
    if (json_unpack_ex(v, &e, 0, "{s:I, s:F, s:F, s:F, s:I, s:I, s?o}", "calls", &calls, "time",
                       &f->time, "min", &f->min, "max", &f->max, "bytes_sent", &sent,
                       "bytes_recv", &recv, "sizes", &sizes) != 0)
        return mwc_merge_fail(err, size, path, "functions.%s: %s", name, e.text);
    if (calls < 0 || sent < 0 || recv < 0 || f->time < 0 || f->min < 0 || f->max < 0)
        return mwc_merge_fail(err, size, path, "functions.%s: a negative count or time", name);
    f->calls = (uint64_t)calls;
    f->sent = (uint64_t)sent;
    f->recv = (uint64_t)recv;
    if (sizes == NULL)
        return 0;
    size_t i;
    json_t *range;
    if (!json_is_array(sizes))
        return mwc_merge_fail(err, size, path, "functions.%s.sizes: not a list", name);
    json_array_foreach(sizes, i, range) {
        uint64_t n;
        int b = bucket_of(range, &n);
        if (b < 0)
            return mwc_merge_fail(err, size, path, "functions.%s.sizes[%zu]: not a size range "
                        "[low, high, count] of the report", name, i);
        f->hist[b] += n;
        f->has_hist = 1;
    }
    return 0;
}

static int read_pairs(const char *path, json_t *pairs, mwc_partial *p, char *err, size_t size)
{
    size_t i;
    json_t *v;
    p->pairs = mwc_calloc(json_array_size(pairs) + 1, sizeof *p->pairs);
    json_array_foreach(pairs, i, v) {
        json_int_t from, to, bytes, messages;
        json_error_t e;
        if (json_unpack_ex(v, &e, 0, "{s:I, s:I, s:I, s:I}", "from", &from, "to", &to, "bytes",
                           &bytes, "messages", &messages) != 0)
            return mwc_merge_fail(err, size, path, "pairs[%zu]: %s", i, e.text);
        if (from != p->rank || to < 0 || to >= p->world_size || bytes < 0 || messages < 0)
            return mwc_merge_fail(err, size, path, "pairs[%zu]: not a pair from rank %d to a rank of %d",
                        i, p->rank, p->world_size);
        p->pairs[p->npairs++] = (mw_pair){(uint64_t)from, (uint64_t)to, (uint64_t)bytes,
                                          (uint64_t)messages};
    }
    return 0;
}

static char *dup_or_empty(const char *s)
{
    return mwc_strndup(s != NULL ? s : "", s != NULL ? strlen(s) : 0);
}

static int read_doc(const char *path, json_t *doc, mwc_partial *p, char *err, size_t size)
{
    const char *schema, *program, *timer, *mpi, *reason, *job, *host, *config_timer = NULL;
    const char *command = NULL, *build_id = NULL;
    json_t *functions, *pairs, *times, *config = NULL;
    json_int_t rank, world, taken, started, pid, level = 1, depth = 1, rank_at;
    json_error_t e;
    if (json_unpack_ex(doc, &e, 0, "{s:s, s:s, s:s, s:s, s:{s:I, s:I, s:s, s:I, s:I, s:s, s:s, "
                       "s:I}, s:o, s:o, s:o, s?o}", "schema", &schema, "program", &program,
                       "mpi", &mpi, "timer", &timer, "partial", "rank", &rank, "world_size",
                       &world, "reason", &reason, "taken", &taken, "started", &started, "job",
                       &job, "host", &host, "pid", &pid, "functions", &functions, "pairs", &pairs,
                       "rank_times", &times, "config", &config) != 0)
        return mwc_merge_fail(err, size, path, "not a partial profile: %s", e.text);
    if (strcmp(schema, MW_REPORT_SCHEMA) != 0)
        return mwc_merge_fail(err, size, path, "schema \"%s\", not \"%s\"", schema, MW_REPORT_SCHEMA);
    if (world < 1 || world > 1 << 24 || rank < 0 || rank >= world)
        return mwc_merge_fail(err, size, path, "partial: rank %lld of world_size %lld", (long long)rank,
                    (long long)world);
    if (!json_is_object(functions) || !json_is_array(pairs) || json_array_size(times) != 1)
        return mwc_merge_fail(err, size, path, "functions (an object), pairs (a list) and rank_times "
                    "(one rank's) expected");
    if (json_unpack_ex(json_array_get(times, 0), &e, 0, "{s:I, s:F, s:F, s:F}", "rank", &rank_at,
                       "app", &p->app, "mpi", &p->mpi_time, "init", &p->init) != 0)
        return mwc_merge_fail(err, size, path, "rank_times[0]: %s", e.text);
    if (rank_at != rank)
        return mwc_merge_fail(err, size, path, "rank_times[0] is rank %lld, the profile rank %lld",
                    (long long)rank_at, (long long)rank);
    json_unpack(doc, "{s?s, s?s}", "command", &command, "build_id", &build_id);
    p->command = dup_or_empty(command);
    p->build_id = dup_or_empty(build_id);
    if (config != NULL)
        json_unpack(config, "{s?s, s?I, s?I}", "timer", &config_timer, "level", &level,
                    "callsite_depth", &depth);
    p->rank = (int)rank;
    p->world_size = (int)world;
    p->taken = taken;
    p->started = started;
    p->pid = (long)pid;
    p->level = (int)level;
    p->callsite_depth = (int)depth;
    p->program = dup_or_empty(program);
    p->timer = dup_or_empty(timer);
    p->mpi = dup_or_empty(mpi);
    p->reason = dup_or_empty(reason);
    p->job = dup_or_empty(job);
    p->host = dup_or_empty(host);
    p->config_timer = dup_or_empty(config_timer != NULL ? config_timer : "auto");
    p->fns = mwc_calloc(json_object_size(functions) + 1, sizeof *p->fns);
    const char *name;
    json_t *v;
    json_object_foreach(functions, name, v) {
        if (read_function(path, name, v, &p->fns[p->nfns], err, size) != 0)
            return -1;
        for (int k = 0; k < p->nfns; k++)
            if (p->fns[k].id == p->fns[p->nfns].id)
                return mwc_merge_fail(err, size, path, "functions.%s: twice", name);
        p->nfns++;
    }
    if (read_pairs(path, pairs, p, err, size) != 0 ||
        mwc_read_sites(path, json_object_get(doc, "callsites"), p, err, size) != 0)
        return -1;
    return mwc_read_regions(path, json_object_get(doc, "regions"), p, err, size);
}

int mwc_partial_read(const char *path, mwc_partial *p, char *err, size_t size)
{
    json_error_t e;
    memset(p, 0, sizeof *p);
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    if (doc == NULL)
        return mwc_merge_fail(err, size, path, "line %d: %s", e.line, e.text);
    p->file = dup_or_empty(path);
    int rc = read_doc(path, doc, p, err, size);
    json_decref(doc);
    if (rc != 0)
        mwc_partial_free(p);
    return rc;
}

#endif
