/* Facts about MPI handles, cached per thread: the size of a datatype, and
 * the world rank behind a rank of a communicator or window. Each is worked
 * out once per handle (an O(group) translation at most once), then looked
 * up in a few instructions. Freeing a handle bumps mw_handle_gen, which
 * makes every thread's cached entries stale. */
#ifndef MW_HANDLES_H
#define MW_HANDLES_H

#include <mpi.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/thread_stats.h"

/* Bumped when a datatype, communicator or window is freed: cached facts
 * about handles are then stale (a new handle may reuse the value). */
extern MW_HIDDEN unsigned mw_handle_gen;

/* A communicator as the monitor names it: its Fortran handle, -1 for none. */
MW_HIDDEN int mw_comm_id(MPI_Comm comm);

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
}

#endif
