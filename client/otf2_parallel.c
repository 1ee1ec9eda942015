/* The OTF2 archive written by every rank (client/otf2_parallel.h). */
#include "otf2_parallel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_comms.h"
#include "trace_job.h"
#include "trace_otf2_parts.h"
#include "trace_read.h"

#define ROOT 0

/* What a rank tells rank 0 once its events are written, in a byte buffer
 * (the ranks run one program on one kind of machine: native byte order):
 * its locations (thread, events), its latest time, its functions in the
 * order of their regions, its communicators (as trace_comms.c's table
 * holds them: a definition, or a handle), and the communicators of its
 * OTF2 comms 1, 2, ... (indexes into the table). */
typedef struct {
    unsigned char *p;
    size_t n, cap;
    int failed;
} blob;

static void put(blob *b, const void *v, size_t len)
{
    if (b->failed)
        return;
    if (b->n + len > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + len)
            cap *= 2;
        unsigned char *more = realloc(b->p, cap);
        if (more == NULL) {
            b->failed = 1;
            return;
        }
        b->p = more;
        b->cap = cap;
    }
    memcpy(b->p + b->n, v, len);
    b->n += len;
}

static void put_u64(blob *b, uint64_t v)
{
    put(b, &v, sizeof v);
}

typedef struct {
    const unsigned char *p;
    size_t n, at;
    int bad;
} reader;

static uint64_t take_u64(reader *r)
{
    uint64_t v = 0;
    if (r->bad || r->n - r->at < sizeof v) {
        r->bad = 1;
        return 0;
    }
    memcpy(&v, r->p + r->at, sizeof v);
    r->at += sizeof v;
    return v;
}

/* A count of items of at least min_bytes each that the rest can hold. */
static size_t take_count(reader *r, size_t min_bytes)
{
    uint64_t v = take_u64(r);
    if (v > (r->n - r->at) / min_bytes)
        r->bad = 1;
    return r->bad ? 0 : (size_t)v;
}

/* A string written with its terminator, in place. */
static const char *take_string(reader *r)
{
    size_t len = take_count(r, 1);
    if (r->bad || len == 0 || r->p[r->at + len - 1] != '\0') {
        r->bad = 1;
        return "";
    }
    const char *s = (const char *)r->p + r->at;
    r->at += len;
    return s;
}

static blob describe(const mwc_trace_job *j, const mwc_otf2_regions *g,
                     const mwc_otf2_location *locs, size_t nlocs, uint64_t last_ns)
{
    blob b = {NULL, 0, 0, 0};
    put_u64(&b, nlocs);
    for (size_t l = 0; l < nlocs; l++) {
        put_u64(&b, locs[l].thread);
        put_u64(&b, locs[l].events);
    }
    put_u64(&b, last_ns);
    put_u64(&b, (uint64_t)g->n);
    for (int i = 0; i < g->n; i++) {
        put_u64(&b, strlen(g->names[i]) + 1);
        put(&b, g->names[i], strlen(g->names[i]) + 1);
    }
    put_u64(&b, (uint64_t)j->ncomms);
    for (int i = 0; i < j->ncomms; i++) {
        const mwc_trace_comm *d = j->comms[i].def;
        put_u64(&b, d != NULL);
        put_u64(&b, (uint64_t)(int64_t)j->comms[i].handle);
        if (d != NULL) {
            put_u64(&b, d->before);
            put_u64(&b, (uint64_t)d->size);
            for (int m = 0; m < d->size; m++)
                put_u64(&b, (uint64_t)d->members[m]);
        }
    }
    int used = g->comms != NULL ? mwc_otf2_comms_count(g->comms) : 0;
    put_u64(&b, (uint64_t)used);
    for (int ref = 1; ref <= used; ref++)
        put_u64(&b, (uint64_t)mwc_otf2_comms_id(g->comms, ref));
    return b;
}

