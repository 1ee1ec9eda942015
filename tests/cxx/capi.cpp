// capi.cpp: a C++ program calling the MPI C API (the common case) under
// mpiwatch: the C wrappers see every call, once. Every rank makes the same
// calls; rank 0 prints a summary that is the same on every run with the same
// rank count. capi.expect lists the calls.
#include <mpi.h>

#include <cstdio>
#include <numeric>
#include <vector>

namespace {

int check(bool ok, int &errors)
{
    if (!ok)
        errors++;
    return errors;
}

}  // namespace

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;

    // A ring with a request array.
    std::vector<int> out(8, rank), in(8, -1);
    MPI_Request reqs[2];
    MPI_Irecv(in.data(), 8, MPI_INT, left, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(out.data(), 8, MPI_INT, right, 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    check(in[7] == left, errors);

    // Blocking send and receive with MPI_STATUS_IGNORE.
    MPI_Sendrecv(out.data(), 8, MPI_INT, right, 2, in.data(), 8, MPI_INT, left, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(in[0] == left, errors);

    // Collectives, one of them in place.
    std::vector<long> values(4);
    std::iota(values.begin(), values.end(), long(rank));
    MPI_Allreduce(MPI_IN_PLACE, values.data(), 4, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long root_value = rank == 0 ? 77 : 0;
    MPI_Bcast(&root_value, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    check(root_value == 77, errors);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);

    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("ranks %d\nsums %ld %ld %ld %ld\nerrors %d\n", size, values[0], values[1],
                    values[2], values[3], errors);
    MPI_Finalize();
    return 0;
}
