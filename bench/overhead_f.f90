! The Fortran twin of overhead.c's callgrind loops (use mpi), for
! run-fortran-overhead.sh: what a Fortran call costs through libmpiwatch_f.
!
!   overhead_f LOOP N     runs loop LOOP N times after MPI_INIT, singleton
!   overhead_f --callgrind-all N
!                         runs every loop with N (warm-up), N and 2N iterations,
!                         each run through bench_run_loop and announced first on
!                         stdout as "run=K loop=NAME iterations=n", as overhead.c's
!                         --callgrind-all does (tests/runtime/check-cost.sh)
!
! LOOP: comm_rank      MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
!       sendrecv_self  0-byte MPI_SENDRECV to oneself (a call that moves data)
!       isend_irecv    8-byte MPI_IRECV and MPI_ISEND to oneself, MPI_WAITALL
!       send_recv      MPI_IRECV, MPI_SEND, MPI_ISEND, MPI_RECV (8 bytes, to
!                      oneself, none blocks), MPI_WAITALL
!       allreduce      a 1-integer MPI_ALLREDUCE
! as overhead.c's loops of the same names (calls per iteration: 1, 1, 3, 5, 1).
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

    subroutine loop_isend_irecv(n) bind(C, name="bench_loop_isend_irecv_f")
        integer, value :: n
        integer :: i, me, ierr, reqs(2)
        double precision :: out, in
        call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
        out = 1.0d0
        in = 0.0d0
        do i = 1, n
            call MPI_IRECV(in, 1, MPI_DOUBLE_PRECISION, me, 17, MPI_COMM_WORLD, reqs(1), ierr)
            call MPI_ISEND(out, 1, MPI_DOUBLE_PRECISION, me, 17, MPI_COMM_WORLD, reqs(2), ierr)
            call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
        end do
        sink = sink + int(in)
    end subroutine

    subroutine loop_send_recv(n) bind(C, name="bench_loop_send_recv_f")
        integer, value :: n
        integer :: i, me, ierr, reqs(2)
        double precision :: out, in, in2
        call MPI_COMM_RANK(MPI_COMM_WORLD, me, ierr)
        out = 1.0d0
        in = 0.0d0
        in2 = 0.0d0
        do i = 1, n
            call MPI_IRECV(in, 1, MPI_DOUBLE_PRECISION, me, 17, MPI_COMM_WORLD, reqs(1), ierr)
            call MPI_SEND(out, 1, MPI_DOUBLE_PRECISION, me, 17, MPI_COMM_WORLD, ierr)
            call MPI_ISEND(out, 1, MPI_DOUBLE_PRECISION, me, 18, MPI_COMM_WORLD, reqs(2), ierr)
            call MPI_RECV(in2, 1, MPI_DOUBLE_PRECISION, me, 18, MPI_COMM_WORLD, &
                          MPI_STATUS_IGNORE, ierr)
            call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
        end do
        sink = sink + int(in + in2)
    end subroutine

    subroutine loop_allreduce(n) bind(C, name="bench_loop_allreduce_f")
        integer, value :: n
        integer :: i, ierr, in, out, acc
        in = 1
        out = 0
        acc = 0
        do i = 1, n
            call MPI_ALLREDUCE(in, out, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
            acc = acc + out
        end do
        sink = acc
    end subroutine

    ! One loop's run, never inlined: callgrind's --toggle-collect and
    ! --dump-after name it, so that each run is counted in a dump of its own.
    subroutine run_loop(which, n) bind(C, name="bench_run_loop")
        integer, value :: which, n
        select case (which)
        case (1)
            call loop_comm_rank(n)
        case (2)
            call loop_sendrecv_self(n)
        case (3)
            call loop_isend_irecv(n)
        case (4)
            call loop_send_recv(n)
        case (5)
            call loop_allreduce(n)
        end select
    end subroutine
end module

program overhead_f
    use mpi
    use bench_loops
    implicit none
    character(len=32) :: loop, arg
    character(len=13), parameter :: names(5) = [character(len=13) :: 'comm_rank', &
        'sendrecv_self', 'isend_irecv', 'send_recv', 'allreduce']
    integer :: n, ierr, stat, l, k, run, counts(3)
    call get_command_argument(1, loop)
    call get_command_argument(2, arg)
    read (arg, *, iostat=stat) n
    if (stat /= 0 .or. n < 1) then
        write (0, '(a)') 'usage: overhead_f comm_rank|sendrecv_self|isend_irecv|send_recv|allreduce|--callgrind-all N'
        stop 2
    end if
    call MPI_INIT(ierr)
    if (trim(loop) == '--callgrind-all') then
        counts = [n, n, 2 * n]
        run = 0
        do l = 1, size(names)
            do k = 1, 3
                run = run + 1
                write (*, '(a,i0,a,a,a,i0)') 'run=', run, ' loop=', trim(names(l)), &
                    ' iterations=', counts(k)
                flush (6)
                call run_loop(l, counts(k))
            end do
        end do
        call MPI_FINALIZE(ierr)
        stop
    end if
    select case (trim(loop))
    case ('comm_rank')
        call loop_comm_rank(n)
    case ('sendrecv_self')
        call loop_sendrecv_self(n)
    case ('isend_irecv')
        call loop_isend_irecv(n)
    case ('send_recv')
        call loop_send_recv(n)
    case ('allreduce')
        call loop_allreduce(n)
    case default
        write (0, '(a)') 'overhead_f: unknown loop ' // trim(loop)
        stop 2
    end select
    call MPI_FINALIZE(ierr)
end program