/* One rank's description as rank 0 reads it. */
typedef struct {
    mwc_otf2_location *locs;
    size_t nlocs;
    uint64_t last_ns;
    const char **names;
    size_t nnames;
    mwc_trace_comm *defs;      /* by the rank's communicator; members NULL: a handle */
    int *job_id;               /* its communicators in the job's table */
    size_t ncomms;
    size_t *used;              /* the communicators of its comms 1, 2, ... */
    size_t nused;
} told;

static void told_free(told *t)
{
    for (size_t i = 0; t->defs != NULL && i < t->ncomms; i++)
        free(t->defs[i].members);
    free(t->locs);
    free(t->names);
    free(t->defs);
    free(t->job_id);
    free(t->used);
}

/* 0, or -1: damaged or out of memory. */
static int read_told(const unsigned char *p, size_t n, int ranks, told *t)
{
    reader r = {p, n, 0, 0};
    memset(t, 0, sizeof *t);
    t->nlocs = take_count(&r, 16);
    if ((t->locs = calloc(t->nlocs ? t->nlocs : 1, sizeof *t->locs)) == NULL)
        return -1;
    for (size_t l = 0; l < t->nlocs; l++) {
        t->locs[l].thread = (uint32_t)take_u64(&r);
        t->locs[l].events = take_u64(&r);
    }
    t->last_ns = take_u64(&r);
    t->nnames = take_count(&r, 9);
    if ((t->names = calloc(t->nnames ? t->nnames : 1, sizeof *t->names)) == NULL)
        return -1;
    for (size_t i = 0; i < t->nnames; i++)
        t->names[i] = take_string(&r);
    t->ncomms = take_count(&r, 16);
    if ((t->defs = calloc(t->ncomms ? t->ncomms : 1, sizeof *t->defs)) == NULL ||
        (t->job_id = calloc(t->ncomms ? t->ncomms : 1, sizeof *t->job_id)) == NULL)
        return -1;
    for (size_t i = 0; i < t->ncomms && !r.bad; i++) {
        int has_def = take_u64(&r) != 0;
        mwc_trace_comm *d = &t->defs[i];
        d->handle = (int)(int64_t)take_u64(&r);
        if (!has_def)
            continue;
        d->before = take_u64(&r);
        size_t size = take_count(&r, 8);
        if (r.bad || size == 0 || size > (size_t)ranks ||
            (d->members = malloc(size * sizeof *d->members)) == NULL)
            return -1;
        d->size = (int)size;
        for (size_t m = 0; m < size; m++)
            d->members[m] = (int)take_u64(&r);
    }
    t->nused = take_count(&r, 8);
    if ((t->used = calloc(t->nused ? t->nused : 1, sizeof *t->used)) == NULL)
        return -1;
    for (size_t i = 0; i < t->nused; i++)
        if ((t->used[i] = (size_t)take_u64(&r)) >= t->ncomms)
            r.bad = 1;
    return r.bad ? -1 : 0;
}

typedef struct {
    const OTF2_CollectiveCallbacks *cb;
    void *data;
    OTF2_CollectiveContext *global;
    int rank, size;
} ranks;

static int gather(const ranks *x, const void *in, void *out, uint32_t n, OTF2_Type type)
{
    return x->cb->otf2_gather(x->data, x->global, in, out, n, type, ROOT) ==
                   OTF2_CALLBACK_SUCCESS ? 0 : -1;
}

static int bcast(const ranks *x, void *v, uint32_t n, OTF2_Type type)
{
    return x->cb->otf2_bcast(x->data, x->global, v, n, type, ROOT) ==
                   OTF2_CALLBACK_SUCCESS ? 0 : -1;
}

/* Rank 0's yes (1) or no (0) for every rank, from every rank's. */
static int all_agree(const ranks *x, int yes, uint64_t *scratch)
{
    uint64_t mine = (uint64_t)yes, all = 1;
    if (gather(x, &mine, scratch, 1, OTF2_TYPE_UINT64) != 0)
        all = 0;
    for (int k = 0; x->rank == ROOT && k < x->size; k++)
        all = all && scratch != NULL && scratch[k] != 0;
    if (bcast(x, &all, 1, OTF2_TYPE_UINT64) != 0)
        return 0;
    return all != 0;
}

