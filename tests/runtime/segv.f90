! segv.f90: segv.c in Fortran (use mpi): every rank calls MPI_ALLREDUCE 100
! times; then rank 1 writes through a null pointer while the others wait in
! MPI_BARRIER, until the launcher ends them. Rank 0 prints "crashing" first.
program segv
    use mpi
    implicit none
    integer :: rank, ierr, one, total, i
    integer, pointer :: nowhere => null()
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    one = 1
    do i = 1, 100
        call MPI_ALLREDUCE(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    end do
    if (rank == 0) then
        write (*, '(a)') 'crashing'
        flush (6)
    end if
    if (rank == 1) nowhere = 1
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_FINALIZE(ierr)
end program segv
