/* A partial profile's call sites and regions (client/merge_read_tables.h):
 * the rank's rows as runtime/report/json.c writes them, checked as the rest
 * of an untrusted file is. */
#include "merge_read_tables.h"

#ifdef MW_HAVE_JANSSON
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void copy(char *out, size_t size, const char *s)
{
    snprintf(out, size, "%s", s != NULL ? s : "");
}

/* The callers above the site (MPIWATCH_CALLSITE_DEPTH > 1). */
static int read_stack(const char *path, size_t i, json_t *stack, mw_site_summary *s, char *err,
                      size_t size)
{
    size_t d;
    json_t *v;
    if (!json_is_array(stack) || json_array_size(stack) >= MW_CALLSTACK_MAX)
        return mwc_merge_fail(err, size, path, "callsites.sites[%zu].stack: not a list of at "
                              "most %d callers", i, MW_CALLSTACK_MAX - 1);
    s->up = mwc_calloc(json_array_size(stack) + 1, sizeof *s->up);
    s->all.depth = 1 + (int32_t)json_array_size(stack);
    json_array_foreach(stack, d, v) {
        const char *caller, *file;
        json_error_t e;
        if (json_unpack_ex(v, &e, 0, "{s:s, s:s, s:i}", "caller", &caller, "file", &file, "line",
                           &s->up[d].line) != 0)
            return mwc_merge_fail(err, size, path, "callsites.sites[%zu].stack[%zu]: %s", i, d,
                                  e.text);
        copy(s->up[d].function, sizeof s->up[d].function, caller);
        copy(s->up[d].file, sizeof s->up[d].file, file);
    }
    return 0;
}

/* Size ranges [low, high] back into the record's bucket bits. */
static int read_sizes(const char *path, size_t i, json_t *ranges, mw_site_record *r, char *err,
                      size_t size)
{
    size_t k;
    json_t *v;
    json_array_foreach(ranges, k, v) {
        json_int_t lo, hi;
        int b = 0;
        if (json_unpack(v, "[II!]", &lo, &hi) == 0)
            while (b < MW_HIST_BUCKETS && !((unsigned long long)lo == (b ? 1ull << (b - 1) : 0) &&
                                            (unsigned long long)hi == (b ? 1ull << b : 1)))
                b++;
        if (json_unpack(v, "[II!]", &lo, &hi) != 0 || b == MW_HIST_BUCKETS)
            return mwc_merge_fail(err, size, path, "callsites.sites[%zu].size_ranges[%zu]: not a "
                                  "size range [low, high] of the report", i, k);
        r->sizes |= 1ull << b;
    }
    return 0;
}

static int read_site(const char *path, size_t i, json_t *v, const mwc_partial *p,
                     mw_site_summary *s, char *err, size_t size)
{
    const char *fn, *caller, *file, *module, *offset;
    json_t *stack = NULL, *ranges;
    json_int_t calls, sent, recv;
    json_error_t e;
    char *end;
    memset(s, 0, sizeof *s);
    if (json_unpack_ex(v, &e, 0, "{s:s, s:s, s:s, s:i, s:s, s?o, s:s, s:I, s:F, s:F, s:F, s:I, "
                       "s:I, s:o}", "function", &fn, "caller", &caller, "file", &file, "line",
                       &s->line, "module", &module, "stack", &stack, "offset", &offset, "calls",
                       &calls, "time", &s->all.time, "min", &s->all.min, "max", &s->all.max,
                       "bytes_sent", &sent, "bytes_recv", &recv, "size_ranges", &ranges) != 0)
        return mwc_merge_fail(err, size, path, "callsites.sites[%zu]: %s", i, e.text);
    if ((s->all.fn = mwc_fn_id(fn)) < 0)
        return mwc_merge_fail(err, size, path, "callsites.sites[%zu]: %s is not an MPI function "
                              "this mpiwatch knows", i, fn);
    s->all.offset = strtoull(offset, &end, 16);
    if (strncmp(offset, "0x", 2) != 0 || *end != '\0')
        return mwc_merge_fail(err, size, path, "callsites.sites[%zu].offset: \"%s\" is not a hex "
                              "offset", i, offset);
    if (calls < 0 || sent < 0 || recv < 0 || s->all.time < 0 || s->all.min < 0 || s->all.max < 0)
        return mwc_merge_fail(err, size, path, "callsites.sites[%zu]: a negative count or time", i);
    s->all.calls = (uint64_t)calls;
    s->all.sent = (uint64_t)sent;
    s->all.recv = (uint64_t)recv;
    s->all.depth = 1;
    s->all.rank = p->rank;
    s->ranks = 1;
    s->rank_min = s->rank_max = s->all.time;
    s->rank_min_at = s->rank_max_at = p->rank;
    s->squares = s->all.time * s->all.time;
    copy(s->function, sizeof s->function, caller);
    copy(s->file, sizeof s->file, file);
    copy(s->module, sizeof s->module, module);
    if (!json_is_array(ranges))
        return mwc_merge_fail(err, size, path, "callsites.sites[%zu].size_ranges: not a list", i);
    if (read_sizes(path, i, ranges, &s->all, err, size) != 0)
        return -1;
    return stack != NULL ? read_stack(path, i, stack, s, err, size) : 0;
}

