! A Fortran program run with libmpiwatch.so alone preloaded (check-c-only-preload.sh).
program c_only
    use mpi
    implicit none
    integer :: rank, ierr
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a)', 'c_only: done'
    call MPI_FINALIZE(ierr)
end program c_only
