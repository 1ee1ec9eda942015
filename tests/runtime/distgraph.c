/* Distributed graph topologies created over and over with reorder off and
 * on (Open MPI then uses its treematch component): complete, sparse, rank
 * 0's self edge only, empty and irregular graphs, each made with
 * MPI_Dist_graph_create_adjacent, with MPI_Dist_graph_create from each
 * rank's outgoing edges and from rank 0 alone, then the "no graph" forms
 * (NULL arrays, MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY). Every new communicator
 * is used (a barrier, a neighbour count, a duplicate) and freed.
 * tests/runtime/check-distgraph.sh runs it many times: a profiling layer
 * must never make a correct program hang. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int size, rank;

static int weight(int layout, int i, int j)
{
    switch (layout) {
    case 0: return (i + 1) * (j + 2);
    case 1: return j % 2 ? i + j + 1 : 0;
    case 2: return i == j && i == 0 ? 5 : 0;
    case 3: return 0;
    default: return ((i * 7 + j * 13 + layout) % 3) ? (i + j + layout) % 50 + 1 : 0;
    }
}

static void use(MPI_Comm comm)
{
    MPI_Comm dup;
    int in, out, weighted;
    MPI_Barrier(comm);
    MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    MPI_Comm_dup(comm, &dup);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = size * size;
    int *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
    int *sw = malloc(n * sizeof *sw), *dw = malloc(n * sizeof *dw), *deg = malloc(n * sizeof *deg);
    for (int layout = 0; layout < 10; layout++) {
        for (int reorder = 0; reorder <= 1; reorder++) {
            int in = 0, out = 0, k = 0;
            MPI_Comm comm;
            for (int j = 0; j < size; j++) {
                if (weight(layout, j, rank)) { src[in] = j; sw[in++] = weight(layout, j, rank); }
                if (weight(layout, rank, j)) { dst[out] = j; dw[out++] = weight(layout, rank, j); }
            }
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, sw, out, dst, dw,
                                           MPI_INFO_NULL, reorder, &comm);
            use(comm);
            int me = rank;
            MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &out, dst, dw, MPI_INFO_NULL, reorder, &comm);
            use(comm);
            for (int i = 0; i < size; i++)
                for (int j = 0; j < size; j++)
                    if (weight(layout, i, j)) { src[k] = i; dst[k] = j; sw[k] = weight(layout, i, j); deg[k++] = 1; }
            MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? k : 0, src, deg, dst, sw, MPI_INFO_NULL,
                                  reorder, &comm);
            use(comm);
        }
    }
    for (int reorder = 0; reorder <= 1; reorder++) {
        MPI_Comm comm;
        int in, out, weighted;
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, src, deg, dst, sw, MPI_INFO_NULL, reorder, &comm);
        MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
        MPI_Comm_free(&comm);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, src, deg, dst, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, reorder, &comm);
        MPI_Comm_free(&comm);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, NULL, MPI_INFO_NULL, reorder, &comm);
        MPI_Comm_free(&comm);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &comm);
        MPI_Comm_free(&comm);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, sw, 0, dst, dw, MPI_INFO_NULL, reorder, &comm);
        MPI_Comm_free(&comm);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &comm);
        MPI_Comm_free(&comm);
    }
    if (rank == 0)
        printf("distgraph: done on %d ranks\n", size);
    free(src);
    free(dst);
    free(sw);
    free(dw);
    free(deg);
    MPI_Finalize();
    return 0;
}
