/* Per-thread caches of datatype sizes and of communicators' and windows'
 * facts: the out-of-line side (misses, refreshes) of core/handles.h. */
#include <stdlib.h>

#include "core/handles.h"
#include "core/state.h"
#include "mw_mpi_interop.h"

enum { KIND_COMM = 1, KIND_WIN = 2 };

unsigned mw_handle_gen;
int *mw_identity_map;

/* What a look-up that knows nothing returns: size 0, so no rank maps. */
static const mw_group_slot unknown = {0, 0, 0, NULL, -1, 0};

int mw_comm_id(MPI_Comm comm)
{
    return comm == MPI_COMM_NULL ? -1 : (int)mw_comm_to_int(comm);
}

static unsigned current_gen(void)
{
    return __atomic_load_n(&mw_handle_gen, __ATOMIC_RELAXED);
}

void mw_comm_seen_reset(mw_comm_seen *m)
{
    m->comm = MPI_COMM_NULL;
    m->id = -1;
    m->gen = 0;
}

int mw_comm_seen_learn(mw_comm_seen *m, MPI_Comm comm)
{
    m->comm = comm;
    m->id = mw_comm_id(comm);
    m->gen = current_gen();
    return m->id;
}

static int mpi_usable(void)
{
    return mw_state.started && !mw_state.finished;
}

/* A rank map: free it unless it is the shared identity. */
static void drop_map(mw_group_slot *slot)
{
    const int *map = __atomic_load_n(&slot->world, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->world, (const int *)NULL, __ATOMIC_RELAXED);
    if (map != NULL && map != mw_identity_map)
        free((void *)map);
}

/* A freed handle's value may come back as a new datatype or communicator:
 * forget everything (rare; O(cache size)). The generation is read first, so
 * that a handle freed meanwhile empties the caches again at the next call. */
void mw_handles_refresh(mw_thread *t)
{
    t->handles_gen = current_gen();
    /* Rank maps are freed below: the call sites' memos must not use them. */
    mw_memos_forget(t);
    for (int i = 0; i < MW_TYPE_CACHE; i++) {
        t->type_key[i] = MPI_DATATYPE_NULL;
        t->type_size[i] = 0;
    }
    for (int i = 0; i < MW_GROUP_CACHE; i++) {
        mw_group_slot *slot = &t->groups[i];
        /* The monitor's sender may peek (mw_comm_peek): the key goes first. */
        __atomic_store_n(&slot->key, (uintptr_t)0, __ATOMIC_RELAXED);
        drop_map(slot);
        __atomic_store_n(&slot->size, 0, __ATOMIC_RELAXED);
    }
}

int64_t mw_type_size_miss(mw_thread *t, MPI_Datatype type)
{
    /* Not cached: MPI_DATATYPE_NULL is the empty slots' value (size 0). */
    if (type == MPI_DATATYPE_NULL || !mpi_usable())
        return 0;
    MPI_Count size = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED || size < 0)
        size = 0;
    unsigned i = mw_handle_slot((uintptr_t)type, MW_TYPE_BITS);
    t->type_key[i] = type;
    t->type_size[i] = (int64_t)size;
    return (int64_t)size;
}

int64_t mw_type_size(mw_thread *t, MPI_Datatype type)
{
    mw_handles_check(t);
    return mw_type_size_cached(t, type);
}

/* The shared map of the identity, world_size ranks; NULL without memory.
 * Threads may race to make it: one wins, the others free theirs. */
static int *identity_map(void)
{
    int *map = __atomic_load_n(&mw_identity_map, __ATOMIC_ACQUIRE);
    int n = mw_state.world_size;
    if (map != NULL || n <= 0)
        return map;
    int *mine = malloc((size_t)n * sizeof *mine);
    if (mine == NULL)
        return NULL;
    for (int i = 0; i < n; i++)
        mine[i] = i;
    if (__atomic_compare_exchange_n(&mw_identity_map, &map, mine, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return mine;
    free(mine);
    return map;
}

/* Fill slot's size and world ranks from group (size 0 when that fails). */
static void map_group(mw_group_slot *slot, MPI_Group group)
{
    MPI_Group world_group = mw_state.world_group;
    int size = 0;
    drop_map(slot);
    slot->size = 0;
    if (world_group == MPI_GROUP_NULL)
        return;
    if (PMPI_Group_size(group, &size) != MPI_SUCCESS || size <= 0)
        return;
    int *ranks = malloc(2 * (size_t)size * sizeof *ranks);
    if (ranks == NULL)
        return;
    int *world = ranks + size;
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    if (PMPI_Group_translate_ranks(group, size, ranks, world_group, world) != MPI_SUCCESS) {
        free(ranks);
        return;
    }
    int identity = size <= mw_state.world_size;
    for (int i = 0; i < size && identity; i++)
        identity = world[i] == i;
    const int *map = identity ? identity_map() : NULL;
    if (map != NULL) {
        free(ranks);
    } else {
        for (int i = 0; i < size; i++)
            ranks[i] = world[i];
        int *small = realloc(ranks, (size_t)size * sizeof *ranks);
        map = small != NULL ? small : ranks;
    }
    __atomic_store_n(&slot->world, map, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->size, size, __ATOMIC_RELAXED);
}

/* Claim the slot of a handle for filling: emptied, keyed, current. */
static mw_group_slot *claim(mw_thread *t, uintptr_t key)
{
    mw_group_slot *slot = &t->groups[mw_handle_slot(key, MW_GROUP_BITS)];
    __atomic_store_n(&slot->key, (uintptr_t)0, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->size, 0, __ATOMIC_RELAXED);
    if (slot->world != NULL)   /* a memo may hold the map dropped below */
        mw_memos_forget(t);
    drop_map(slot);
    slot->rank = -1;
    slot->inter = 0;
    __atomic_store_n(&slot->gen, t->handles_gen, __ATOMIC_RELAXED);
    return slot;
}

const mw_group_slot *mw_comm_facts_miss(mw_thread *t, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || !mpi_usable())
        return &unknown;
    mw_group_slot *slot = claim(t, mw_comm_key(comm));
    int inter = 0, rank = -1;
    MPI_Group group = MPI_GROUP_NULL;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        inter = 0;
    if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        rank = -1;
    if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) ==
        MPI_SUCCESS) {
        map_group(slot, group);
        PMPI_Group_free(&group);
    }
    slot->rank = rank;
    slot->inter = inter;
    /* Keyed last: the sender's mw_comm_peek then never sees a half-filled slot's key. */
    __atomic_store_n(&slot->key, mw_comm_key(comm), __ATOMIC_RELEASE);
    return slot;
}

