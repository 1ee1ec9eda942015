/* Communicators' identities for the trace (trace/comm_ids.h). */
#include "trace/comm_ids.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/handles.h"
#include "core/warn.h"
#include "mpiwatch_trace.h"
#include "trace/varint.h"

/* The groups this rank has created communicators of, and how many of each. */
typedef struct group_count {
    struct group_count *next;
    uint64_t created;
    size_t size;
    unsigned char runs[];      /* the group as MWT_COMM encodes it */
} group_count;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static group_count *groups;    /* lock */
static unsigned char *queued;  /* lock: MWT_COMM blocks the writer has not taken */
static size_t nqueued;

/* The format's numbers (trace/varint.h), by size. */
static size_t put_varint(unsigned char *p, uint64_t v)
{
    return (size_t)(mw_trace_put_varint(p, v) - p);
}

static size_t put_signed(unsigned char *p, int64_t v)
{
    return (size_t)(mw_trace_put_signed(p, v) - p);
}

/* The world ranks of comm's n ranks, in comm's order, as runs of
 * consecutive ranks (docs/trace.md): a malloc'd buffer, its size in *size;
 * NULL when a member is not in MPI_COMM_WORLD (a spawned process) or an
 * MPI call failed. */
static unsigned char *group_runs(MPI_Comm comm, size_t *size)
{
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    int n = 0;
    int *ranks = NULL, *in_world = NULL;
    unsigned char *runs = NULL;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS ||
        PMPI_Comm_group(MPI_COMM_WORLD, &world) != MPI_SUCCESS ||
        PMPI_Group_size(group, &n) != MPI_SUCCESS || n <= 0)
        goto out;
    ranks = malloc((size_t)n * sizeof *ranks);
    in_world = malloc((size_t)n * sizeof *in_world);
    /* At most a run per rank: 10 bytes its start, 5 its length; the count. */
    runs = malloc((size_t)n * 15 + 10);
    if (ranks == NULL || in_world == NULL || runs == NULL)
        goto fail;
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    if (PMPI_Group_translate_ranks(group, n, ranks, world, in_world) != MPI_SUCCESS)
        goto fail;
    int nruns = 0;
    for (int i = 0; i < n; i++) {
        if (in_world[i] < 0)   /* MPI_UNDEFINED */
            goto fail;
        nruns += i == 0 || in_world[i] != in_world[i - 1] + 1;
    }
    size_t k = put_varint(runs, (uint64_t)nruns);
    int64_t end = 0;   /* the rank after the previous run */
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && in_world[j] == in_world[j - 1] + 1)
            j++;
        k += put_signed(runs + k, (int64_t)in_world[i] - end);
        k += put_varint(runs + k, (uint64_t)(j - i));
        end = (int64_t)in_world[j - 1] + 1;
        i = j;
    }
    *size = k;
    goto out;
fail:
    free(runs);
    runs = NULL;
out:
    free(ranks);
    free(in_world);
    if (group != MPI_GROUP_NULL)
        PMPI_Group_free(&group);
    if (world != MPI_GROUP_NULL)
        PMPI_Group_free(&world);
    return runs;
}

/* How many communicators of this group the rank created before; lock held.
 * UINT64_MAX when out of memory. */
static uint64_t count_created(const unsigned char *runs, size_t size)
{
    for (group_count *g = groups; g != NULL; g = g->next)
        if (g->size == size && memcmp(g->runs, runs, size) == 0)
            return g->created++;
    group_count *g = malloc(sizeof *g + size);
    if (g == NULL)
        return UINT64_MAX;
    g->next = groups;
    g->created = 1;
    g->size = size;
    memcpy(g->runs, runs, size);
    groups = g;
    return 0;
}

void mw_trace_comm_created(MPI_Comm comm)
{
    uint64_t t = mw_now();
    int inter = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return;
    size_t size = 0;
    unsigned char *runs = group_runs(comm, &size);
    if (runs == NULL)
        return;
    pthread_mutex_lock(&lock);
    uint64_t before = count_created(runs, size);
    unsigned char *more = before != UINT64_MAX ? realloc(queued, nqueued + size + 40) : NULL;
    if (more != NULL) {
        queued = more;
        unsigned char *p = queued + nqueued;
        size_t n = 0;
        p[n++] = MWT_COMM;
        n += put_signed(p + n, mw_comm_id(comm));
        n += put_varint(p + n, t);
        n += put_varint(p + n, before);
        memcpy(p + n, runs, size);
        nqueued += n + size;
    } else {
        static int warned;
        if (!warned++)
            mw_warn("out of memory for the trace's communicator identities: messages on "
                    "communicators made from now on may not be matched across ranks");
    }
    pthread_mutex_unlock(&lock);
    free(runs);
}

unsigned char *mw_trace_comms_take(size_t *size)
{
    pthread_mutex_lock(&lock);
    unsigned char *taken = queued;
    *size = nqueued;
    queued = NULL;
    nqueued = 0;
    pthread_mutex_unlock(&lock);
    return taken;
}
