/* onesided.c: one-sided communication end-to-end test for mpiwatch.
 *
 * Active target (fence) epochs on a window from MPI_Win_create, then passive
 * target (lock/unlock, lock_all/unlock_all) epochs on a window from
 * MPI_Win_allocate over a communicator whose ranks are in the reverse order
 * of MPI_COMM_WORLD's. Every rank makes the same calls; with np == 1 the
 * neighbours are the rank itself. Only integers are accumulated, so results
 * do not depend on the order of the accumulations. Rank 0 prints a
 * deterministic summary; the exit status is non-zero if any check failed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"

#define N 8

/* Window 1 layout (ints): [0,N) Put target, [N,2N) exposed to Get,
 * [2N,3N) Accumulate target (meaningful on rank 0). */
#define W1_PUT 0
#define W1_GET N
#define W1_ACC (2 * N)
#define W1_LEN (3 * N)

/* Window 2 layout (ints): [0,N) Accumulate target on rank 0,
 * [N,2N) Put target from the left neighbour, [2N,3N) Get_accumulate target
 * of the left neighbour, [3N,4N) Rput target of the left neighbour, then a
 * Fetch_and_op counter (meaningful on rank 0) and a Compare_and_swap slot
 * of the left neighbour. */
#define W2_ACC 0
#define W2_PUT N
#define W2_GACC (2 * N)
#define W2_RPUT (3 * N)
#define W2_COUNTER (4 * N)
#define W2_CAS (4 * N + 1)
/* Padded to a multiple of 16 bytes: MPICH 4.0 (ch4) misplaces the other
 * ranks' parts of an MPI_Win_allocate window whose size is not. */
#define W2_LEN (5 * N)

enum phase {
    PH_PUT, PH_GET, PH_ACC, PH_LOCK_ACC, PH_LOCK_PUT, PH_GET_ACC, PH_RPUT, PH_RGET,
    PH_FETCH_OP, PH_CAS, NPHASE
};

static const char *const phase_name[NPHASE] = {
    "fence_put", "fence_get", "fence_accumulate", "lock_accumulate", "lock_put",
    "get_accumulate", "rput", "rget", "fetch_and_op", "compare_and_swap"
};

static int value(int r, int phase, int i)
{
    return (r + 1) * 1013 + phase * 211 + i * 5;
}