/* The job's clock (trace_job.c): base_ns the earliest origin of the ranks
 * read, rank 0's clock for the others (its header), shift_ns the earliest
 * call. per: 4 numbers a rank, rank 0's. */
static int job_clock(const ranks *x, mwc_trace_job *j, const mwc_trace_rank *own,
                     uint64_t *per)
{
    double ps = own->per_second;
    uint64_t mine[4] = {own->path != NULL, own->wall_ns, own->origin, 0}, zero[5] = {0};
    memcpy(&mine[3], &ps, sizeof ps);
    int rc = gather(x, mine, per, 4, OTF2_TYPE_UINT64);
    if (x->rank == ROOT) {
        zero[0] = UINT64_MAX;
        for (int k = 0; per != NULL && k < x->size; k++)
            if (per[4 * k] && per[4 * k + 1] < zero[0])
                zero[0] = per[4 * k + 1];
        if (per != NULL && per[0]) {
            zero[1] = 1;
            memcpy(&zero[2], &per[1], 3 * sizeof *zero);
        }
    }
    rc |= bcast(x, zero, 5, OTF2_TYPE_UINT64);
    j->base_ns = zero[0];
    if (zero[1] && x->rank != ROOT && j->ranks != NULL) {   /* rank 0's clock, for mwc_trace_job_ns */
        mwc_trace_rank *r0 = &j->ranks[0];
        r0->path = (char *)"rank 0";
        r0->wall_ns = zero[2];
        r0->origin = zero[3];
        memcpy(&r0->per_second, &zero[4], sizeof r0->per_second);
    }
    double earliest = own->path != NULL ? mwc_trace_job_earliest_ns(j, own) : 0, least = 0;
    double *all = (double *)per;   /* room for 4 numbers a rank */
    rc |= x->cb->otf2_gather(x->data, x->global, &earliest, all, 1, OTF2_TYPE_DOUBLE, ROOT) !=
          OTF2_CALLBACK_SUCCESS;
    for (int k = 0; x->rank == ROOT && all != NULL && k < x->size; k++)
        least = all[k] < least ? all[k] : least;
    rc |= x->cb->otf2_bcast(x->data, x->global, &least, 1, OTF2_TYPE_DOUBLE, ROOT) !=
          OTF2_CALLBACK_SUCCESS;
    j->shift_ns = least;
    return rc != 0 ? -1 : 0;
}

/* Rank 0: the job's numbering from every rank's description, rank by rank
 * as the serial converter numbers them, and the global definitions; each
 * rank's map (its number of regions, their job's regions, its number of
 * comms, their job's comms) into maps[k] (malloc'd, *nmaps[k] numbers).
 * 0, or -1 (said). */
