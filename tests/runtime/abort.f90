! abort.f90: abort.c in Fortran (use mpi): rank 1 calls MPI_ABORT with error
! code 3 while rank 0 waits in an MPI_RECV that nothing will match and the
! other ranks in MPI_BARRIER.
program abort_job
    use mpi
    implicit none
    integer :: rank, ierr, value
    integer :: status(MPI_STATUS_SIZE)
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    if (rank == 1) then
        call sleep(1)   ! let rank 0 get into MPI_RECV
        call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
    else if (rank == 0) then
        call MPI_RECV(value, 1, MPI_INTEGER, 1, 99, MPI_COMM_WORLD, status, ierr)
    else
        call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    end if
    write (*, '(a, i0, a)') 'rank ', rank, ': not aborted'
    call MPI_FINALIZE(ierr)
end program abort_job
