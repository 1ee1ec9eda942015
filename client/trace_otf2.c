/* Trace files to an OTF2 archive (client/trace_otf2.h). */
#include "trace_otf2.h"

#include <stdio.h>

#if MW_HAVE_OTF2
#include <math.h>
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace_job.h"
#include "trace_otf2_parts.h"
#include "trace_read.h"
#include "mpiwatch_trace.h"
#include "wait_functions.h"

const int mwc_trace_otf2_built = 1;

/* The string ids: 0 "", then the function names, then the other names. */
enum { S_EMPTY, S_MACHINE, S_NODE, S_CALLS, S_CALLS_DESC,
       S_SITE, S_SITE_DESC, S_PCONTROL, S_FIRST_NAME };

/* MPI_Pcontrol's level, an OTF2 parameter set at each call (the trace's
 * marks): 0 paused the trace. */
#define PARAM_PCONTROL 0

#define LOCATION MWC_OTF2_LOCATION
#define ATTR_CALLS 0
#define ATTR_SITE 1   /* defined with --exe only */

static const char *const sends[] = {"MPI_Send", "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", NULL};
static const char *const isends[] = {"MPI_Isend", "MPI_Issend", "MPI_Ibsend", "MPI_Irsend", NULL};

/* The collectives OTF2 names, by the MPI function's name (an I-form is not
 * one: OTF2 has non-blocking collective events of its own, not written). */
