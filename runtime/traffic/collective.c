/* Collective traffic: what each rank puts in ("sent") and gets out
 * ("recv"), from the arguments the standard says are significant at that
 * rank (see traffic/traffic.h). On an intercommunicator, n is the remote group's
 * size and the root group's ranks pass MPI_ROOT or MPI_PROC_NULL. */
#include "core/handles.h"
#include "traffic/traffic.h"

/* Sum of n counts, int[] or (large) MPI_Count[]. */
static int64_t sum_counts(const void *counts, int large, int n)
{
    int64_t sum = 0;
    if (counts == NULL)
        return 0;
    for (int i = 0; i < n; i++)
        sum += large ? (int64_t)((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
    return sum;
}

static int64_t count_at(const void *counts, int large, int i)
{
    if (counts == NULL || i < 0)
        return 0;
    return large ? (int64_t)((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
}

/* The set-up every collective note shares: the record cleared, the
 * thread's block, the number of ranks exchanged with, and our role. */
typedef struct coll {
    mw_thread *t;
    int n;          /* peers' group size */
    int rank;       /* this rank in comm */
    int inter;      /* an intercommunicator */
    int is_root;    /* this rank is the root (intra) or passed MPI_ROOT (inter) */
    int is_idle;    /* inter: a root-group rank that passed MPI_PROC_NULL */
    int in_place;
} coll;

/* The communicator's facts come from the thread's cache (core/handles.h):
 * no MPI call once it is known. */
static int begin(mw_call *c, coll *k, MPI_Comm comm, int root, const void *buf)
{
    mw_note_nothing(c);
    c->comm = comm;
    k->t = mw_thread_self();
    if (k->t == NULL)
        return 0;
    mw_handles_check(k->t);
    const mw_group_slot *g = mw_comm_facts(k->t, comm);
    k->n = g->size;
    k->rank = g->rank;
    k->inter = g->inter;
    k->in_place = buf == MPI_IN_PLACE;
    if (k->inter) {
        k->is_root = root == MPI_ROOT;
        k->is_idle = root == MPI_PROC_NULL;
    } else {
        k->is_root = root >= 0 && k->rank == root;
        k->is_idle = 0;
    }
    return k->n > 0;
}

static int64_t size_of(const coll *k, MPI_Datatype type)
{
    return mw_type_size_cached(k->t, type);
}

void mw_note_bcast(mw_call *c, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, root, NULL) || k.is_idle)
        return;
    int64_t bytes = (int64_t)count * size_of(&k, type);
    if (k.is_root)
        c->sent = bytes;
    else
        c->recv = bytes;
}

void mw_note_gather(mw_call *c, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, root, sendbuf) || k.is_idle)
        return;
    int64_t block = (int64_t)recvcount * size_of(&k, recvtype);
    if (k.is_root) {
        c->recv = k.n * block;
        if (!k.inter)
            c->sent = k.in_place ? block : (int64_t)sendcount * size_of(&k, sendtype);
    } else {
        c->sent = (int64_t)sendcount * size_of(&k, sendtype);
    }
}

void mw_note_gatherv(mw_call *c, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     const void *recvcounts, int large, MPI_Datatype recvtype, int root,
                     MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, root, sendbuf) || k.is_idle)
        return;
    if (k.is_root) {
        int64_t size = size_of(&k, recvtype);
        c->recv = sum_counts(recvcounts, large, k.n) * size;
        if (!k.inter)
            c->sent = k.in_place ? count_at(recvcounts, large, k.rank) * size
                                 : (int64_t)sendcount * size_of(&k, sendtype);
    } else {
        c->sent = (int64_t)sendcount * size_of(&k, sendtype);
    }
}

void mw_note_scatter(mw_call *c, MPI_Count sendcount, MPI_Datatype sendtype, const void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, root, recvbuf) || k.is_idle)
        return;
    int64_t block = (int64_t)sendcount * size_of(&k, sendtype);
    if (k.is_root) {
        c->sent = k.n * block;
        if (!k.inter)
            c->recv = k.in_place ? block : (int64_t)recvcount * size_of(&k, recvtype);
    } else {
        c->recv = (int64_t)recvcount * size_of(&k, recvtype);
    }
}

