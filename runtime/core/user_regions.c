/* Named regions for the report (the API, mpiwatch_region_begin/end, is
 * lifecycle/region_api.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpiwatch.h"
#include "core/clock.h"
#include "core/user_regions.h"
#include "core/thread_stats.h"
#include "core/warn.h"

static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static char names[MW_MAX_REGIONS][MW_REGION_NAME];
static int nnames;

int mw_region_count(void)
{
    pthread_mutex_lock(&names_lock);
    int n = nnames;
    pthread_mutex_unlock(&names_lock);
    return n;
}

const char *mw_region_name(int id)
{
    return id >= 0 && id < MW_MAX_REGIONS ? names[id] : "";
}

/* The id of a region name, registering it on first use; -1 when full. */
static int region_id(const char *name, size_t len)
{
    static int warned;
    if (len >= MW_REGION_NAME)
        len = MW_REGION_NAME - 1;
    pthread_mutex_lock(&names_lock);
    int id = 0;
    while (id < nnames && (strncmp(names[id], name, len) != 0 || names[id][len] != '\0'))
        id++;
    if (id == nnames && nnames < MW_MAX_REGIONS) {
        memcpy(names[id], name, len);
        names[id][len] = '\0';
        nnames++;
    }
    pthread_mutex_unlock(&names_lock);
    if (id >= MW_MAX_REGIONS) {
        if (!warned++)
            mw_warn("more than %d region names; further regions are not recorded", MW_MAX_REGIONS);
        return -1;
    }
    return id;
}

static mw_regions *thread_regions(void)
{
    mw_thread *t = mw_thread_self();
    if (t != NULL && t->regions == NULL)
        t->regions = calloc(1, sizeof *t->regions);
    return t != NULL ? t->regions : NULL;
}

int mw_region_enter(const char *name, size_t len, uint64_t now)
{
    mw_regions *r = thread_regions();
    if (r == NULL || name == NULL)
        return -1;
    if (r->depth >= MW_REGION_DEPTH) {
        r->depth++;    /* still matched by an end, but not recorded */
        return -1;
    }
    mw_region_frame *f = &r->stack[r->depth++];
    f->id = region_id(name, len);
    mw_thread_totals(mw_self, &f->mpi_ticks0, &f->calls0);
    f->t0 = now;
    return f->id;
}

int mw_region_leave(const char *name, size_t len, uint64_t now)
{
    static int warned;
    mw_regions *r = thread_regions();
    if (r == NULL || name == NULL)
        return -1;
    if (r->depth == 0) {
        if (!warned++)
            mw_warn("mpiwatch_region_end(\"%.*s\") without a region begun; ignored", (int)len, name);
        return -1;
    }
    if (--r->depth >= MW_REGION_DEPTH)
        return -1;
    mw_region_frame *f = &r->stack[r->depth];
    if (f->id < 0)
        return -1;
    const char *open = mw_region_name(f->id);
    if ((strlen(open) != len || strncmp(open, name, len) != 0) && !warned++)
        mw_warn("mpiwatch_region_end(\"%.*s\") ends region \"%s\", begun last", (int)len, name, open);
    uint64_t ticks, calls;
    mw_thread_totals(mw_self, &ticks, &calls);
    mw_region_stats *s = &r->stats[f->id];
    s->entries++;
    s->wall_ticks += now - f->t0;
    s->mpi_ticks += ticks - f->mpi_ticks0;
    s->calls += calls - f->calls0;
    return f->id;
}

static void merge_one(mw_thread *t, void *arg)
{
    mw_region_stats *out = arg;
    for (int i = 0; t->regions != NULL && i < MW_MAX_REGIONS; i++) {
        out[i].entries += t->regions->stats[i].entries;
        out[i].wall_ticks += t->regions->stats[i].wall_ticks;
        out[i].mpi_ticks += t->regions->stats[i].mpi_ticks;
        out[i].calls += t->regions->stats[i].calls;
    }
}

void mw_regions_merge(mw_region_stats *out)
{
    memset(out, 0, MW_MAX_REGIONS * sizeof *out);
    mw_threads_each(merge_one, out);
}
