/* Named regions from C: "setup" holds 5 barriers; "solve" holds 7
 * allreduces and a nested "inner" region of 2 barriers (counted in both).
 * With the argument "no-finalize" it returns from main without MPI_Finalize
 * (check-partial-tables: the same tables from partial profiles). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

void mpiwatch_region_begin(const char *name);
void mpiwatch_region_end(const char *name);

int main(int argc, char **argv)
{
    int x = 1, y = 0, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    mpiwatch_region_begin("setup");
    for (int i = 0; i < 5; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    mpiwatch_region_end("setup");
    mpiwatch_region_begin("solve");
    for (int i = 0; i < 7; i++)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    mpiwatch_region_begin("inner");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    mpiwatch_region_end("inner");
    mpiwatch_region_end("solve");
    if (rank == 0)
        printf("sum %d\n", y);
    if (argc > 1 && strcmp(argv[1], "no-finalize") == 0)
        return 0;
    MPI_Finalize();
    return 0;
}
