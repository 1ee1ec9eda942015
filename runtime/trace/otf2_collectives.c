/* OTF2's collective callbacks over the private communicator
 * (trace/otf2_collectives.h): the runtime's yielding collectives where they
 * exist (rooted at rank 0, as OTF2 roots its own), PMPI's otherwise. */
#include "trace/otf2_collectives.h"

#if MW_HAVE_OTF2
#include <otf2/otf2.h>
#include <stdlib.h>
#include <string.h>

#include "core/yielding_collectives.h"
#include "otf2_parallel.h"

struct OTF2_CollectiveContext {
    MPI_Comm comm;
    int rank, size;
};

static MPI_Datatype mpi_type(OTF2_Type type)
{
    switch (type) {
    case OTF2_TYPE_UINT8: return MPI_UINT8_T;
    case OTF2_TYPE_INT8: return MPI_INT8_T;
    case OTF2_TYPE_UINT16: return MPI_UINT16_T;
    case OTF2_TYPE_INT16: return MPI_INT16_T;
    case OTF2_TYPE_UINT32: return MPI_UINT32_T;
    case OTF2_TYPE_INT32: return MPI_INT32_T;
    case OTF2_TYPE_UINT64: return MPI_UINT64_T;
    case OTF2_TYPE_INT64: return MPI_INT64_T;
    case OTF2_TYPE_FLOAT: return MPI_FLOAT;
    case OTF2_TYPE_DOUBLE: return MPI_DOUBLE;
    default: return MPI_DATATYPE_NULL;
    }
}

static OTF2_CallbackCode code(int rc)
{
    return rc == MPI_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR;
}