static int number_and_define(OTF2_Archive *archive, const unsigned char *all,
                             const uint32_t *sizes, int nranks, uint64_t base_ns,
                             double shift_ns, uint32_t **maps, uint32_t *nmaps)
{
    told *t = calloc((size_t)nranks, sizeof *t);
    mwc_otf2_location **locs = calloc((size_t)nranks, sizeof *locs);
    size_t *nlocs = calloc((size_t)nranks, sizeof *nlocs);
    mwc_comm_table table = {NULL, 0};
    mwc_trace_job job = {NULL, nranks, base_ns, shift_ns, NULL, 0};
    mwc_otf2_regions g = {NULL, 0, NULL, NULL};
    uint64_t last_ns = 0;
    int rc = t == NULL || locs == NULL || nlocs == NULL ? -1 : 0;
    size_t at = 0;
    for (int k = 0; rc == 0 && k < nranks; at += sizes[k], k++) {
        if (read_told(all + at, sizes[k], nranks, &t[k]) != 0) {
            fprintf(stderr, "mpiwatch: the OTF2 archive: rank %d's description is damaged, or "
                            "out of memory\n", k);
            rc = -1;
            break;
        }
        for (size_t i = 0; i < t[k].ncomms && rc == 0; i++)
            if ((t[k].job_id[i] = mwc_comm_table_id(
                     &table, t[k].defs[i].members != NULL ? &t[k].defs[i] : NULL,
                     t[k].defs[i].handle)) < 0)
                rc = -1;
        locs[k] = t[k].locs;
        nlocs[k] = t[k].nlocs;
        last_ns = t[k].last_ns > last_ns ? t[k].last_ns : last_ns;
    }
    job.comms = table.v;
    job.ncomms = table.n;
    if (rc == 0 && (g.comms = mwc_otf2_comms_new(&job)) == NULL)
        rc = -1;
    for (int k = 0; rc == 0 && k < nranks; k++) {
        nmaps[k] = (uint32_t)(2 + t[k].nnames + t[k].nused);
        if ((maps[k] = malloc(nmaps[k] * sizeof *maps[k])) == NULL) {
            rc = -1;
            break;
        }
        uint32_t *m = maps[k];
        *m++ = (uint32_t)t[k].nnames;
        for (size_t i = 0; i < t[k].nnames && rc == 0; i++) {
            int region = mwc_otf2_region_of(&g, t[k].names[i]);
            rc = region < 0 ? -1 : 0;
            *m++ = (uint32_t)region;
        }
        *m++ = (uint32_t)t[k].nused;
        for (size_t i = 0; i < t[k].nused && rc == 0; i++) {
            int ref = mwc_otf2_comms_ref(g.comms, t[k].job_id[t[k].used[i]]);
            rc = ref < 0 ? -1 : 0;
            *m++ = (uint32_t)ref;
        }
    }
    if (rc == 0)
        mwc_otf2_write_definitions(archive, &job, &g, locs, nlocs, last_ns);
    else
        fprintf(stderr, "mpiwatch: the OTF2 archive: out of memory for its definitions\n");
    for (int k = 0; t != NULL && k < nranks; k++) {
        t[k].locs = NULL;   /* freed through locs */
        told_free(&t[k]);
    }
    for (int k = 0; locs != NULL && k < nranks; k++)
        free(locs[k]);
    free(t);
    free(locs);
    free(nlocs);
    free(table.v);
    mwc_otf2_regions_free(&g);
    return rc;
}

/* This rank's locations' mapping tables: its regions and comms as the
 * job's (map as number_and_define makes it). 0, or -1. */
static int write_mappings(OTF2_Archive *archive, int rank, const mwc_otf2_location *locs,
                          size_t nlocs, const uint32_t *map, uint32_t nmap)
{
    int rc = 0;
    uint32_t nregions = nmap > 0 ? map[0] : 0;
    uint32_t ncomms = nmap > 1 + nregions ? map[1 + nregions] : 0;
    if (nmap != 2 + nregions + ncomms)
        return -1;
    uint32_t *comms = malloc((ncomms + 1) * sizeof *comms);   /* comm 0 is everyone's */
    if (comms == NULL)
        return -1;
    comms[0] = 0;
    memcpy(comms + 1, map + 2 + nregions, ncomms * sizeof *comms);
    OTF2_IdMap *regions = nregions ? OTF2_IdMap_CreateFromUint32Array(nregions, map + 1, false)
                                   : NULL;
    OTF2_IdMap *comm_map = OTF2_IdMap_CreateFromUint32Array(ncomms + 1, comms, false);
    for (size_t l = 0; l < (nlocs ? nlocs : 1); l++) {
        uint32_t thread = nlocs ? locs[l].thread : 0;
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, MWC_OTF2_LOCATION(rank, thread));
        if (dw == NULL || comm_map == NULL || (nregions && regions == NULL))
            rc = -1;
        if (dw != NULL && regions != NULL &&
            OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_REGION, regions) != OTF2_SUCCESS)
            rc = -1;
        if (dw != NULL && comm_map != NULL &&
            OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_COMM, comm_map) != OTF2_SUCCESS)
            rc = -1;
        if (dw != NULL)
            OTF2_Archive_CloseDefWriter(archive, dw);
    }
    if (regions != NULL)
        OTF2_IdMap_Free(regions);
    if (comm_map != NULL)
        OTF2_IdMap_Free(comm_map);
    free(comms);
    return rc;
}

