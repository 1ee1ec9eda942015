! For check-install-hooks.sh: the Fortran twin of send_tags.c (use mpi).
program send_tags
    use mpi
    implicit none
    integer :: rank, i, tag, value, ierr

    value = 0
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    do i = 0, 3
        tag = 5
        if (i == 3) tag = 9
        if (rank == 0) then
            call MPI_SEND(i, 1, MPI_INTEGER, 1, tag, MPI_COMM_WORLD, ierr)
        else if (rank == 1) then
            call MPI_RECV(value, 1, MPI_INTEGER, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        end if
    end do
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    if (rank == 1) print '(a,i0)', 'last ', value
    call MPI_FINALIZE(ierr)
end program send_tags
