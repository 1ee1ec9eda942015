! Which body each Fortran call takes (check-fast-path.sh counts the calls
! with callgrind): 100 MPI_COMM_RANK and 100 MPI_SENDRECV profiled, 50
! MPI_COMM_RANK while MPI_PCONTROL(0) has profiling off, 30 after MPI_PCONTROL(1).
program fast_path
    use mpi
    implicit none
    integer :: rank, ierr, i, sbuf, rbuf
    integer :: status(MPI_STATUS_SIZE)
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    sbuf = rank
    do i = 1, 100
        call MPI_SENDRECV(sbuf, 1, MPI_INTEGER, rank, 7, rbuf, 1, MPI_INTEGER, rank, 7, &
                          MPI_COMM_WORLD, status, ierr)
    end do
    do i = 1, 99
        call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    end do
    call MPI_PCONTROL(0)
    do i = 1, 50
        call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    end do
    call MPI_PCONTROL(1)
    do i = 1, 30
        call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    end do
    if (rbuf /= rank) stop 1
    print '(a)', 'fast_path: done'
    call MPI_FINALIZE(ierr)
end program fast_path
