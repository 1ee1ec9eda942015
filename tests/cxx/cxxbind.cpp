// cxxbind.cpp: a program using the MPI C++ bindings (MPI::...), which both
// MPIs still ship (Open MPI's libmpi_cxx, MPICH's mpicxx.h/libmpichcxx), under
// mpiwatch. The bindings are layered on the C functions, so the C wrappers
// count each C++ call once, as its C function. Every rank makes the same
// calls; rank 0 prints a summary that is the same on every run with the same
// rank count. cxxbind.<mpi>.expect lists the calls per MPI: the bindings
// make a few C calls of their own.
#include <mpi.h>

#include <cstdio>

int main(int argc, char **argv)
{
    MPI::Init(argc, argv);
    const int rank = MPI::COMM_WORLD.Get_rank();
    const int size = MPI::COMM_WORLD.Get_size();
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    int errors = 0;

    // A ring with a request array.
    int mine = 100 + rank, got = -1;
    MPI::Request reqs[2];
    reqs[0] = MPI::COMM_WORLD.Irecv(&got, 1, MPI::INT, left, 1);
    reqs[1] = MPI::COMM_WORLD.Isend(&mine, 1, MPI::INT, right, 1);
    MPI::Request::Waitall(2, reqs);
    if (got != 100 + left)
        errors++;

    // Blocking pairs; the odd rank out talks to MPI::PROC_NULL.
    int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
    if (partner >= size)
        partner = MPI::PROC_NULL;
    int pair = -1;
    MPI::Status status;
    if (rank % 2 == 0) {
        MPI::COMM_WORLD.Send(&mine, 1, MPI::INT, partner, 2);
        MPI::COMM_WORLD.Recv(&pair, 1, MPI::INT, partner, 2, status);
    } else {
        MPI::COMM_WORLD.Recv(&pair, 1, MPI::INT, partner, 2, status);
        MPI::COMM_WORLD.Send(&mine, 1, MPI::INT, partner, 2);
    }
    if (partner != MPI::PROC_NULL && (pair != 100 + partner || status.Get_source() != partner))
        errors++;

    // Collectives, one of them in place.
    int values[2] = {rank, 1};
    MPI::COMM_WORLD.Allreduce(MPI::IN_PLACE, values, 2, MPI::INT, MPI::SUM);
    int token = rank == 0 ? 42 : 0;
    MPI::COMM_WORLD.Bcast(&token, 1, MPI::INT, 0);
    if (token != 42 || values[1] != size)
        errors++;
    MPI::Intracomm dup = MPI::COMM_WORLD.Dup();
    dup.Barrier();
    dup.Free();

    MPI::COMM_WORLD.Allreduce(MPI::IN_PLACE, &errors, 1, MPI::INT, MPI::SUM);
    if (rank == 0)
        std::printf("ranks %d\nsum %d %d\nerrors %d\n", size, values[0], values[1], errors);
    MPI::Finalize();
    return 0;
}
