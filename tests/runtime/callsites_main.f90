! Call sites from Fortran: MPI_SEND from two subroutines in two source files
! (this one and callsites_util.f90) and from a shared library
! (callsites_lib.f90), as callsites_main.c does from C. Lines marked SITE are
! what the report must name (tests/runtime/check-callsites.sh).
subroutine main_send(buf, next, prev)
    use mpi
    implicit none
    double precision, intent(in) :: buf(64)
    integer, intent(in) :: next, prev
    double precision :: in(64)
    integer :: i, ierr
    do i = 1, 5
        call MPI_SEND(buf, 8, MPI_DOUBLE_PRECISION, next, 1, MPI_COMM_WORLD, ierr) ! SITE main_send
        call MPI_RECV(in, 8, MPI_DOUBLE_PRECISION, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end do
end subroutine main_send

program callsites
    use mpi
    implicit none
    integer :: rank, nranks, next, prev, ierr
    double precision :: buf(64)
    buf = 0
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
    next = mod(rank + 1, nranks)
    prev = mod(rank + nranks - 1, nranks)
    call main_send(buf, next, prev)
    call util_send(buf, next, prev)
    call lib_send(buf, next, prev)
    call lib_send(buf, next, prev)
    if (rank == 0) print '(a,i0,a)', 'callsites: done on ', nranks, ' ranks'
    call MPI_FINALIZE(ierr)
end program callsites
