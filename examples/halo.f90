! halo: a 1-D heat equation split over the ranks, exchanging one halo cell
! with each neighbour every step (MPI_ISEND / MPI_IRECV / MPI_WAITALL), then
! agreeing on the total heat (MPI_ALLREDUCE). A small Fortran program to try
! mpiwatch on; both libraries are preloaded (Fortran needs libmpiwatch_f):
!     mpif90 -o halo examples/halo.f90
!     mpirun -np 4 -x LD_PRELOAD=$PREFIX/lib/libmpiwatch.so:$PREFIX/lib/libmpiwatch_f.so ./halo
program halo
    use mpi
    implicit none
    integer, parameter :: n = 1000
    double precision :: u(0:n + 1), unew(1:n), local, total
    integer :: rank, size, left, right, step, steps, ierr, nargs
    integer :: requests(4)
    character(len=32) :: arg

    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call MPI_COMM_SIZE(MPI_COMM_WORLD, size, ierr)
    steps = 100
    nargs = command_argument_count()
    if (nargs >= 1) then
        call get_command_argument(1, arg)
        read (arg, *, iostat=ierr) steps
        if (ierr /= 0 .or. steps < 0) steps = 100
    end if
    left = merge(MPI_PROC_NULL, rank - 1, rank == 0)
    right = merge(MPI_PROC_NULL, rank + 1, rank == size - 1)

    u = 0d0
    if (rank == 0) u(1) = 1000d0
    do step = 1, steps
        call MPI_IRECV(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, requests(1), ierr)
        call MPI_IRECV(u(n + 1), 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, requests(2), ierr)
        call MPI_ISEND(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, requests(3), ierr)
        call MPI_ISEND(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, requests(4), ierr)
        call MPI_WAITALL(4, requests, MPI_STATUSES_IGNORE, ierr)
        if (left == MPI_PROC_NULL) u(0) = u(1)
        if (right == MPI_PROC_NULL) u(n + 1) = u(n)
        unew = u(1:n) + 0.25d0 * (u(0:n - 1) - 2d0 * u(1:n) + u(2:n + 1))
        u(1:n) = unew
    end do
    local = sum(u(1:n))
    call MPI_ALLREDUCE(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) print '(a,i0,a,i0,a,f0.3)', 'halo: ', steps, ' steps on ', size, &
        ' ranks, total heat ', total
    call MPI_FINALIZE(ierr)
end program halo
