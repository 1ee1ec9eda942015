! The second source file of tests/runtime/callsites_main.f90.
subroutine util_send(buf, next, prev)
    use mpi
    implicit none
    double precision, intent(in) :: buf(64)
    integer, intent(in) :: next, prev
    double precision :: in(64)
    integer :: i, ierr
    do i = 1, 7
        call MPI_SEND(buf, 16, MPI_DOUBLE_PRECISION, next, 2, MPI_COMM_WORLD, ierr) ! SITE util_send
        call MPI_RECV(in, 16, MPI_DOUBLE_PRECISION, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end do
end subroutine util_send
