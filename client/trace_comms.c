/* A job's communicators unified across ranks (client/trace_comms.h). */
#include "trace_comms.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int handle;
    uint64_t t;
    int id;                    /* in the job's table */
} def_ref;

static int by_handle_time(const void *a, const void *b)
{
    const def_ref *x = a, *y = b;
    if (x->handle != y->handle)
        return x->handle < y->handle ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

static int same_identity(const mwc_trace_comm *a, const mwc_trace_comm *b)
{
    return a->before == b->before && a->size == b->size &&
           memcmp(a->members, b->members, (size_t)a->size * sizeof *a->members) == 0;
}

int mwc_comm_table_id(mwc_comm_table *t, const mwc_trace_comm *def, int handle)
{
    for (int i = 0; i < t->n; i++)
        if (def != NULL ? t->v[i].def != NULL && same_identity(t->v[i].def, def)
                        : t->v[i].def == NULL && t->v[i].handle == handle)
            return i;
    mwc_job_comm *more = realloc(t->v, (size_t)(t->n + 1) * sizeof *more);
    if (more == NULL)
        return -1;
    t->v = more;
    t->v[t->n] = (mwc_job_comm){def, def != NULL ? def->handle : handle};
    return t->n++;
}

/* The newest of refs[n] (sorted) for handle at or before time t; NULL none. */
static const def_ref *defined_at(const def_ref *refs, size_t n, int handle, uint64_t t)
{
    size_t lo = 0, hi = n;   /* the first ref after (handle, t) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (refs[mid].handle < handle || (refs[mid].handle == handle && refs[mid].t <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && refs[lo - 1].handle == handle ? &refs[lo - 1] : NULL;
}

int mwc_trace_unify_comms(mwc_trace_rank *ranks, int n, mwc_job_comm **comms, int *ncomms)
{
    mwc_comm_table t = {NULL, 0};
    for (int k = 0; k < n; k++) {
        mwc_trace_rank *r = &ranks[k];
        def_ref *refs = malloc((r->ncomms ? r->ncomms : 1) * sizeof *refs);
        if (refs == NULL)
            goto oom;
        for (size_t i = 0; i < r->ncomms; i++) {
            refs[i] = (def_ref){r->comms[i].handle, r->comms[i].t,
                                mwc_comm_table_id(&t, &r->comms[i], 0)};
            if (refs[i].id < 0) {
                free(refs);
                goto oom;
            }
        }
        qsort(refs, r->ncomms, sizeof *refs, by_handle_time);
        int last_handle = -1, last_id = -1;   /* the last handle known by itself */
        for (size_t i = 0; i < r->ncalls; i++) {
            mwc_trace_call *c = &r->calls[i];
            if (c->comm == -1)
                continue;
            const def_ref *d = defined_at(refs, r->ncomms, c->comm, c->t_in);
            if (d != NULL) {
                c->comm = d->id;
                continue;
            }
            if (c->comm != last_handle || last_id < 0) {
                last_handle = c->comm;
                if ((last_id = mwc_comm_table_id(&t, NULL, c->comm)) < 0) {
                    free(refs);
                    goto oom;
                }
            }
            c->comm = last_id;
        }
        free(refs);
    }
    *comms = t.v;
    *ncomms = t.n;
    return 0;
oom:
    free(t.v);
    return -1;
}

/* An identity's key: FNV-1a over the ordinal, the size and the members. */
static int identity_key(const mwc_trace_comm *c)
{
    uint64_t h = 0xcbf29ce484222325ull;
    uint64_t words[2] = {c->before, (uint64_t)c->size};
    for (int i = 0; i < 2 + c->size; i++) {
        uint64_t w = i < 2 ? words[i] : (uint64_t)(uint32_t)c->members[i - 2];
        for (int b = 0; b < 8; b++)
            h = (h ^ ((w >> (8 * b)) & 0xff)) * 0x100000001b3ull;
    }
    return -2 - (int)(h % 2147483646u);   /* below -1 (none), above INT_MIN */
}

int mwc_trace_key_comms(mwc_trace_rank *r)
{
    def_ref *refs = malloc((r->ncomms ? r->ncomms : 1) * sizeof *refs);
    if (refs == NULL)
        return -1;
    for (size_t i = 0; i < r->ncomms; i++)
        refs[i] = (def_ref){r->comms[i].handle, r->comms[i].t, (int)i};
    qsort(refs, r->ncomms, sizeof *refs, by_handle_time);
    for (size_t i = 0; i < r->ncalls; i++) {
        mwc_trace_call *c = &r->calls[i];
        const def_ref *d = c->comm == -1 ? NULL : defined_at(refs, r->ncomms, c->comm, c->t_in);
        if (d != NULL)
            c->comm = identity_key(&r->comms[d->id]);
    }
    free(refs);
    return 0;
}
