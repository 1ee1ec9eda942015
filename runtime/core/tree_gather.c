/* mw_gather and mw_gatherv (core/yielding_collectives.h) as a binomial tree
 * of point-to-point messages on the private communicator. Open MPI's
 * MPI_Igather and MPI_Igatherv (libnbc) are linear: rank 0 talks to every
 * rank, and each new peer costs it tens of kB of MPI's buffers (measured:
 * rank 0's resident memory rose by 3.6 MB in one 900-byte-per-rank Igather
 * at 128 ranks, 0.3 MB in this tree; docs/scaling.md). Here rank 0 hears
 * from log2 P ranks, as in the call sites' merge (report/callsites.c). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/yielding_collectives.h"

/* What precedes a subtree's bytes on the way up: whether every rank below
 * had them (a rank without memory, or whose child's message failed, sends
 * only this, so that the tree still ends on every rank). */
typedef struct subtree_head {
    int64_t failed;
} subtree_head;

/* Gather bytes (any number per rank) from every rank of comm, in rank
 * order: in round k a rank whose bit k is set sends what it holds
 * (its own bytes, then those of the ranks above it that it received) to the
 * rank 2^k below and is done; the others receive from the rank 2^k above.
 * On rank 0, *all (malloc'ed: free it) holds every rank's bytes, one after
 * the other, *total their size; NULL when some rank failed. The result is
 * the first MPI error met on this rank, else MPI_ERR_NO_MEM on rank 0 when
 * the bytes could not be held. */
static int tree_gather(const void *in, size_t bytes, MPI_Comm comm, char **all, size_t *total)
{
    int rank = 0, size = 1, rc = MPI_SUCCESS;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    size_t held = sizeof(subtree_head) + bytes;
    char *mine = malloc(held);
    if (mine != NULL) {
        ((subtree_head *)mine)->failed = 0;
        memcpy(mine + sizeof(subtree_head), in, bytes);
    }
    for (int mask = 1; mask < size; mask <<= 1) {
        if (rank & mask) {
            subtree_head failed = {1};
            if (held > INT_MAX) {   /* more than one message can carry */
                free(mine);
                mine = NULL;
            }
            int sent = mine != NULL ? mw_send(mine, (int)held, rank - mask, MW_TAG_GATHER, comm)
                                    : mw_send(&failed, (int)sizeof failed, rank - mask,
                                              MW_TAG_GATHER, comm);
            if (rc == MPI_SUCCESS)
                rc = sent;
            break;
        }
        if (rank + mask >= size)
            continue;
        void *got = NULL;
        int got_bytes = 0;
        int received = mw_recv_any(&got, &got_bytes, rank + mask, MW_TAG_GATHER, comm);
        if (received != MPI_SUCCESS && received != MPI_ERR_NO_MEM && rc == MPI_SUCCESS)
            rc = received;
        int usable = received == MPI_SUCCESS && (size_t)got_bytes >= sizeof(subtree_head) &&
                     !((subtree_head *)got)->failed;
        size_t more = usable ? (size_t)got_bytes - sizeof(subtree_head) : 0;
        char *grown = usable && mine != NULL ? realloc(mine, held + more) : NULL;
        if (grown != NULL) {
            memcpy(grown + held, (char *)got + sizeof(subtree_head), more);
            mine = grown;
            held += more;
        } else {   /* the rest of the way up carries only the failure */
            free(mine);
            mine = NULL;
        }
        free(got);
    }
    *all = NULL;
    *total = 0;
    if (rank == 0 && mine != NULL) {
        *total = held - sizeof(subtree_head);
        memmove(mine, mine + sizeof(subtree_head), *total);
        *all = mine;
    } else {
        free(mine);
    }
    if (rank == 0 && rc == MPI_SUCCESS && *all == NULL)
        rc = MPI_ERR_NO_MEM;
    return rc;
}

static size_t type_bytes(MPI_Datatype type, int count)
{
    int size = 0;
    PMPI_Type_size(type, &size);
    return (size_t)size * (size_t)(count > 0 ? count : 0);
}

int mw_gather(const void *in, int count, MPI_Datatype type, void *out, MPI_Comm comm)
{
    char *all;
    size_t total, bytes = type_bytes(type, count);
    int size = 1, rc = tree_gather(in, bytes, comm, &all, &total);
    PMPI_Comm_size(comm, &size);
    if (all != NULL) {
        if (out == NULL)
            rc = MPI_ERR_NO_MEM;   /* rank 0 had no room for the result */
        else if (total != bytes * (size_t)size)
            rc = MPI_ERR_TRUNCATE;   /* ranks that disagree on count */
        else
            memcpy(out, all, total);
    }
    free(all);
    return rc;
}

int mw_gatherv(const void *in, int count, MPI_Datatype type, void *out, const int *counts,
               const int *displs, MPI_Comm comm)
{
    char *all;
    size_t total, unit = type_bytes(type, 1);
    int size = 1, rc = tree_gather(in, type_bytes(type, count), comm, &all, &total);
    PMPI_Comm_size(comm, &size);
    if (all != NULL) {
        size_t expected = 0;
        for (int r = 0; counts != NULL && r < size; r++)
            expected += type_bytes(type, counts[r]);
        if (out == NULL || counts == NULL || displs == NULL)
            rc = MPI_ERR_NO_MEM;
        else if (total != expected)
            rc = MPI_ERR_TRUNCATE;   /* a rank sent other than its count */
        else
            for (size_t r = 0, at = 0; r < (size_t)size; at += type_bytes(type, counts[r]), r++)
                memcpy((char *)out + (size_t)displs[r] * unit, all + at,
                       type_bytes(type, counts[r]));
    }
    free(all);
    return rc;
}
