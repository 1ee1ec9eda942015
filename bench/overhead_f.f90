! The Fortran twin of overhead.c's callgrind loops (use mpi), for
! run-fortran-overhead.sh: what a Fortran call costs through libmpiwatch_f.
!
!   overhead_f LOOP N     runs loop LOOP N times after MPI_INIT, singleton
!
! LOOP: comm_rank      MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
!       sendrecv_self  0-byte MPI_SENDRECV to oneself (a call that moves data)
! Each loop is its own procedure with a C name (bench_loop_LOOP_f), so that
! callgrind's --toggle-collect counts its instructions alone.
module bench_loops
    use mpi
    implicit none
    integer :: sink = 0
contains
    subroutine loop_comm_rank(n) bind(C, name="bench_loop_comm_rank_f")
        integer, value :: n
        integer :: i, rank, ierr, acc
        acc = 0
        do i = 1, n
            call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
            acc = acc + rank
        end do
        sink = acc
    end subroutine

    subroutine loop_sendrecv_self(n) bind(C, name="bench_loop_sendrecv_self_f")
        integer, value :: n
        integer :: i, me, ierr, sbuf(1), rbuf(1)
        call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
        sbuf = 0
        do i = 1, n
            call MPI_SENDRECV(sbuf, 0, MPI_INTEGER, me, 7, rbuf, 0, MPI_INTEGER, me, 7, &
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        end do
        sink = sink + rbuf(1)
    end subroutine
end module

program overhead_f
    use mpi
    use bench_loops
    implicit none
    character(len=32) :: loop, arg
    integer :: n, ierr, stat
    call get_command_argument(1, loop)
    call get_command_argument(2, arg)
    read (arg, *, iostat=stat) n
    if (stat /= 0 .or. n < 1) then
        write (0, '(a)') 'usage: overhead_f comm_rank|sendrecv_self N'
        stop 2
    end if
    call MPI_INIT(ierr)
    select case (trim(loop))
    case ('comm_rank')
        call loop_comm_rank(n)
    case ('sendrecv_self')
        call loop_sendrecv_self(n)
    case default
        write (0, '(a)') 'overhead_f: unknown loop ' // trim(loop)
        stop 2
    end select
    call MPI_FINALIZE(ierr)
end program
