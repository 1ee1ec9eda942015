/* Many distinct MPI functions called in a loop for SECONDS, so that every
 * snapshot of the live monitor has many entries and events pour out: the
 * test of a client that stops reading (check-monitor-tcp.sh, "sleeper").
 * Rank 0 prints the loop count's parity-free result line, which does not
 * depend on mpiwatch.
 *
 *     busy [SECONDS]     (default 10) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, flag, len, version, subversion, provided, tsize, count;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 10, end = MPI_Wtime() + seconds;
    int go = 1;
    MPI_Group group;
    MPI_Status status;
    MPI_Request request = MPI_REQUEST_NULL;
    MPI_Aint lb, extent;
    while (go) {
        for (int i = 0; i < 1000; i++) {
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            MPI_Initialized(&flag);
            MPI_Finalized(&flag);
            MPI_Query_thread(&provided);
            MPI_Is_thread_main(&flag);
            MPI_Get_version(&version, &subversion);
            MPI_Get_processor_name(name, &len);
            MPI_Type_size(MPI_INT, &tsize);
            MPI_Type_get_extent(MPI_DOUBLE, &lb, &extent);
            MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
            MPI_Comm_group(MPI_COMM_WORLD, &group);
            MPI_Group_size(group, &tsize);
            MPI_Group_rank(group, &tsize);
            MPI_Group_free(&group);
            MPI_Test(&request, &flag, &status);
            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, &status);
            MPI_Get_count(&status, MPI_INT, &count);
            MPI_Wtick();
            MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &flag);
        }
        go = MPI_Wtime() < end;
        MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("busy: done on %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
