/* mpiwatch --merge (client/merge.h). Files are grouped into jobs by what
 * the ranks of one job share without talking to each other: program, size
 * and the launcher's or batch system's job id; without one (MPICH's Hydra
 * outside a batch system), by the processes' start times, close together
 * within a job. */
#include "merge.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/state.h"
#include "merge_job.h"
#include "merge_read.h"
#include "util.h"

/* How far apart (seconds) the ranks of one job without a job id may have
 * started: launchers start a job's processes within moments. */
#define MWC_SAME_START 60

typedef struct {
    const mwc_partial **members;   /* sorted by rank once complete */
    int n;
} group;

static const char *suffix = "-partial.json";

static int is_partial(const char *name)
{
    size_t n = strlen(name), k = strlen(suffix);
    return name[0] != '.' && n > k && strcmp(name + n - k, suffix) == 0;
}

static int same_job(const mwc_partial *a, const mwc_partial *b)
{
    if (strcmp(a->program, b->program) != 0 || a->world_size != b->world_size ||
        strcmp(a->job, b->job) != 0)
        return 0;
    long long d = a->started - b->started;
    return a->job[0] != '\0' || (d < 0 ? -d : d) <= MWC_SAME_START;
}

static const mwc_partial *rank_in(const group *g, int rank)
{
    for (int i = 0; i < g->n; i++)
        if (g->members[i]->rank == rank)
            return g->members[i];
    return NULL;
}

/* Put p in its job's group; 0, or -1 when its rank is there already (a
 * second file of one rank of one job: refused). */
static int place(group *groups, int *ngroups, const mwc_partial *p, int max)
{
    for (int i = 0; i < *ngroups; i++) {
        group *g = &groups[i];
        if (!same_job(g->members[0], p))
            continue;
        const mwc_partial *twin = rank_in(g, p->rank);
        if (twin == NULL) {
            g->members[g->n++] = p;
            return 0;
        }
        if (p->job[0] != '\0') {
            fprintf(stderr, "mpiwatch: %s: rank %d of job %s again (also in %s); left out\n",
                    p->file, p->rank, p->job, twin->file);
            return -1;
        }
    }
    group *g = &groups[(*ngroups)++];
    g->members = mwc_calloc((size_t)max, sizeof *g->members);
    g->members[g->n++] = p;
    return 0;
}

static int by_rank(const void *a, const void *b)
{
    const mwc_partial *x = *(const mwc_partial *const *)a, *y = *(const mwc_partial *const *)b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static void said(const char *path)
{
    printf("%s\n", path);
}

static void write_group(const char *dir, group *g, int quiet)
{
    mwc_merged m;
    qsort(g->members, (size_t)g->n, sizeof *g->members, by_rank);
    mwc_merge_job(g->members, g->n, &m);
    const mwc_partial *first = g->members[0];
    /* What the runtime's writers read of the process (core/state.h). */
    mw_state.world_size = first->world_size;
    snprintf(mw_state.program, sizeof mw_state.program, "%s", first->program);
    snprintf(mw_state.config.outdir, sizeof mw_state.config.outdir, "%s", dir);
    mw_state.config.formats = MW_FORMAT_JSON | MW_FORMAT_TEXT;
    if (mw_report_html_available())
        mw_state.config.formats |= MW_FORMAT_HTML;
    else if (!quiet)
        fprintf(stderr, "mpiwatch: no HTML report: %s\n", mw_report_html_missing());
    mw_state.config.initial_level = first->level;
    mw_state.config.timer = first->config_timer;
    mw_state.config.callsite_depth = first->callsite_depth;
    if (!quiet) {
        fprintf(stderr, "mpiwatch: %s, %d of %d ranks%s", first->program, g->n,
                first->world_size, m.facts.nmissing ? " (missing:" : "");
        mw_report_rank_ranges(stderr, m.missing, m.facts.nmissing);
        fprintf(stderr, "%s; job %s\n", m.facts.nmissing ? ")" : "",
                first->job[0] ? first->job : "(no job id: grouped by start time)");
    }
    mw_report_write_told(&m.job, dir, said);
    mwc_merged_free(&m);
}

int mwc_merge(const char *dir, int quiet)
{
    if (mwc_partial_unavailable()[0] != '\0') {
        fprintf(stderr, "mpiwatch: --merge: %s\n", mwc_partial_unavailable());
        return 1;
    }
    DIR *d = opendir(dir);
    if (d == NULL) {
        perror(dir);
        return 1;
    }
    int n = 0, cap = 16, refused = 0, ngroups = 0;
    mwc_partial *files = mwc_calloc((size_t)cap, sizeof *files);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!is_partial(e->d_name))
            continue;
        if (n == cap)
            files = mwc_realloc(files, (size_t)(cap *= 2) * sizeof *files);
        char path[8400], err[9000];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (mwc_partial_read(path, &files[n], err, sizeof err) == 0)
            n++;
        else {
            fprintf(stderr, "mpiwatch: %s; left out\n", err);
            refused++;
        }
    }
    closedir(d);
    if (n == 0 && refused == 0)
        fprintf(stderr, "mpiwatch: no partial profile (*%s) in %s\n", suffix, dir);
    group *groups = mwc_calloc((size_t)(n ? n : 1), sizeof *groups);
    for (int i = 0; i < n; i++)
        refused += place(groups, &ngroups, &files[i], n) != 0;
    for (int i = 0; i < ngroups; i++) {
        write_group(dir, &groups[i], quiet);
        free(groups[i].members);
    }
    free(groups);
    for (int i = 0; i < n; i++)
        mwc_partial_free(&files[i]);
    free(files);
    return n == 0 || refused ? 1 : 0;
}
