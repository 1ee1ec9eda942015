! halo_f08: examples/halo.f90's exchange in `use mpi_f08` (TYPE(MPI_Request)
! handles), for check-trace-otf2.sh: every request its MPI_ISEND and
! MPI_IRECV start is completed by an MPI_WAITALL, or at the end by an
! MPI_TEST polled until it succeeds, and the archive matches each receive to
! its send. Prints one line on rank 0.
program halo_f08
    use mpi_f08
    implicit none
    integer, parameter :: n = 100, steps = 20
    double precision :: u(0:n + 1), local, total, token
    integer :: rank, size, left, right, step
    type(MPI_Request) :: requests(4), request
    logical :: done

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_size(MPI_COMM_WORLD, size)
    left = merge(MPI_PROC_NULL, rank - 1, rank == 0)
    right = merge(MPI_PROC_NULL, rank + 1, rank == size - 1)
    u = dble(rank)
    do step = 1, steps
        call MPI_Irecv(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, requests(1))
        call MPI_Irecv(u(n + 1), 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, requests(2))
        call MPI_Isend(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, requests(3))
        call MPI_Isend(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, requests(4))
        call MPI_Waitall(4, requests, MPI_STATUSES_IGNORE)
        u(1:n) = 0.5d0 * (u(1:n) + 0.5d0 * (u(0) + u(n + 1)))
    end do
    ! A token passed down the line, its receive polled with MPI_Test.
    token = dble(rank)
    call MPI_Irecv(token, 1, MPI_DOUBLE_PRECISION, left, 3, MPI_COMM_WORLD, request)
    done = .false.
    do while (.not. done)
        call MPI_Test(request, done, MPI_STATUS_IGNORE)
    end do
    call MPI_Isend(token, 1, MPI_DOUBLE_PRECISION, right, 3, MPI_COMM_WORLD, request)
    call MPI_Wait(request, MPI_STATUS_IGNORE)
    local = sum(u(1:n))
    call MPI_Allreduce(local, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    if (rank == 0) print '(a,i0,a,i0,a)', 'halo_f08: ', steps, ' steps on ', size, ' ranks'
    call MPI_Finalize()
end program halo_f08
