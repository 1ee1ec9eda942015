/* Facts about MPI handles, cached per thread: the size of a datatype, and
 * of a communicator or window its size, this process's rank, whether it is
 * an intercommunicator and the world rank behind each of its ranks. Each is
 * worked out once per handle (an O(group) translation at most once), out of
 * line, then looked up inline from direct-mapped caches in a few
 * instructions (mw_type_size_cached, mw_comm_facts). Freeing a handle bumps
 * mw_handle_gen; a thread that finds it changed empties its caches before
 * its next look-up (mw_handles_check), so that a handle value reused by a
 * new datatype or communicator is never taken for the old one. */
#ifndef MW_HANDLES_H
#define MW_HANDLES_H

#include <mpi.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/thread_stats.h"

/* Bumped when a datatype, communicator or window is freed: cached facts
 * about handles are then stale (a new handle may reuse the value). */
extern MW_HIDDEN unsigned mw_handle_gen;

/* The world rank map of every group identical to the world's first ranks,
 * shared (NULL until a thread has needed one). */
extern MW_HIDDEN int *mw_identity_map;

/* The home slot of a handle in a cache of 2^bits slots: a 32-bit
 * multiplicative hash of its low bits (two instructions, the constant
 * inside the multiply), which spreads both Open MPI's pointers and MPICH's
 * integer handles. */
static MW_ALWAYS_INLINE unsigned mw_handle_slot(uintptr_t key, unsigned bits)
{
    return ((uint32_t)key * 0x9E3779B1u) >> (32 - bits);
}

/* A handle was freed since t's caches were filled: empty them. */
MW_HIDDEN MW_NOINLINE void mw_handles_refresh(mw_thread *t);

/* Before looking up cached facts: once per call. */
static MW_ALWAYS_INLINE void mw_handles_check(mw_thread *t)
{
    if (MW_UNLIKELY(t->handles_gen != __atomic_load_n(&mw_handle_gen, __ATOMIC_RELAXED)))
        mw_handles_refresh(t);
}

/* Out of line: a datatype not in t's cache (filled now). */
MW_HIDDEN MW_NOINLINE int64_t mw_type_size_miss(mw_thread *t, MPI_Datatype type);

/* Bytes in one element of type, from t's cache (after mw_handles_check). */
static MW_ALWAYS_INLINE int64_t mw_type_size_cached(mw_thread *t, MPI_Datatype type)
{
    unsigned i = mw_handle_slot((uintptr_t)type, MW_TYPE_BITS);
    if (MW_LIKELY(t->type_key[i] == type))
        return t->type_size[i];
    return mw_type_size_miss(t, type);
}

/* A communicator's key in the group cache (windows are tagged 2). */
static MW_ALWAYS_INLINE uintptr_t mw_comm_key(MPI_Comm comm)
{
    return (uintptr_t)comm * 4u + 1u;
}

/* Out of line: a communicator not in t's cache. Returns its slot, filled
 * now, or a slot of size 0 when nothing is known (MPI_COMM_NULL, MPI not
 * running, an error). */
MW_HIDDEN MW_NOINLINE const mw_group_slot *mw_comm_facts_miss(mw_thread *t, MPI_Comm comm);

/* What t knows of comm: size, rank, inter, world map (after mw_handles_check). */
static MW_ALWAYS_INLINE const mw_group_slot *mw_comm_facts(mw_thread *t, MPI_Comm comm)
{
    uintptr_t key = mw_comm_key(comm);
    const mw_group_slot *g = &t->groups[mw_handle_slot(key, MW_GROUP_BITS)];
    if (MW_LIKELY(g->key == key))
        return g;
    return mw_comm_facts_miss(t, comm);
}

/* World rank of rank of a communicator (its remote group for an
 * intercommunicator): -1 for MPI_PROC_NULL, MPI_ANY_SOURCE or out of range;
 * one unsigned compare covers them all. */
static MW_ALWAYS_INLINE int mw_facts_world_rank(const mw_group_slot *g, int rank)
{
    return (unsigned)rank < (unsigned)g->size ? g->world[rank] : -1;
}

/* A communicator as the monitor names it: its integer handle (mw_mpi_interop.h:
 * MPI_Comm_c2f, or MPI_Comm_toint in the MPI 5.0 ABI), -1 for none. */
MW_HIDDEN int mw_comm_id(MPI_Comm comm);

/* A thread's last communicator and its id, for the per-call records of the
 * monitor and the trace: the common case calls nothing. Valid while no
 * handle has been freed since (mw_handle_gen), as a freed communicator's
 * handle may come back with another id. */
typedef struct mw_comm_seen {
    MPI_Comm comm;
    int32_t id;
    unsigned gen;
} mw_comm_seen;

/* Does m hold comm's id? */
static MW_ALWAYS_INLINE int mw_comm_seen_is(const mw_comm_seen *m, MPI_Comm comm)
{
    return comm == m->comm && m->gen == __atomic_load_n(&mw_handle_gen, __ATOMIC_RELAXED);
}

/* m knows nothing (its comm is MPI_COMM_NULL, whose id is -1). */
MW_HIDDEN void mw_comm_seen_reset(mw_comm_seen *m);

/* Remember comm's id in m, out of line; returns it. */
MW_HIDDEN MW_NOINLINE int mw_comm_seen_learn(mw_comm_seen *m, MPI_Comm comm);

/* Bytes in one element of type; 0 for MPI_DATATYPE_NULL, or before MPI_Init. */
MW_HIDDEN int64_t mw_type_size(mw_thread *t, MPI_Datatype type);

/* World rank of rank in the group comm's peers belong to (the remote group
 * of an intercommunicator); -1 for MPI_PROC_NULL, MPI_ANY_SOURCE, or when
 * unknown. */
MW_HIDDEN int mw_comm_world_rank(mw_thread *t, MPI_Comm comm, int rank);

/* Number of ranks a collective on comm exchanges with: its size, or the
 * remote group's size for an intercommunicator. 0 when unknown. */
MW_HIDDEN int mw_comm_peer_size(mw_thread *t, MPI_Comm comm);

/* This process's rank in comm (-1 when unknown). */
MW_HIDDEN int mw_comm_rank(MPI_Comm comm);

/* nonzero for an intercommunicator */
MW_HIDDEN int mw_comm_is_inter(MPI_Comm comm);

/* World rank of rank in the group of win; -1 when unknown. */
MW_HIDDEN int mw_win_world_rank(mw_thread *t, MPI_Win win, int rank);

/* A call has just created comm: translate its ranks now, into the calling
 * thread's cache (nothing for MPI_COMM_NULL). */
MW_HIDDEN MW_NOINLINE void mw_comm_learn(MPI_Comm comm);

/* For the monitor's sender thread, about a call another thread t is inside:
 * what t's cache knows of comm, without changing it or calling MPI. Sets
 * *size (0: not known) and *world (comm holds as many ranks as
 * MPI_COMM_WORLD: all of them); returns the world rank of rank, -1 when not known. The caller
 * checks afterwards that t is still inside the same call, and drops the
 * answer otherwise. */
MW_HIDDEN int mw_comm_peek(const mw_thread *t, MPI_Comm comm, int rank, int *size, int *world);

/* A handle is about to be freed: cached facts may go stale. */
static inline void mw_handles_forget(void)
{
    __atomic_add_fetch(&mw_handle_gen, 1, __ATOMIC_RELAXED);
    mw_threads_forget_memos();
}

#endif
