! The shared library of tests/runtime/callsites_main.f90.
subroutine lib_send(buf, next, prev)
    use mpi
    implicit none
    double precision, intent(in) :: buf(64)
    integer, intent(in) :: next, prev
    double precision :: in(64)
    integer :: i, ierr
    do i = 1, 3
        call MPI_SEND(buf, 32, MPI_DOUBLE_PRECISION, next, 3, MPI_COMM_WORLD, ierr) ! SITE lib_send
        call MPI_RECV(in, 32, MPI_DOUBLE_PRECISION, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end do
end subroutine lib_send
