! The Fortran twin of hang.c's "recv" mode: rank 1 waits in MPI_RECV for a
! message from rank 3 with tag 99 that never comes; the other ranks wait in
! MPI_BARRIER. Each rank prints "rank R hangs" just before.
program hang
    use mpi
    implicit none
    integer :: rank, size, ierr, value
    integer :: status(MPI_STATUS_SIZE)
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
    if (size < 4) then
        if (rank == 0) print '(a)', 'hang.f90: needs at least 4 ranks'
        call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
    end if
    value = 0
    call MPI_ALLREDUCE(MPI_IN_PLACE, value, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    print '(a,i0,a)', 'rank ', rank, ' hangs'
    flush(6)
    if (rank == 1) then
        call MPI_RECV(value, 1, MPI_INTEGER, 3, 99, MPI_COMM_WORLD, status, ierr)
    else
        call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    end if
    call MPI_FINALIZE(ierr)
end program hang
