! forever.f90: forever.c in Fortran (use mpi): every rank calls
! MPI_ALLREDUCE in a loop until it is killed; rank 0 prints "calls N"
! after every 100 calls, flushed.
program forever
    use mpi
    implicit none
    integer :: rank, ierr, one, total
    integer(kind=8) :: calls
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    one = 1
    calls = 0
    do
        call MPI_ALLREDUCE(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
        calls = calls + 1
        if (rank == 0 .and. mod(calls, 100_8) == 0) then
            write (*, '(a, i0)') 'calls ', calls
            flush (6)
        end if
    end do
end program forever