int mwc_read_sites(const char *path, json_t *callsites, mwc_partial *p, char *err, size_t size)
{
    const char *resolver;
    json_int_t other;
    json_t *sites, *v;
    json_error_t e;
    size_t i;
    if (callsites == NULL)
        return 0;
    if (json_unpack_ex(callsites, &e, 0, "{s:s, s:I, s:o}", "resolver", &resolver, "other_calls",
                       &other, "sites", &sites) != 0 || !json_is_array(sites) || other < 0)
        return mwc_merge_fail(err, size, path, "callsites: %s", json_is_array(sites) && other >= 0
                              ? e.text : "a list of sites and a count of other calls expected");
    p->resolver = mwc_strndup(resolver, strlen(resolver));
    p->sites_other = (uint64_t)other;
    p->sites = mwc_calloc(json_array_size(sites) + 1, sizeof *p->sites);
    json_array_foreach(sites, i, v) {
        if (read_site(path, i, v, p, &p->sites[i], err, size) != 0) {
            p->nsites = (int)i + 1;   /* freed with the profile */
            return -1;
        }
    }
    p->nsites = (int)json_array_size(sites);
    return 0;
}

int mwc_read_regions(const char *path, json_t *regions, mwc_partial *p, char *err, size_t size)
{
    const char *name;
    json_t *v;
    if (regions == NULL)
        return 0;
    if (!json_is_object(regions))
        return mwc_merge_fail(err, size, path, "regions: not an object");
    p->regions = mwc_calloc(json_object_size(regions) + 1, sizeof *p->regions);
    json_object_foreach(regions, name, v) {
        mw_region_summary *r = &p->regions[p->nregions];
        json_int_t entries, calls;
        json_error_t e;
        if (json_unpack_ex(v, &e, 0, "{s:i, s:I, s:I, s:{s:F, s:F}, s:{s:F, s:F}}", "ranks",
                           &r->ranks, "entries", &entries, "calls", &calls, "wall", "sum",
                           &r->wall_sum, "max", &r->wall_max, "mpi", "sum", &r->mpi_sum, "max",
                           &r->mpi_max) != 0)
            return mwc_merge_fail(err, size, path, "regions.%s: %s", name, e.text);
        if (r->ranks != 1 || entries < 0 || calls < 0 || strlen(name) >= sizeof r->name)
            return mwc_merge_fail(err, size, path, "regions.%s: not one rank's region (ranks 1, "
                                  "counts >= 0, a name under %zu bytes)", name, sizeof r->name);
        copy(r->name, sizeof r->name, name);
        r->entries = (uint64_t)entries;
        r->calls = (uint64_t)calls;
        p->nregions++;
    }
    return 0;
}
#endif