int mw_comm_world_rank(mw_thread *t, MPI_Comm comm, int rank)
{
    mw_handles_check(t);
    return mw_facts_world_rank(mw_comm_facts(t, comm), rank);
}

void mw_comm_learn(MPI_Comm comm)
{
    mw_thread *t = mw_self;
    if (t != NULL && comm != MPI_COMM_NULL && mpi_usable()) {
        mw_handles_check(t);
        mw_comm_facts(t, comm);
    }
}

/* Maps up to this many ranks are read by mw_comm_peek: below glibc's mmap
 * threshold, so a map its owner freed meanwhile is still mapped memory. */
#define PEEK_MAX_RANKS 8192

int mw_comm_peek(const mw_thread *t, MPI_Comm comm, int rank, int *size, int *world)
{
    *size = 0;
    *world = 0;
    if (comm == MPI_COMM_NULL || !mpi_usable())
        return -1;
    if (comm == MPI_COMM_WORLD) {
        *size = mw_state.world_size;
        *world = 1;
        return rank >= 0 && rank < *size ? rank : -1;
    }
    uintptr_t tagged = mw_comm_key(comm);
    const mw_group_slot *slot = &t->groups[mw_handle_slot(tagged, MW_GROUP_BITS)];
    uintptr_t key = __atomic_load_n(&slot->key, __ATOMIC_ACQUIRE);
    unsigned gen = __atomic_load_n(&slot->gen, __ATOMIC_RELAXED);
    int n = __atomic_load_n(&slot->size, __ATOMIC_RELAXED);
    const int *map = __atomic_load_n(&slot->world, __ATOMIC_RELAXED);
    if (key != tagged || gen != current_gen() || n <= 0 || map == NULL)
        return -1;
    *size = n;
    *world = n == mw_state.world_size;   /* an intracommunicator of every rank */
    if (rank < 0 || rank >= n)
        return -1;
    if (map == mw_identity_map)
        return rank;
    return n <= PEEK_MAX_RANKS ? __atomic_load_n(&map[rank], __ATOMIC_RELAXED) : -1;
}

int mw_comm_peer_size(mw_thread *t, MPI_Comm comm)
{
    mw_handles_check(t);
    return mw_comm_facts(t, comm)->size;
}

int mw_comm_rank(MPI_Comm comm)
{
    int rank = -1;
    if (comm == MPI_COMM_NULL || !mpi_usable() || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS)
        return -1;
    return rank;
}

int mw_comm_is_inter(MPI_Comm comm)
{
    int inter = 0;
    if (comm != MPI_COMM_NULL && mpi_usable())
        PMPI_Comm_test_inter(comm, &inter);
    return inter;
}

int mw_win_world_rank(mw_thread *t, MPI_Win win, int rank)
{
    if (rank < 0 || win == MPI_WIN_NULL || !mpi_usable())
        return -1;
    mw_handles_check(t);
    uintptr_t key = (uintptr_t)win * 4u + KIND_WIN;
    mw_group_slot *slot = &t->groups[mw_handle_slot(key, MW_GROUP_BITS)];
    if (slot->key != key) {
        slot = claim(t, key);
        MPI_Group group = MPI_GROUP_NULL;
        if (PMPI_Win_get_group(win, &group) == MPI_SUCCESS) {
            map_group(slot, group);
            PMPI_Group_free(&group);
        }
        __atomic_store_n(&slot->key, key, __ATOMIC_RELEASE);
    }
    return mw_facts_world_rank(slot, rank);
}
