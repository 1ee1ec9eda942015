/* The job's communicators as OTF2 Comm definitions (client/otf2_comms.h). */
#include "otf2_comms.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int id;                    /* the job's communicator */
    int *rank_of;              /* by world rank, its rank in it or -1; NULL: world's group */
} used_comm;

struct mwc_otf2_comms {
    const mwc_trace_job *j;
    used_comm *v;              /* OTF2 comm i + 1 */
    int n;
};

mwc_otf2_comms *mwc_otf2_comms_new(const mwc_trace_job *j)
{
    mwc_otf2_comms *c = calloc(1, sizeof *c);
    if (c != NULL)
        c->j = j;
    return c;
}

int mwc_otf2_comms_ref(mwc_otf2_comms *c, int id)
{
    for (int i = 0; i < c->n; i++)
        if (c->v[i].id == id)
            return i + 1;
    used_comm *more = realloc(c->v, (size_t)(c->n + 1) * sizeof *more);
    if (more == NULL)
        return -1;
    c->v = more;
    used_comm *u = &c->v[c->n];
    *u = (used_comm){id, NULL};
    const mwc_trace_comm *def = c->j->comms[id].def;
    if (def != NULL) {
        if ((u->rank_of = malloc((size_t)c->j->nranks * sizeof *u->rank_of)) == NULL)
            return -1;
        for (int r = 0; r < c->j->nranks; r++)
            u->rank_of[r] = -1;
        for (int i = 0; i < def->size && u->rank_of != NULL; i++) {
            int m = def->members[i];
            if (m < 0 || m >= c->j->nranks || u->rank_of[m] >= 0) {
                free(u->rank_of);   /* not a group of the job's ranks: world's */
                u->rank_of = NULL;
            } else {
                u->rank_of[m] = i;
            }
        }
    }
    return ++c->n;
}

int mwc_otf2_comms_place(mwc_otf2_comms *c, int id, int self, int peer, OTF2_CommRef *comm,
                         int *rank)
{
    *comm = 0;
    *rank = peer;
    if (id < 0)
        return 0;
    int ref = mwc_otf2_comms_ref(c, id);
    if (ref < 0)
        return -1;
    const int *rank_of = c->v[ref - 1].rank_of;
    if (rank_of == NULL) {
        *comm = (OTF2_CommRef)ref;
        return 0;
    }
    int in_self = self >= 0 && self < c->j->nranks ? rank_of[self] : -1;
    int in_peer = peer >= 0 && peer < c->j->nranks ? rank_of[peer] : -1;
    if (in_self >= 0 && (peer < 0 || in_peer >= 0)) {
        *comm = (OTF2_CommRef)ref;
        *rank = peer < 0 ? -1 : in_peer;
    }
    return 0;
}

uint32_t mwc_otf2_comms_define(const mwc_otf2_comms *c, OTF2_GlobalDefWriter *d,
                               uint32_t first_string)
{
    const mwc_trace_job *j = c->j;
    uint32_t s = first_string, n = (uint32_t)j->nranks;
    uint64_t *members = malloc((n ? n : 1) * sizeof *members);
    if (members == NULL)
        return s;
    static const char *const fixed[] = {"MPI_COMM_WORLD locations", "MPI_COMM_WORLD ranks",
                                        "communicator not recorded"};
    for (int i = 0; i < 3; i++)
        OTF2_GlobalDefWriter_WriteString(d, s + (uint32_t)i, fixed[i]);
    for (uint32_t k = 0; k < n; k++)
        members[k] = MWC_OTF2_LOCATION(k, 0);
    OTF2_GlobalDefWriter_WriteGroup(d, 0, s, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, n, members);
    for (uint32_t k = 0; k < n; k++)
        members[k] = k;
    OTF2_GlobalDefWriter_WriteGroup(d, 1, s + 1, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, n, members);
    OTF2_GlobalDefWriter_WriteComm(d, 0, s + 2, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    s += 3;
    OTF2_GroupRef next_group = 2;
    for (int i = 0; i < c->n; i++) {
        char name[64];
        const mwc_job_comm *jc = &j->comms[c->v[i].id];
        const mwc_trace_comm *def = jc->def;
        OTF2_GroupRef group = 1;
        if (c->v[i].rank_of != NULL) {   /* distinct ranks of the job: at most n */
            for (int m = 0; m < def->size; m++)
                members[m] = (uint64_t)def->members[m];
            snprintf(name, sizeof name, "communicator %d (%d ranks)", c->v[i].id, def->size);
            OTF2_GlobalDefWriter_WriteString(d, s, name);
            group = next_group++;
            OTF2_GlobalDefWriter_WriteGroup(d, group, s, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                            (uint32_t)def->size, members);
        } else if (def != NULL) {   /* members that are not the job's ranks */
            snprintf(name, sizeof name, "communicator %d (%d ranks, not of this job's)",
                     c->v[i].id, def->size);
            OTF2_GlobalDefWriter_WriteString(d, s, name);
        } else {
            snprintf(name, sizeof name, "communicator %d (handle %d)", c->v[i].id, jc->handle);
            OTF2_GlobalDefWriter_WriteString(d, s, name);
        }
        OTF2_GlobalDefWriter_WriteComm(d, (OTF2_CommRef)(i + 1), s++, group, OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
    }
    free(members);
    return s;
}

int mwc_otf2_comms_count(const mwc_otf2_comms *c)
{
    return c->n;
}

int mwc_otf2_comms_id(const mwc_otf2_comms *c, int ref)
{
    return c->v[ref - 1].id;
}

void mwc_otf2_comms_free(mwc_otf2_comms *c)
{
    if (c == NULL)
        return;
    for (int i = 0; i < c->n; i++)
        free(c->v[i].rank_of);
    free(c->v);
    free(c);
}