int mwc_trace_otf2_rank(const char *path, const char *out, int rank, int size,
                        const OTF2_CollectiveCallbacks *cb, void *data,
                        OTF2_CollectiveContext *global)
{
    ranks x = {cb, data, global, rank, size};
    char err[4800];
    int status = 0;
    mwc_trace_job j = {calloc((size_t)size, sizeof *j.ranks), size, 0, 0, NULL, 0};
    mwc_trace_rank own = {0};
    /* Rank 0's room for every rank's numbers, taken first: without it no rank
     * opens the archive. */
    uint64_t *per = rank == ROOT ? calloc((size_t)size * 4, sizeof *per) : NULL;
    uint32_t *sizes = rank == ROOT ? calloc((size_t)size, sizeof *sizes) : NULL;
    uint32_t *displs = rank == ROOT ? calloc((size_t)size, sizeof *displs) : NULL;
    uint32_t **maps = rank == ROOT ? calloc((size_t)size, sizeof *maps) : NULL;
    int ok = j.ranks != NULL;
    if (ok && mwc_trace_read_file(path, &own, err, sizeof err) != 0) {
        fprintf(stderr, "mpiwatch: the OTF2 archive: %s; rank %d's locations are empty\n", err,
                rank);
        mwc_trace_rank_free(&own);
        status = 1;
    } else if (ok && (own.rank != rank || own.ranks != size)) {
        fprintf(stderr, "mpiwatch: the OTF2 archive: %s is rank %d's of %d ranks, not rank %d's "
                        "of %d; rank %d's locations are empty\n", path, own.rank, own.ranks,
                rank, size, rank);
        mwc_trace_rank_free(&own);
        status = 1;
    } else if (ok) {
        if (err[0] != '\0') {   /* damaged after some chunks: those are written */
            fprintf(stderr, "mpiwatch: the OTF2 archive: %s\n", err);
            status = 1;
        }
        j.ranks[rank] = own;
        if (mwc_trace_unify_comms(&j.ranks[rank], 1, &j.comms, &j.ncomms) != 0) {
            fprintf(stderr, "mpiwatch: the OTF2 archive: out of memory for rank %d's "
                            "communicators\n", rank);
            mwc_trace_rank_free(&j.ranks[rank]);
            status = 1;
        }
    }
    mwc_trace_rank *mine = j.ranks != NULL ? &j.ranks[rank] : &own;
    int go = all_agree(&x, rank != ROOT || (per && sizes && displs && maps), per);
    if (go && job_clock(&x, &j, mine, per) != 0)
        go = 0;
    OTF2_Archive *archive = NULL;
    if (go) {
        archive = OTF2_Archive_Open(out, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                                    OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
        go = all_agree(&x, archive != NULL, per);
        if (!go && archive != NULL)
            OTF2_Archive_Close(archive);
    }
    if (!go) {
        if (rank == ROOT)
            fprintf(stderr, "mpiwatch: the OTF2 archive %s could not be begun (out of memory, "
                            "or a collective failed)\n", out);
        status = 1;
    } else {
        OTF2_Archive_SetFlushCallbacks(archive, &mwc_otf2_flush_callbacks, NULL);
        OTF2_Archive_SetCollectiveCallbacks(archive, cb, data, global, NULL);
        OTF2_Archive_OpenEvtFiles(archive);
        mwc_otf2_regions g = {NULL, 0, mwc_otf2_comms_new(&j), NULL};
        mwc_otf2_location *locs = NULL;
        size_t nlocs = 0;
        uint64_t last_ns = 0;
        if (mine->path != NULL && (g.comms == NULL ||
            mwc_otf2_write_rank(archive, &j, rank, &g, &locs, &nlocs, &last_ns) != 0))
            status = 1;
        if (nlocs == 0)   /* an empty event file, which readers open */
            OTF2_Archive_CloseEvtWriter(archive,
                                        OTF2_Archive_GetEvtWriter(archive,
                                                                  MWC_OTF2_LOCATION(rank, 0)));
        OTF2_Archive_CloseEvtFiles(archive);
        blob b = describe(&j, &g, locs, nlocs, last_ns);
        uint32_t n = b.failed ? 0 : (uint32_t)b.n;
        if (b.failed) {
            fprintf(stderr, "mpiwatch: the OTF2 archive: out of memory for rank %d's "
                            "description\n", rank);
            status = 1;
        }
        /* Every rank's description to rank 0, which numbers and defines. */
        gather(&x, &n, sizes, 1, OTF2_TYPE_UINT32);
        unsigned char *all = NULL;
        uint64_t total = 0;
        for (int k = 0; rank == ROOT && k < size; k++) {
            displs[k] = (uint32_t)total;
            total += sizes[k];
        }
        if (rank == ROOT && (total > UINT32_MAX || (all = malloc(total ? total : 1)) == NULL)) {
            fprintf(stderr, "mpiwatch: the OTF2 archive: the ranks' descriptions (%llu "
                            "bytes) do not fit\n", (unsigned long long)total);
            status = 1;
        }
        cb->otf2_gatherv(data, global, b.p != NULL ? b.p : (void *)&n, n, all, sizes,
                         OTF2_TYPE_UINT8, ROOT);
        OTF2_Archive_OpenDefFiles(archive);
        uint32_t *map = NULL, nmap = 0;
        unsigned char *packed = NULL;
        if (rank == ROOT) {
            if (all == NULL || number_and_define(archive, all, sizes, size, j.base_ns,
                                                 j.shift_ns, maps, sizes) != 0)
                status = 1;
            /* Every map, one after the other (sizes now their lengths). */
            uint64_t words = 0;
            for (int k = 0; k < size; k++) {
                if (maps[k] == NULL)
                    sizes[k] = 0;
                displs[k] = (uint32_t)words;
                words += sizes[k];
            }
            packed = malloc(words ? words * sizeof *map : 1);
            for (int k = 0; k < size; k++) {
                if (packed == NULL)
                    sizes[k] = 0;
                else if (sizes[k] != 0)
                    memcpy(packed + (size_t)displs[k] * sizeof *map, maps[k],
                           sizes[k] * sizeof *map);
            }
        }
        cb->otf2_scatter(data, global, sizes, &nmap, 1, OTF2_TYPE_UINT32, ROOT);
        if ((map = malloc(nmap ? nmap * sizeof *map : sizeof *map)) == NULL)
            nmap = 0;   /* the scatter still takes its part: into a word of its own */
        uint32_t spare;
        cb->otf2_scatterv(data, global, packed != NULL ? packed : (void *)&spare, sizes,
                          map != NULL ? (void *)map : (void *)&spare, map != NULL ? nmap : 0,
                          OTF2_TYPE_UINT32, ROOT);
        if (write_mappings(archive, rank, locs, nlocs, map, nmap) != 0) {
            fprintf(stderr, "mpiwatch: the OTF2 archive: rank %d's mapping tables could not "
                            "be written\n", rank);
            status = 1;
        }
        OTF2_Archive_CloseDefFiles(archive);
        if (OTF2_Archive_Close(archive) != OTF2_SUCCESS) {
            fprintf(stderr, "mpiwatch: the OTF2 archive %s could not be closed\n", out);
            status = 1;
        }
        for (int k = 0; maps != NULL && k < size; k++)
            free(maps[k]);
        free(map);
        free(packed);
        free(all);
        free(b.p);
        free(locs);
        mwc_otf2_regions_free(&g);
    }
    if (j.ranks != NULL && j.ranks[rank].path != NULL)
        mwc_trace_rank_free(&j.ranks[rank]);
    free(j.ranks);
    free(j.comms);
    free(per);
    free(sizes);
    free(displs);
    free(maps);
    return status;
}