static int value_sum(int n, int phase, int i)
{
    int s = 0;
    for (int r = 0; r < n; r++)
        s += value(r, phase, i);
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    struct tally t = {{0}, 0};
    MPI_Comm comm = MPI_COMM_WORLD;
    int origin[N], fetched[N];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int right = (rank + 1) % size;
    const int left = (rank + size - 1) % size;

    /* Active target synchronisation on a window over user memory. */
    int *mem = malloc(sizeof(int) * W1_LEN);
    if (mem == NULL) {
        fprintf(stderr, "onesided: out of memory\n");
        MPI_Abort(comm, 2);
    }
    for (int i = 0; i < N; i++) {
        mem[W1_PUT + i] = -1;
        mem[W1_GET + i] = value(rank, PH_GET, i);
        mem[W1_ACC + i] = 0;
        fetched[i] = -1;
    }
    MPI_Win win1;
    MPI_Win_create(mem, (MPI_Aint)(sizeof(int) * W1_LEN), (int)sizeof(int),
                   MPI_INFO_NULL, comm, &win1);
    MPI_Win_fence(0, win1);
    for (int i = 0; i < N; i++)
        origin[i] = value(rank, PH_PUT, i);
    MPI_Put(origin, N, MPI_INT, right, W1_PUT, N, MPI_INT, win1);
    MPI_Get(fetched, N, MPI_INT, left, W1_GET, N, MPI_INT, win1);
    int acc[N];
    for (int i = 0; i < N; i++)
        acc[i] = value(rank, PH_ACC, i);
    MPI_Accumulate(acc, N, MPI_INT, 0, W1_ACC, N, MPI_INT, MPI_SUM, win1);
    MPI_Win_fence(0, win1);
    for (int i = 0; i < N; i++) {
        see(&t, PH_PUT, i, mem[W1_PUT + i], value(left, PH_PUT, i));
        see(&t, PH_GET, i, fetched[i], value(left, PH_GET, i));
        if (rank == 0)
            see(&t, PH_ACC, i, mem[W1_ACC + i], value_sum(size, PH_ACC, i));
    }
    MPI_Win_free(&win1);
    free(mem);

    /* Passive target synchronisation on a window MPI allocates, over a
     * communicator whose ranks run in the reverse order of MPI_COMM_WORLD's:
     * targets are ranks in rev (me, next, prev), the report's pairs world
     * ranks. */
    MPI_Comm rev;
    int me;
    MPI_Comm_split(comm, 0, size - 1 - rank, &rev);
    MPI_Comm_rank(rev, &me);
    const int next = (me + 1) % size;
    const int prev = (me + size - 1) % size;
    int *base = NULL;
    MPI_Win win2;
    MPI_Win_allocate((MPI_Aint)(sizeof(int) * W2_LEN), (int)sizeof(int),
                     MPI_INFO_NULL, rev, &base, &win2);
    /* Initialise the local part inside an exclusive epoch on oneself. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win2);
    for (int i = 0; i < W2_LEN; i++)
        base[i] = i < N || i == W2_COUNTER ? 0 : -1;
    for (int i = 0; i < N; i++)
        base[W2_GACC + i] = value(me, PH_GET_ACC, i);
    MPI_Win_unlock(me, win2);
    MPI_Barrier(rev);

    for (int i = 0; i < N; i++)
        acc[i] = value(me, PH_LOCK_ACC, i);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win2);
    MPI_Accumulate(acc, N, MPI_INT, 0, W2_ACC, N, MPI_INT, MPI_SUM, win2);
    MPI_Win_unlock(0, win2);

    for (int i = 0; i < N; i++)
        origin[i] = value(me, PH_LOCK_PUT, i);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win2);
    MPI_Put(origin, N, MPI_INT, next, W2_PUT, N, MPI_INT, win2);
    MPI_Win_unlock(next, win2);
    MPI_Barrier(rev);

    /* Read rank 0's sum and what the previous rank put here. */
    int sum0[N], mine[N];
    MPI_Win_lock_all(0, win2);
    MPI_Get(sum0, N, MPI_INT, 0, W2_ACC, N, MPI_INT, win2);
    MPI_Get(mine, N, MPI_INT, me, W2_PUT, N, MPI_INT, win2);
    MPI_Win_unlock_all(win2);
    for (int i = 0; i < N; i++) {
        see(&t, PH_LOCK_ACC, i, sum0[i], value_sum(size, PH_LOCK_ACC, i));
        see(&t, PH_LOCK_PUT, i, mine[i], value(prev, PH_LOCK_PUT, i));
    }

    /* The rest of the one-sided calls, in one passive epoch on all ranks:
     * Get_accumulate and Compare_and_swap to the next rank (the only rank
     * that targets its slots, so what they fetch is known), Fetch_and_op on
     * rank 0's counter (in whatever order), Rput to the next rank and Rget
     * from the previous one (all ranks in rev). */
    {
        int gacc[N], gres[N], rget[N], one = me + 1, counter_old = -1;
        int swap = me, compare = -1, cas_old = 0;
        MPI_Request reqs[2];
        MPI_Status statuses[2];
        for (int i = 0; i < N; i++) {
            gacc[i] = value(me, PH_GET_ACC + 100, i);
            origin[i] = value(me, PH_RPUT, i);
            gres[i] = rget[i] = -1;
        }
        MPI_Win_lock_all(0, win2);
        MPI_Get_accumulate(gacc, N, MPI_INT, gres, N, MPI_INT, next, W2_GACC, N, MPI_INT,
                           MPI_SUM, win2);
        MPI_Fetch_and_op(&one, &counter_old, MPI_INT, 0, W2_COUNTER, MPI_SUM, win2);
        MPI_Compare_and_swap(&swap, &compare, &cas_old, MPI_INT, next, W2_CAS, win2);
        MPI_Rput(origin, N, MPI_INT, next, W2_RPUT, N, MPI_INT, win2, &reqs[0]);
        /* Nothing writes [W2_ACC, W2_ACC+N) any more: rank 0's holds the
         * lock_accumulate sum, the other ranks' zeros. */
        MPI_Rget(rget, N, MPI_INT, prev, W2_ACC, N, MPI_INT, win2, &reqs[1]);
        MPI_Waitall(2, reqs, statuses);
        MPI_Win_unlock_all(win2);
        for (int i = 0; i < N; i++) {
            see(&t, PH_GET_ACC, i, gres[i], value(next, PH_GET_ACC, i));
            see(&t, PH_RGET, i, rget[i], prev == 0 ? value_sum(size, PH_LOCK_ACC, i) : 0);
        }
        /* Each rank adds me+1: the old value is a partial sum below the total. */
        if (counter_old < 0 || counter_old >= size * (size + 1) / 2)
            t.errors++;
        see(&t, PH_CAS, 0, cas_old, -1);
        MPI_Barrier(rev);

        /* Read what the others did to this rank's part of the window. */
        MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win2);
        for (int i = 0; i < N; i++) {
            see(&t, PH_GET_ACC, N + i, base[W2_GACC + i],
                value(me, PH_GET_ACC, i) + value(prev, PH_GET_ACC + 100, i));
            see(&t, PH_RPUT, i, base[W2_RPUT + i], value(prev, PH_RPUT, i));
        }
        if (me == 0)
            see(&t, PH_FETCH_OP, 0, base[W2_COUNTER], size * (size + 1) / 2);
        see(&t, PH_CAS, 1, base[W2_CAS], prev);
        MPI_Win_unlock(me, win2);
    }
    MPI_Win_free(&win2);
    MPI_Comm_free(&rev);

    if (rank == 0)
        printf("onesided np=%d\n", size);
    int failed = tally_report(&t, NPHASE, phase_name, rank, comm);
    MPI_Finalize();
    return failed;
}