void mw_note_scatterv(mw_call *c, const void *sendcounts, int large, MPI_Datatype sendtype,
                      const void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, root, recvbuf) || k.is_idle)
        return;
    if (k.is_root) {
        int64_t size = size_of(&k, sendtype);
        c->sent = sum_counts(sendcounts, large, k.n) * size;
        if (!k.inter)
            c->recv = k.in_place ? count_at(sendcounts, large, k.rank) * size
                                 : (int64_t)recvcount * size_of(&k, recvtype);
    } else {
        c->recv = (int64_t)recvcount * size_of(&k, recvtype);
    }
}

void mw_note_allgather(mw_call *c, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, -1, sendbuf))
        return;
    int64_t block = (int64_t)recvcount * size_of(&k, recvtype);
    c->recv = k.n * block;
    c->sent = k.in_place ? block : (int64_t)sendcount * size_of(&k, sendtype);
}

void mw_note_allgatherv(mw_call *c, const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, const void *recvcounts, int large,
                        MPI_Datatype recvtype, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, -1, sendbuf))
        return;
    int64_t size = size_of(&k, recvtype);
    c->recv = sum_counts(recvcounts, large, k.n) * size;
    c->sent = k.in_place ? count_at(recvcounts, large, k.rank) * size
                         : (int64_t)sendcount * size_of(&k, sendtype);
}

void mw_note_alltoall(mw_call *c, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, -1, sendbuf))
        return;
    c->recv = k.n * (int64_t)recvcount * size_of(&k, recvtype);
    c->sent = k.in_place ? c->recv : k.n * (int64_t)sendcount * size_of(&k, sendtype);
}

void mw_note_alltoallv(mw_call *c, const void *sendbuf, const void *sendcounts,
                       MPI_Datatype sendtype, const void *recvcounts, MPI_Datatype recvtype,
                       int large, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, -1, sendbuf))
        return;
    c->recv = sum_counts(recvcounts, large, k.n) * size_of(&k, recvtype);
    c->sent = k.in_place ? c->recv : sum_counts(sendcounts, large, k.n) * size_of(&k, sendtype);
}

void mw_note_alltoallw(mw_call *c, const void *sendbuf, const void *sendcounts,
                       const MPI_Datatype *sendtypes, const void *recvcounts,
                       const MPI_Datatype *recvtypes, int large, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, -1, sendbuf))
        return;
    for (int i = 0; i < k.n; i++) {
        c->recv += count_at(recvcounts, large, i) * size_of(&k, recvtypes[i]);
        if (!k.in_place)
            c->sent += count_at(sendcounts, large, i) * size_of(&k, sendtypes[i]);
    }
    if (k.in_place)
        c->sent = c->recv;
}

void mw_note_reduce(mw_call *c, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, root, NULL) || k.is_idle)
        return;
    int64_t bytes = (int64_t)count * size_of(&k, type);
    if (k.is_root)
        c->recv = bytes;
    if (!k.is_root || !k.inter)
        c->sent = bytes;
}

void mw_note_reduce_scatter_block(mw_call *c, MPI_Count recvcount, MPI_Datatype type,
                                  MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, -1, NULL))
        return;
    int64_t block = (int64_t)recvcount * size_of(&k, type);
    c->recv = block;
    c->sent = k.n * block;
}

void mw_note_reduce_scatter(mw_call *c, const void *recvcounts, int large, MPI_Datatype type,
                            MPI_Comm comm)
{
    coll k;
    if (!begin(c, &k, comm, -1, NULL))
        return;
    int64_t size = size_of(&k, type);
    c->sent = sum_counts(recvcounts, large, k.n) * size;
    c->recv = count_at(recvcounts, large, k.rank) * size;
}