static const struct {
    const char *name;
    OTF2_CollectiveOp op;
} collectives[] = {
    {"MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER}, {"MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST},
    {"MPI_Gather", OTF2_COLLECTIVE_OP_GATHER}, {"MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
    {"MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER}, {"MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
    {"MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
    {"MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
    {"MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL}, {"MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
    {"MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
    {"MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE}, {"MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE},
    {"MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
    {"MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
    {"MPI_Scan", OTF2_COLLECTIVE_OP_SCAN}, {"MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN},
};

/* The name without a large-count suffix: MPI_Send_c is MPI_Send. */
static int same_name(const char *name, const char *want)
{
    size_t n = strlen(name);
    if (n > 2 && strcmp(name + n - 2, "_c") == 0)
        n -= 2;
    return strlen(want) == n && strncmp(name, want, n) == 0;
}

static int named(const char *name, const char *const *list)
{
    for (int i = 0; list[i] != NULL; i++)
        if (same_name(name, list[i]))
            return 1;
    return 0;
}

/* The collective operation of a function, or -1. */
static int collective_of(const char *name)
{
    for (size_t i = 0; i < sizeof collectives / sizeof collectives[0]; i++)
        if (same_name(name, collectives[i].name))
            return (int)collectives[i].op;
    return -1;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef location,
                                void *caller, bool final)
{
    (void)user, (void)type, (void)location, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef location)
{
    (void)user, (void)type, (void)location;
    return 0;
}

OTF2_FlushCallbacks mwc_otf2_flush_callbacks = {.otf2_pre_flush = pre_flush,
                                                   .otf2_post_flush = post_flush};

static uint64_t ns_of(const mwc_trace_job *j, const mwc_trace_rank *r, uint64_t t)
{
    double ns = mwc_trace_job_ns(j, r, t);
    return ns > 0 ? (uint64_t)llround(ns) : 0;
}

int mwc_otf2_region_of(mwc_otf2_regions *g, const char *name)
{
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->names[i], name) == 0)
            return i;
    char **more = realloc(g->names, (size_t)(g->n + 1) * sizeof *more);
    if (more == NULL)
        return -1;
    g->names = more;
    if ((g->names[g->n] = strdup(name)) == NULL)
        return -1;
    return g->n++;
}

void mwc_otf2_regions_free(mwc_otf2_regions *g)
{
    for (int i = 0; i < g->n; i++)
        free(g->names[i]);
    free(g->names);
    mwc_otf2_comms_free(g->comms);
    g->names = NULL;
    g->n = 0;
    g->comms = NULL;
}

/* A location's named regions: the next of the rank's marks to look at, the
 * regions open (their OTF2 regions), the time of its last event. */
typedef struct {
    size_t next;
    int depth;
    uint32_t open[64];
    uint64_t last_ns;
} region_state;

/* The OTF2 region of the rank's named region id ("@" and its name in g, so
 * that no MPI function's name is one), or -1 out of memory. */
static int user_region(mwc_otf2_regions *g, const mwc_trace_rank *t, int *uregion, int id)
{
    if (uregion[id] < 0) {
        char name[300];
        snprintf(name, sizeof name, "@%s", t->regions[id]);
        uregion[id] = mwc_otf2_region_of(g, name);
    }
    return uregion[id];
}

/* Enter and Leave the named regions of thread's marks up to tick until (a
 * Leave of a region not entered, or deeper than 64, is left out), and set
 * the MPI_Pcontrol parameter at each level; the events written, -1 out of
 * memory. */
static int64_t write_marks(OTF2_EvtWriter *w, const mwc_trace_job *j, const mwc_trace_rank *t,
                           uint32_t thread, uint64_t until, region_state *st,
                           mwc_otf2_regions *g, int *uregion)
{
    int64_t n = 0;
    for (; st->next < t->nmarks; st->next++) {
        const mwc_trace_mark *m = &t->marks[st->next];
        if (m->thread != thread)
            continue;
        if (m->t > until)
            break;
        uint64_t ns = ns_of(j, t, m->t);
        if (ns < st->last_ns)
            ns = st->last_ns;
        if (m->what == MWT_MARK_PCONTROL) {
            OTF2_EvtWriter_ParameterInt(w, NULL, ns, PARAM_PCONTROL, m->value);
            n++;
        } else if (m->what == MWT_MARK_BEGIN) {
            int r = user_region(g, t, uregion, m->value);
            if (r < 0)
                return -1;
            if (st->depth < 64) {
                OTF2_EvtWriter_Enter(w, NULL, ns, (OTF2_RegionRef)r);
                st->open[st->depth] = (uint32_t)r;
                n++;
            }
            st->depth++;
        } else if (st->depth > 0 && --st->depth < 64) {
            OTF2_EvtWriter_Leave(w, NULL, ns, (OTF2_RegionRef)st->open[st->depth]);
            n++;
        }
        st->last_ns = ns;
    }
    return n;
}

/* A non-blocking receive whose completion says (or whose arguments said) its
 * source and tag: written as an MpiIrecvRequest and an MpiIrecv; not one
 * from MPI_PROC_NULL, nor one never completed, nor from MPI_ANY_SOURCE
 * with its status ignored. at: its completion in r->done (SIZE_MAX none). */
static int receive_known(const mwc_trace_rank *r, const mwc_trace_call *start, size_t at)
{
    if (at == SIZE_MAX)
        return 0;
    const mwc_trace_done *d = &r->done[at];
    return d->source >= 0 ? d->tag >= 0 : start->peer >= 0 && start->tag >= 0;
}

int mwc_otf2_write_rank(OTF2_Archive *archive, const mwc_trace_job *j, int k,
                        mwc_otf2_regions *g, mwc_otf2_location **locs, size_t *nlocs,
                        uint64_t *last_ns)
{
    const mwc_trace_rank *t = &j->ranks[k];
    size_t *completer = NULL, *done_of = NULL, *start_of_done = NULL;
    int *region = calloc(t->nnames ? (size_t)t->nnames : 1, sizeof *region);
    int *uregion = malloc((t->nregions ? (size_t)t->nregions : 1) * sizeof *uregion);
    region_state *states = NULL;   /* by location */
    if (uregion != NULL)
        for (int i = 0; i < t->nregions; i++)
            uregion[i] = -1;
    if (region == NULL || uregion == NULL || mwc_trace_completions(t, &completer, &done_of) != 0 ||
        (start_of_done = malloc((t->ndone ? t->ndone : 1) * sizeof *start_of_done)) == NULL)
        goto oom;
    for (int f = 0; f < t->nnames; f++)
        region[f] = -1;   /* a region for the functions called, at their first call */
    for (size_t d = 0; d < t->ndone; d++)
        start_of_done[d] = SIZE_MAX;
    for (size_t i = 0; i < t->ncalls; i++)
        if (done_of[i] != SIZE_MAX)
            start_of_done[done_of[i]] = i;
    OTF2_AttributeList *attrs = OTF2_AttributeList_New();
    *nlocs = 0;
    for (size_t i = 0; i < t->ncalls; i++) {
        const mwc_trace_call *c = &t->calls[i];
        size_t l = 0;
        while (l < *nlocs && (*locs)[l].thread != c->thread)
            l++;
        if (l == *nlocs) {
            mwc_otf2_location *more = realloc(*locs, (l + 1) * sizeof *more);
            if (more == NULL)
                goto oom;
            *locs = more;
            more[l] = (mwc_otf2_location){c->thread, 0};
            region_state *st = realloc(states, (l + 1) * sizeof *st);
            if (st == NULL)
                goto oom;
            states = st;
            memset(&states[l], 0, sizeof states[l]);
            (*nlocs)++;
        }
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, LOCATION(k, c->thread));
        if (w == NULL)
            goto oom;
        const char *name = t->names[c->fn];
        if (region[c->fn] < 0 && (region[c->fn] = mwc_otf2_region_of(g, name)) < 0)
            goto oom;
        int64_t marks = write_marks(w, j, t, c->thread, c->t_in, &states[l], g, uregion);
        if (marks < 0)
            goto oom;
        uint64_t in = ns_of(j, t, c->t_in), out = ns_of(j, t, c->t_out);
        if (in < states[l].last_ns)
            in = states[l].last_ns;
        if (out < in)
            out = in;
        uint64_t n = (uint64_t)marks;
        OTF2_AttributeList *a = NULL;
        if (c->count > 1) {   /* folded polls: the calls it stands for */
            OTF2_AttributeValue v = {.uint64 = c->count};
            OTF2_AttributeList_AddAttribute(attrs, ATTR_CALLS, OTF2_TYPE_UINT64, v);
            a = attrs;
        }
        OTF2_SourceCodeLocationRef site = mwc_otf2_sites_of(g->sites, c->site);
        if (site != OTF2_UNDEFINED_SOURCE_CODE_LOCATION) {
            OTF2_AttributeValue v = {.sourceCodeLocationRef = site};
            OTF2_AttributeList_AddAttribute(attrs, ATTR_SITE, OTF2_TYPE_SOURCE_CODE_LOCATION, v);
            a = attrs;
        }
        OTF2_EvtWriter_Enter(w, a, in, (OTF2_RegionRef)region[c->fn]);
        n++;
        int op = collective_of(name);
        OTF2_CommRef comm;
        int peer;   /* the peer (a collective's root) as a rank of comm */
        if (mwc_otf2_comms_place(g->comms, c->traffic ? c->comm : -1, k,
                                 op >= 0 ? c->root : c->peer, &comm, &peer) != 0)
            goto oom;
        int sendrecv = c->traffic && mww_fn_send_receive(name);
        if (c->traffic && c->peer >= 0 && c->tag >= 0 && (sendrecv || named(name, sends))) {
            OTF2_EvtWriter_MpiSend(w, NULL, in, (uint32_t)peer, comm, (uint32_t)c->tag, c->sent);
            n++;
        } else if (c->traffic && c->peer >= 0 && c->tag >= 0 && named(name, isends)) {
            if (c->request != 0)
                OTF2_EvtWriter_MpiIsend(w, NULL, in, (uint32_t)peer, comm, (uint32_t)c->tag,
                                        c->sent, c->request);
            else   /* its request is not known (a Fortran call): a send */
                OTF2_EvtWriter_MpiSend(w, NULL, in, (uint32_t)peer, comm, (uint32_t)c->tag,
                                       c->sent);
            n++;
        } else if (same_name(name, "MPI_Irecv") && c->request != 0 &&
                   receive_known(t, c, done_of[i])) {
            OTF2_EvtWriter_MpiIrecvRequest(w, NULL, in, c->request);
            n++;
        } else if (op >= 0) {
            OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, in);
            n++;
        }
        const mwc_trace_done *own = sendrecv ? mwc_trace_own_receive(t, c) : NULL;
        if (own != NULL && own->source >= 0 && own->tag >= 0) {   /* its receive half */
            OTF2_CommRef rcomm;
            int source;   /* the world rank the receive came from, as a rank of comm */
            if (mwc_otf2_comms_place(g->comms, c->comm, k, own->source, &rcomm, &source) != 0)
                goto oom;
            OTF2_EvtWriter_MpiRecv(w, NULL, out, (uint32_t)source, rcomm, (uint32_t)own->tag,
                                   own->bytes);
            n++;
        }
        if (c->traffic && c->peer >= 0 && c->tag >= 0 && same_name(name, "MPI_Recv")) {
            OTF2_EvtWriter_MpiRecv(w, NULL, out, (uint32_t)peer, comm, (uint32_t)c->tag, c->recv);
            n++;
        }
        for (uint32_t d = 0; d < c->ndone; d++) {
            size_t at = c->first_done + d, s = start_of_done[at];
            if (s == SIZE_MAX)
                continue;
            const mwc_trace_call *start = &t->calls[s];
            const mwc_trace_done *done = &t->done[at];
            if (named(t->names[start->fn], isends) && start->peer >= 0 && start->tag >= 0) {
                OTF2_EvtWriter_MpiIsendComplete(w, NULL, out, done->request);
                n++;
            } else if (same_name(t->names[start->fn], "MPI_Irecv")) {
                int known = done->source >= 0;
                int tag = known ? done->tag : start->tag;
                OTF2_CommRef scomm;
                int source;
                if (!receive_known(t, start, at))
                    continue;
                if (mwc_otf2_comms_place(g->comms, start->comm, k,
                                         known ? done->source : start->peer, &scomm,
                                         &source) != 0)
                    goto oom;
                OTF2_EvtWriter_MpiIrecv(w, NULL, out, (uint32_t)source, scomm,
                                        (uint32_t)tag,
                                        known ? done->bytes : start->recv, done->request);
                n++;
            }
        }
        if (op >= 0) {
            OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, out, (OTF2_CollectiveOp)op, comm,
                                            peer >= 0 ? (uint32_t)peer : OTF2_UNDEFINED_UINT32,
                                            c->sent, c->recv);
            n++;
        }
        OTF2_EvtWriter_Leave(w, NULL, out, (OTF2_RegionRef)region[c->fn]);
        (*locs)[l].events += n + 1;
        states[l].last_ns = out;
        if (out > *last_ns)
            *last_ns = out;
    }
    OTF2_AttributeList_Delete(attrs);
    /* The marks after each thread's last call, and a Leave for every region
     * still open (a job that ended inside it). */
    for (size_t l = 0; l < *nlocs; l++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, LOCATION(k, (*locs)[l].thread));
        int64_t marks = w == NULL ? -1
                                  : write_marks(w, j, t, (*locs)[l].thread, UINT64_MAX,
                                                &states[l], g, uregion);
        if (marks < 0)
            goto oom;
        (*locs)[l].events += (uint64_t)marks;
        for (; states[l].depth > 0; states[l].depth--)
            if (states[l].depth <= 64) {
                OTF2_EvtWriter_Leave(w, NULL, states[l].last_ns,
                                     (OTF2_RegionRef)states[l].open[states[l].depth - 1]);
                (*locs)[l].events++;
            }
        if (states[l].last_ns > *last_ns)
            *last_ns = states[l].last_ns;
    }
    for (size_t l = 0; l < *nlocs; l++)
        OTF2_Archive_CloseEvtWriter(archive,
                                    OTF2_Archive_GetEvtWriter(archive,
                                                              LOCATION(k, (*locs)[l].thread)));
    free(region);
    free(uregion);
    free(states);
    free(completer);
    free(done_of);
    free(start_of_done);
    return 0;
oom:
    fprintf(stderr, "mpiwatch: --otf2: out of memory, or OTF2 could not write rank %d\n", k);
    free(region);
    free(uregion);
    free(states);
    free(completer);
    free(done_of);
    free(start_of_done);
    return -1;
}

static void write_string(OTF2_GlobalDefWriter *d, uint32_t id, const char *s)
{
    OTF2_GlobalDefWriter_WriteString(d, id, s);
}

/* The global definitions: strings, regions, the system tree, a location
 * group per rank and a location per thread, the communicators
 * (otf2_comms.h). */
void mwc_otf2_write_definitions(OTF2_Archive *archive, const mwc_trace_job *j,
                                const mwc_otf2_regions *g, mwc_otf2_location **locs,
                                const size_t *nlocs, uint64_t last_ns)
{
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(archive);
    OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000ull, 0, last_ns + 1,
                                              j->base_ns + (uint64_t)llround(j->shift_ns));
    static const char *const fixed[] = {"", "machine", "node",
                                        "mpiwatch::calls",
                                        "the calls this record stands for: polls that found "
                                        "nothing, folded",
                                        "mpiwatch::site", "the call site: the caller's file and "
                                        "line", "MPI_Pcontrol level"};
    for (uint32_t i = 0; i < S_FIRST_NAME; i++)
        write_string(d, i, fixed[i]);
    OTF2_GlobalDefWriter_WriteAttribute(d, ATTR_CALLS, S_CALLS, S_CALLS_DESC, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteParameter(d, PARAM_PCONTROL, S_PCONTROL, OTF2_PARAMETER_TYPE_INT64);
    if (g->sites != NULL)
        OTF2_GlobalDefWriter_WriteAttribute(d, ATTR_SITE, S_SITE, S_SITE_DESC,
                                            OTF2_TYPE_SOURCE_CODE_LOCATION);
    for (int i = 0; i < g->n; i++) {
        if (g->names[i][0] == '@') {   /* a named region of the program */
            write_string(d, S_FIRST_NAME + (uint32_t)i, g->names[i] + 1);
            OTF2_GlobalDefWriter_WriteRegion(
                d, (OTF2_RegionRef)i, S_FIRST_NAME + (uint32_t)i, S_FIRST_NAME + (uint32_t)i,
                S_EMPTY, OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                S_EMPTY, 0, 0);
            continue;
        }
        write_string(d, S_FIRST_NAME + (uint32_t)i, g->names[i]);
        int op = collective_of(g->names[i]);
        OTF2_GlobalDefWriter_WriteRegion(
            d, (OTF2_RegionRef)i, S_FIRST_NAME + (uint32_t)i, S_FIRST_NAME + (uint32_t)i,
            S_EMPTY,
            op == OTF2_COLLECTIVE_OP_BARRIER ? OTF2_REGION_ROLE_BARRIER
            : op >= 0                        ? OTF2_REGION_ROLE_COLL_OTHER
                                             : OTF2_REGION_ROLE_FUNCTION,
            OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, S_MACHINE, S_NODE,
                                             OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint32_t next = S_FIRST_NAME + (uint32_t)g->n;
    for (int k = 0; k < j->nranks; k++) {
        char name[64];
        snprintf(name, sizeof name, "rank %d", k);
        write_string(d, next, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(d, (OTF2_LocationGroupRef)k, next++,
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        for (size_t l = 0; l < nlocs[k]; l++) {
            snprintf(name, sizeof name, "rank %d thread %u", k, locs[k][l].thread);
            write_string(d, next, name);
            OTF2_GlobalDefWriter_WriteLocation(d, LOCATION(k, locs[k][l].thread), next++,
                                               OTF2_LOCATION_TYPE_CPU_THREAD, locs[k][l].events,
                                               (OTF2_LocationGroupRef)k);
        }
        if (nlocs[k] == 0) {   /* a rank not traced: its location, empty, for the groups */
            snprintf(name, sizeof name, "rank %d thread 0", k);
            write_string(d, next, name);
            OTF2_GlobalDefWriter_WriteLocation(d, LOCATION(k, 0), next++,
                                               OTF2_LOCATION_TYPE_CPU_THREAD, 0,
                                               (OTF2_LocationGroupRef)k);
        }
    }
    next = mwc_otf2_comms_define(g->comms, d, next);
    mwc_otf2_sites_define(g->sites, d, next);
    OTF2_Archive_CloseGlobalDefWriter(archive, d);
}

int mwc_trace_otf2(const char *spec, const char *out, const char *program, int quiet)
{
    mwc_trace_job j;
    struct stat st;
    int problems = mwc_trace_job_read(spec, &j, quiet);
    if (problems < 0)
        return 1;
    char anchor[4200];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", out);
    if (stat(anchor, &st) == 0) {
        fprintf(stderr, "mpiwatch: --otf2 %s already holds an archive (%s); name another folder\n",
                out, anchor);
        mwc_trace_job_free(&j);
        return 1;
    }
    OTF2_Archive *archive = OTF2_Archive_Open(out, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (archive == NULL) {
        fprintf(stderr, "mpiwatch: --otf2 %s: the archive cannot be made there\n", out);
        mwc_trace_job_free(&j);
        return 1;
    }
    OTF2_Archive_SetFlushCallbacks(archive, &mwc_otf2_flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(archive);
    OTF2_Archive_OpenEvtFiles(archive);
    mwc_otf2_regions g = {NULL, 0, mwc_otf2_comms_new(&j), NULL};
    if (program != NULL) {
        char why[1200];
        if ((g.sites = mwc_otf2_sites_open(program, why, sizeof why)) == NULL)
            fprintf(stderr, "mpiwatch: --otf2 --exe: %s; the call sites are not in the archive\n",
                    why);
    }
    mwc_otf2_location **locs = calloc((size_t)j.nranks, sizeof *locs);
    size_t *nlocs = calloc((size_t)j.nranks, sizeof *nlocs);
    uint64_t last_ns = 0, calls = 0;
    int status = problems != 0 || locs == NULL || nlocs == NULL || g.comms == NULL;
    for (int k = 0; k < j.nranks && locs != NULL && nlocs != NULL && g.comms != NULL; k++) {
        if (j.ranks[k].path != NULL &&
            mwc_otf2_write_rank(archive, &j, k, &g, &locs[k], &nlocs[k], &last_ns) != 0)
            status = 1;
        for (size_t i = 0; j.ranks[k].path != NULL && i < j.ranks[k].ncalls; i++)
            calls += j.ranks[k].calls[i].count;
        /* Not traced, or no call in its file (a job killed before a chunk was
         * written): its one location's event file, empty, which readers open. */
        if (nlocs[k] == 0)
            OTF2_Archive_CloseEvtWriter(archive,
                                        OTF2_Archive_GetEvtWriter(archive, LOCATION(k, 0)));
    }
    OTF2_Archive_CloseEvtFiles(archive);
    OTF2_Archive_OpenDefFiles(archive);
    for (int k = 0; k < j.nranks && locs != NULL && nlocs != NULL; k++)
        for (size_t l = 0; l < (nlocs[k] ? nlocs[k] : 1); l++) {
            uint32_t thread = nlocs[k] ? locs[k][l].thread : 0;
            OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, LOCATION(k, thread));
            OTF2_Archive_CloseDefWriter(archive, dw);
        }
    OTF2_Archive_CloseDefFiles(archive);
    if (locs != NULL && nlocs != NULL && g.comms != NULL)
        mwc_otf2_write_definitions(archive, &j, &g, locs, nlocs, last_ns);
    if (OTF2_Archive_Close(archive) != OTF2_SUCCESS) {
        fprintf(stderr, "mpiwatch: --otf2 %s: the archive could not be closed\n", out);
        status = 1;
    }
    char sites_note[64];
    snprintf(sites_note, sizeof sites_note, ", %zu source code locations",
             mwc_otf2_sites_count(g.sites));
    if (!quiet && status == 0)
        fprintf(stderr, "mpiwatch: %s: %llu calls of %d ranks%s\n", anchor,
                (unsigned long long)calls, j.nranks, g.sites != NULL ? sites_note : "");
    for (int k = 0; locs != NULL && k < j.nranks; k++)
        free(locs[k]);
    free(locs);
    free(nlocs);
    mwc_otf2_regions_free(&g);
    mwc_otf2_sites_close(g.sites);
    mwc_trace_job_free(&j);
    return status;
}

#else

const int mwc_trace_otf2_built = 0;

int mwc_trace_otf2(const char *spec, const char *out, const char *program, int quiet)
{
    (void)spec, (void)out, (void)program, (void)quiet;
    fprintf(stderr, "mpiwatch: --otf2: this mpiwatch was built without OTF2 (install "
                    "libotf2-trace-dev and run configure again)\n");
    return 1;
}

#endif
