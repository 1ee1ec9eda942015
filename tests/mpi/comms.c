/* comms.c: communicator and group end-to-end test for mpiwatch.
 *
 * Comm_dup, Comm_split, Comm_group/Group_incl/Comm_create (only the first
 * ceil(np/2) ranks are members of the created communicator, so some counts
 * depend on that), Comm_compare, Comm_free, and a 2-D Cartesian topology
 * (periodic in dimension 0 only, so some shifts reach MPI_PROC_NULL). Rank 0
 * prints a deterministic summary; the exit status is non-zero if any check
 * failed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static const char *compare_name(int result)
{
    switch (result) {
    case MPI_IDENT: return "ident";
    case MPI_CONGRUENT: return "congruent";
    case MPI_SIMILAR: return "similar";
    case MPI_UNEQUAL: return "unequal";
    default: return "?";
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    long long errors = 0;
    MPI_Comm world = MPI_COMM_WORLD;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);

    /* Duplicate, and compare. */
    MPI_Comm dup;
    int cmp_self, cmp_dup, cmp_split;
    MPI_Comm_dup(world, &dup);
    MPI_Comm_compare(world, world, &cmp_self);
    MPI_Comm_compare(world, dup, &cmp_dup);
    if (cmp_self != MPI_IDENT || cmp_dup != MPI_CONGRUENT)
        errors++;

    /* Split by parity, with keys reversing the order. */
    MPI_Comm half;
    int half_rank, half_size, half_sum = 0;
    MPI_Comm_split(world, rank % 2, -rank, &half);
    MPI_Comm_rank(half, &half_rank);
    MPI_Comm_size(half, &half_size);
    MPI_Comm_compare(world, half, &cmp_split);
    MPI_Allreduce(&rank, &half_sum, 1, MPI_INT, MPI_SUM, half);
    {
        int members = 0, sum = 0, higher = 0;
        for (int r = rank % 2; r < size; r += 2) {
            members++;
            sum += r;
            if (r > rank)
                higher++;
        }
        if (half_size != members || half_sum != sum || half_rank != higher)
            errors++;
    }

    /* A communicator over the first ceil(np/2) ranks. */
    MPI_Group world_group, first_group;
    const int k = (size + 1) / 2;
    int *ranks = malloc(sizeof(int) * (size_t)k);
    if (ranks == NULL) {
        fprintf(stderr, "comms: out of memory\n");
        MPI_Abort(world, 2);
    }
    for (int i = 0; i < k; i++)
        ranks[i] = i;
    MPI_Comm_group(world, &world_group);
    MPI_Group_incl(world_group, k, ranks, &first_group);
    free(ranks);
    int group_size, group_rank;
    MPI_Group_size(first_group, &group_size);
    MPI_Group_rank(first_group, &group_rank);
    if (group_size != k || group_rank != (rank < k ? rank : MPI_UNDEFINED))
        errors++;
    MPI_Comm first;
    MPI_Comm_create(world, first_group, &first);
    int first_sum = -1;
    if (first != MPI_COMM_NULL) {
        int first_size;
        MPI_Comm_size(first, &first_size);
        MPI_Allreduce(&rank, &first_sum, 1, MPI_INT, MPI_SUM, first);
        if (first_size != k || first_sum != k * (k - 1) / 2)
            errors++;
        MPI_Comm_free(&first);
    } else if (rank < k) {
        errors++;
    }
    MPI_Group_free(&first_group);
    MPI_Group_free(&world_group);

    /* 2-D Cartesian grid, periodic in dimension 0 only. */
    int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2];
    MPI_Comm cart;
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(world, 2, dims, periods, 0, &cart);
    int cart_rank;
    MPI_Comm_rank(cart, &cart_rank);
    MPI_Cart_coords(cart, cart_rank, 2, coords);
    if (cart_rank != rank || coords[0] != rank / dims[1] || coords[1] != rank % dims[1])
        errors++;
    unsigned long long shift_sum = 0;
    for (int d = 0; d < 2; d++) {
        int src, dst;
        MPI_Cart_shift(cart, d, 1, &src, &dst);
        /* Send my rank towards dst, receive from src (or nothing). */
        int got = -7;
        MPI_Sendrecv(&rank, 1, MPI_INT, dst, d, &got, 1, MPI_INT, src, d, cart,
                     MPI_STATUS_IGNORE);
        if (got != (src == MPI_PROC_NULL ? -7 : src))
            errors++;
        shift_sum += (unsigned long long)(got + 8) * (unsigned long long)(d + 1);
    }
    MPI_Comm_free(&cart);
    MPI_Comm_free(&half);
    MPI_Comm_free(&dup);

    unsigned long long local[2] = {shift_sum, (unsigned long long)errors}, total[2];
    MPI_Reduce(local, total, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, world);
    int failed = 0;
    if (rank == 0) {
        printf("comms np=%d\n", size);
        printf("compare world/world %s\n", compare_name(cmp_self));
        printf("compare world/dup %s\n", compare_name(cmp_dup));
        printf("compare world/split %s\n", compare_name(cmp_split));
        printf("split size %d sum %d\n", half_size, half_sum);
        printf("create size %d sum %d\n", k, first_sum);
        printf("cart dims %dx%d shift checksum %llu\n", dims[0], dims[1], total[0]);
        printf("errors %llu\n", total[1]);
        fflush(stdout);
        failed = total[1] != 0;
    }
    MPI_Finalize();
    return failed;
}
