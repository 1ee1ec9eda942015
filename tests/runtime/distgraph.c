/* Distributed graph topologies created over and over, with reorder off and
 * on (Open MPI then runs its treematch component), in the sequence of a
 * topology test suite: for each of ten graphs (complete, every other edge,
 * rank 0's self edge only, none, irregular), decided on rank 0 and
 * broadcast, the graph is made with MPI_Dist_graph_create_adjacent (weighted
 * and MPI_UNWEIGHTED), then with MPI_Dist_graph_create from each rank's
 * outgoing edges, from its incoming edges, from rank 0 alone and from rank 0
 * with NULL arrays elsewhere; then the empty forms (NULL arrays,
 * MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY). Every new communicator is queried,
 * duplicated, queried again and freed.
 *
 * With Open MPI 4.1.4 on 4 ranks this hangs in about a third of the runs,
 * all ranks in ompi_comm_nextcid under treematch's MPI_Dist_graph_create,
 * as soon as one communicator was created and freed in MPI_Init, as a
 * profiling layer's private communicator used to be (never without one).
 * tests/runtime/check-distgraph.sh runs it many times. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define GRAPHS 10

static int size, rank;
static int *edge;   /* edge[i * size + j]: the weight of i -> j, 0 for none */

static void make_graph(int g)
{
    if (rank == 0) {
        srand((unsigned)g + 1);
        for (int i = 0; i < size; i++)
            for (int j = 0; j < size; j++) {
                int w;
                switch (g) {
                case 0: w = (i + 2) * (j + 1); break;
                case 1: w = j % 2 ? (i + 2) * (j + 1) : 0; break;
                case 2: w = i == 0 && j == 0 ? 10 : 0; break;
                case 3: w = 0; break;
                default: w = rand() % 3 == 0 ? 0 : 1 + rand() % 99; break;
                }
                edge[i * size + j] = w;
            }
    }
    MPI_Bcast(edge, size * size, MPI_INT, 0, MPI_COMM_WORLD);
}

/* Query, duplicate and query again, free both. */
static void use(MPI_Comm comm)
{
    int in, out, weighted, topo;
    int *buf = malloc(4 * (size_t)size * sizeof *buf);
    MPI_Comm dup;
    MPI_Barrier(comm);
    MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    MPI_Topo_test(comm, &topo);
    MPI_Dist_graph_neighbors(comm, in, buf, buf + size, out, buf + 2 * size, buf + 3 * size);
    MPI_Comm_dup(comm, &dup);
    MPI_Topo_test(dup, &topo);
    MPI_Dist_graph_neighbors(dup, in, buf, buf + size, out, buf + 2 * size, buf + 3 * size);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&comm);
    free(buf);
}

static void empty_graphs(int *src, int *deg, int *dst, int *w)
{
    for (int reorder = 0; reorder <= 1; reorder++) {
        MPI_Comm comm[7];
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, src, deg, dst, w, MPI_INFO_NULL, reorder, &comm[0]);
        MPI_Comm_free(&comm[0]);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, src, deg, dst, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL,
                              reorder, &comm[1]);
        MPI_Comm_free(&comm[1]);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, NULL, MPI_INFO_NULL, reorder,
                              &comm[2]);
        MPI_Comm_free(&comm[2]);
        MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL,
                              reorder, &comm[3]);
        MPI_Comm_free(&comm[3]);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, w, 0, dst, w, MPI_INFO_NULL, reorder,
                                       &comm[4]);
        MPI_Comm_free(&comm[4]);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, NULL, 0, NULL, NULL, MPI_INFO_NULL,
                                       reorder, &comm[5]);
        MPI_Comm_free(&comm[5]);
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, reorder, &comm[6]);
        MPI_Comm_free(&comm[6]);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t n = (size_t)size * (size_t)size;
    edge = malloc(n * sizeof *edge);
    int *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
    int *sw = malloc(n * sizeof *sw), *dw = malloc(n * sizeof *dw), *deg = malloc(n * sizeof *deg);
    MPI_Comm comm;

    for (int g = 0; g < GRAPHS; g++) {
        make_graph(g);
        int in = 0, out = 0, k = 0;
        for (int j = 0; j < size; j++) {
            if (edge[j * size + rank]) { src[in] = j; sw[in++] = edge[j * size + rank]; }
            if (edge[rank * size + j]) { dst[out] = j; dw[out++] = edge[rank * size + j]; }
        }
        for (int reorder = 0; reorder <= 1; reorder++) {
            MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, sw, out, dst, dw,
                                           MPI_INFO_NULL, reorder, &comm);
            use(comm);
        }
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, MPI_UNWEIGHTED, out, dst,
                                       MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &comm);
        MPI_Barrier(comm);
        MPI_Comm_free(&comm);

        int me = rank; /* each rank's outgoing edges */
        for (int reorder = 0; reorder <= 1; reorder++) {
            MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &out, dst, dw, MPI_INFO_NULL, reorder,
                                  &comm);
            use(comm);
        }
        for (int j = 0; j < in; j++) { /* each rank's incoming edges */
            deg[j] = 1;
            dst[j] = rank;
        }
        for (int reorder = 0; reorder <= 1; reorder++) {
            MPI_Dist_graph_create(MPI_COMM_WORLD, in, src, deg, dst, sw, MPI_INFO_NULL, reorder,
                                  &comm);
            use(comm);
        }
        for (int i = 0; i < size; i++) /* the whole graph, given by rank 0 */
            for (int j = 0; j < size; j++)
                if (edge[i * size + j]) {
                    src[k] = i;
                    dst[k] = j;
                    sw[k] = edge[i * size + j];
                    deg[k++] = 1;
                }
        for (int reorder = 0; reorder <= 1; reorder++) {
            MPI_Dist_graph_create(MPI_COMM_WORLD, rank == 0 ? k : 0, src, deg, dst, sw,
                                  MPI_INFO_NULL, reorder, &comm);
            use(comm);
        }
        for (int reorder = 0; reorder <= 1; reorder++) {
            if (rank == 0)
                MPI_Dist_graph_create(MPI_COMM_WORLD, k, src, deg, dst, sw, MPI_INFO_NULL,
                                      reorder, &comm);
            else
                MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, NULL, MPI_INFO_NULL,
                                      reorder, &comm);
            use(comm);
        }
    }
    empty_graphs(src, deg, dst, dw);
    if (rank == 0)
        printf("distgraph: done on %d ranks\n", size);
    free(src);
    free(dst);
    free(sw);
    free(dw);
    free(deg);
    free(edge);
    MPI_Finalize();
    return 0;
}
