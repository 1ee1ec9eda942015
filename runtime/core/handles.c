/* Per-thread caches of datatype sizes and group-to-world rank maps. */
#include <stdlib.h>

#include "core/handles.h"
#include "core/state.h"

enum { KIND_COMM = 1, KIND_WIN = 2 };

unsigned mw_handle_gen;

int mw_comm_id(MPI_Comm comm)
{
    return comm == MPI_COMM_NULL ? -1 : (int)PMPI_Comm_c2f(comm);
}

static unsigned current_gen(void)
{
    return __atomic_load_n(&mw_handle_gen, __ATOMIC_RELAXED);
}

static int mpi_usable(void)
{
    return mw_state.started && !mw_state.finished;
}

static unsigned slot_of(uintptr_t key, unsigned slots)
{
    key ^= key >> 17;
    key ^= key >> 7;
    return (unsigned)key & (slots - 1);
}

int64_t mw_type_size(mw_thread *t, MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL || !mpi_usable())
        return 0;
    unsigned gen = current_gen();
    mw_type_slot *slot = &t->types[slot_of((uintptr_t)type, MW_TYPE_CACHE)];
    if (slot->type == type && slot->gen == gen && slot->size >= 0)
        return slot->size;
    MPI_Count size = 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED || size < 0)
        size = 0;
    slot->type = type;
    slot->size = (int64_t)size;
    slot->gen = gen;
    return (int64_t)size;
}

/* Fill slot with the world ranks of group (NULL map when the identity). */
static void map_group(mw_group_slot *slot, MPI_Group group)
{
    MPI_Group world_group = mw_state.world_group;
    int size = 0;
    free(slot->world);
    slot->world = NULL;
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
    int identity = 1;
    for (int i = 0; i < size && identity; i++)
        identity = world[i] == i;
    slot->size = size;
    if (identity) {
        free(ranks);
    } else {
        for (int i = 0; i < size; i++)
            ranks[i] = world[i];
        slot->world = realloc(ranks, (size_t)size * sizeof *ranks);
        if (slot->world == NULL)
            slot->world = ranks;
    }
}

static mw_group_slot *group_slot(mw_thread *t, uintptr_t key, int kind)
{
    unsigned gen = current_gen();
    uintptr_t tagged = key * 4u + (uintptr_t)kind;
    mw_group_slot *slot = &t->groups[slot_of(tagged, MW_GROUP_CACHE)];
    if (slot->key == tagged && slot->gen == gen)
        return slot;
    slot->key = tagged;
    slot->gen = gen;
    return NULL;    /* caller fills it */
}

static mw_group_slot *comm_slot(mw_thread *t, MPI_Comm comm)
{
    mw_group_slot *slot = group_slot(t, (uintptr_t)comm, KIND_COMM);
    if (slot != NULL)
        return slot;
    slot = &t->groups[slot_of((uintptr_t)comm * 4u + KIND_COMM, MW_GROUP_CACHE)];
    MPI_Group group = MPI_GROUP_NULL;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if ((inter ? PMPI_Comm_remote_group(comm, &group) : PMPI_Comm_group(comm, &group)) == MPI_SUCCESS) {
        map_group(slot, group);
        PMPI_Group_free(&group);
    } else {
        slot->size = 0;
    }
    return slot;
}

int mw_comm_world_rank(mw_thread *t, MPI_Comm comm, int rank)
{
    if (rank < 0 || comm == MPI_COMM_NULL || !mpi_usable())
        return -1;
    if (comm == MPI_COMM_WORLD)
        return rank;
    const mw_group_slot *slot = comm_slot(t, comm);
    if (rank >= slot->size)
        return -1;
    return slot->world ? slot->world[rank] : rank;
}

void mw_comm_learn(MPI_Comm comm)
{
    mw_thread *t = mw_self;
    if (t != NULL && comm != MPI_COMM_NULL && mpi_usable())
        comm_slot(t, comm);
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
    uintptr_t tagged = (uintptr_t)comm * 4u + KIND_COMM;
    const mw_group_slot *slot = &t->groups[slot_of(tagged, MW_GROUP_CACHE)];
    uintptr_t key = __atomic_load_n(&slot->key, __ATOMIC_RELAXED);
    unsigned gen = __atomic_load_n(&slot->gen, __ATOMIC_RELAXED);
    int n = __atomic_load_n(&slot->size, __ATOMIC_RELAXED);
    int *map = __atomic_load_n(&slot->world, __ATOMIC_RELAXED);
    if (key != tagged || gen != current_gen() || n <= 0)
        return -1;
    *size = n;
    *world = n == mw_state.world_size;   /* an intracommunicator of every rank */
    if (rank < 0 || rank >= n)
        return -1;
    if (map == NULL)
        return rank;
    return n <= PEEK_MAX_RANKS ? __atomic_load_n(&map[rank], __ATOMIC_RELAXED) : -1;
}

int mw_comm_peer_size(mw_thread *t, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || !mpi_usable())
        return 0;
    if (comm == MPI_COMM_WORLD)
        return mw_state.world_size;
    return comm_slot(t, comm)->size;
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
    mw_group_slot *slot = group_slot(t, (uintptr_t)win, KIND_WIN);
    if (slot == NULL) {
        slot = &t->groups[slot_of((uintptr_t)win * 4u + KIND_WIN, MW_GROUP_CACHE)];
        MPI_Group group = MPI_GROUP_NULL;
        if (PMPI_Win_get_group(win, &group) == MPI_SUCCESS) {
            map_group(slot, group);
            PMPI_Group_free(&group);
        } else {
            slot->size = 0;
        }
    }
    if (rank >= slot->size)
        return -1;
    return slot->world ? slot->world[rank] : rank;
}