static OTF2_CallbackCode get_size(void *data, OTF2_CollectiveContext *c, uint32_t *size)
{
    (void)data;
    *size = (uint32_t)c->size;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode get_rank(void *data, OTF2_CollectiveContext *c, uint32_t *rank)
{
    (void)data;
    *rank = (uint32_t)c->rank;
    return OTF2_CALLBACK_SUCCESS;
}

/* Only the SIONlib substrate asks for file-local communicators. */
static OTF2_CallbackCode create_local_comm(void *data, OTF2_CollectiveContext **local,
                                           OTF2_CollectiveContext *global, uint32_t global_rank,
                                           uint32_t global_size, uint32_t local_rank,
                                           uint32_t local_size, uint32_t file, uint32_t files)
{
    (void)data, (void)local, (void)global, (void)global_rank, (void)global_size;
    (void)local_rank, (void)local_size, (void)file, (void)files;
    return OTF2_CALLBACK_ERROR;
}

static OTF2_CallbackCode free_local_comm(void *data, OTF2_CollectiveContext *local)
{
    (void)data, (void)local;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode barrier(void *data, OTF2_CollectiveContext *c)
{
    (void)data;
    int in = 0, out = 0;
    return code(mw_allreduce(&in, &out, 1, MPI_INT, MPI_SUM, c->comm));
}

static OTF2_CallbackCode bcast(void *data, OTF2_CollectiveContext *c, void *v, uint32_t n,
                               OTF2_Type type, uint32_t root)
{
    (void)data;
    if (root == 0)
        return code(mw_bcast(v, (int)n, mpi_type(type), c->comm));
    return code(PMPI_Bcast(v, (int)n, mpi_type(type), (int)root, c->comm));
}

static OTF2_CallbackCode gather(void *data, OTF2_CollectiveContext *c, const void *in, void *out,
                                uint32_t n, OTF2_Type type, uint32_t root)
{
    (void)data;
    if (root == 0)
        return code(mw_gather(in, (int)n, mpi_type(type), out, c->comm));
    return code(PMPI_Gather(in, (int)n, mpi_type(type), out, (int)n, mpi_type(type), (int)root,
                            c->comm));
}

/* Counts and displacements as ints, for the root of a v-collective (NULL
 * elsewhere, and out of memory: then *ok is 0). */
static int *ints_of(const uint32_t *counts, int size, int **displs, int *ok)
{
    *displs = NULL;
    *ok = 1;
    if (counts == NULL)
        return NULL;
    int *c = malloc((size_t)size * sizeof *c);
    *displs = malloc((size_t)size * sizeof **displs);
    if (c == NULL || *displs == NULL) {
        free(c);
        free(*displs);
        *displs = NULL;
        *ok = 0;
        return NULL;
    }
    int at = 0;
    for (int k = 0; k < size; k++) {
        c[k] = (int)counts[k];
        (*displs)[k] = at;
        at += c[k];
    }
    return c;
}

static OTF2_CallbackCode gatherv(void *data, OTF2_CollectiveContext *c, const void *in,
                                 uint32_t n, void *out, const uint32_t *counts, OTF2_Type type,
                                 uint32_t root)
{
    (void)data;
    int ok, *displs, *ints = ints_of(c->rank == (int)root ? counts : NULL, c->size, &displs, &ok);
    int rc = root == 0 ? mw_gatherv(in, (int)n, mpi_type(type), ok ? out : NULL, ints, displs,
                                    c->comm)
                       : PMPI_Gatherv(in, (int)n, mpi_type(type), out, ints, displs,
                                      mpi_type(type), (int)root, c->comm);
    free(ints);
    free(displs);
    return code(ok ? rc : MPI_ERR_NO_MEM);
}

static OTF2_CallbackCode scatter(void *data, OTF2_CollectiveContext *c, const void *in,
                                 void *out, uint32_t n, OTF2_Type type, uint32_t root)
{
    (void)data;
    return code(PMPI_Scatter(in, (int)n, mpi_type(type), out, (int)n, mpi_type(type), (int)root,
                             c->comm));
}

/* Point to point from the root (the runtime's yielding messages): needs no
 * memory at the root, which sends each rank its part as it stands. */
static OTF2_CallbackCode scatterv(void *data, OTF2_CollectiveContext *c, const void *in,
                                  const uint32_t *counts, void *out, uint32_t n, OTF2_Type type,
                                  uint32_t root)
{
    (void)data;
    int elem = 0, rc = PMPI_Type_size(mpi_type(type), &elem);
    if (rc != MPI_SUCCESS)
        return code(rc);
    if (c->rank == (int)root) {
        size_t at = 0;
        for (int k = 0; k < c->size; k++) {
            size_t bytes = (size_t)counts[k] * (size_t)elem;
            if (k == c->rank)
                memcpy(out, (const char *)in + at, bytes < (size_t)n * (size_t)elem
                                                        ? bytes : (size_t)n * (size_t)elem);
            else if (mw_send((const char *)in + at, (int)bytes, k, MW_TAG_OTF2, c->comm) !=
                     MPI_SUCCESS)
                rc = MPI_ERR_OTHER;
            at += bytes;
        }
        return code(rc);
    }
    void *part = NULL;
    int bytes = 0;
    rc = mw_recv_any(&part, &bytes, (int)root, MW_TAG_OTF2, c->comm);
    if (part != NULL)
        memcpy(out, part, (size_t)bytes < (size_t)n * (size_t)elem ? (size_t)bytes
                                                                  : (size_t)n * (size_t)elem);
    free(part);
    return code(rc);
}

static void release(void *data, OTF2_CollectiveContext *global, OTF2_CollectiveContext *local)
{
    (void)data, (void)global, (void)local;
}

static const OTF2_CollectiveCallbacks callbacks = {
    .otf2_release = release,
    .otf2_get_size = get_size,
    .otf2_get_rank = get_rank,
    .otf2_create_local_comm = create_local_comm,
    .otf2_free_local_comm = free_local_comm,
    .otf2_barrier = barrier,
    .otf2_bcast = bcast,
    .otf2_gather = gather,
    .otf2_gatherv = gatherv,
    .otf2_scatter = scatter,
    .otf2_scatterv = scatterv,
};

int mw_trace_otf2_parallel(const char *path, const char *out, MPI_Comm comm)
{
    OTF2_CollectiveContext c = {comm, 0, 0};
    if (PMPI_Comm_rank(comm, &c.rank) != MPI_SUCCESS || PMPI_Comm_size(comm, &c.size) != MPI_SUCCESS)
        return 1;
    return mwc_trace_otf2_rank(path, out, c.rank, c.size, &callbacks, NULL, &c);
}

#else

/* Never called: without OTF2, mwc_trace_otf2_built is 0 (trace_otf2.c). */
int mw_trace_otf2_parallel(const char *path, const char *out, MPI_Comm comm)
{
    (void)path, (void)out, (void)comm;
    return 1;
}

#endif
