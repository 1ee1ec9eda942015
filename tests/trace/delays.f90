! Injected delays for the wait-state analysis, in Fortran (the same
! patterns and output as tests/trace/delays.c, which explains them):
!   delays PATTERN MS
! prints "delay RANK SLEPT LINE PREV WAITED BEHIND" on the delaying rank; times are
! system_clock's (CLOCK_MONOTONIC in gfortran: one clock for all processes
! of a host).
program delays
    use mpi
    use iso_c_binding, only: c_int
    implicit none
    interface
        integer(c_int) function usleep(us) bind(C, name='usleep')
            import :: c_int
            integer(c_int), value :: us
        end function usleep
    end interface
    character(len=32) :: pattern, arg
    integer, parameter :: iterations = 10
    integer :: ierr, rank, nranks, delayer, i, w, line, prev, value, total, ms, req, left, right
    logical :: done
    integer(kind=8) :: t0, t1, rate
    double precision :: slept, waited, late, mine(3, iterations)
    double precision, allocatable :: times(:, :, :)

    call MPI_Init(ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
    if (command_argument_count() /= 2 .or. nranks < 4) then
        write (0, '(a)') 'usage: delays PATTERN MS (on 4 ranks or more)'
        call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
    call get_command_argument(1, pattern)
    call get_command_argument(2, arg)
    read (arg, *) ms
    select case (trim(pattern))
    case ('late-receiver', 'late-receiver-issend')
        delayer = 1
    case ('nxn')
        delayer = 2
    case ('barrier')
        delayer = 3
    case default
        delayer = 0
    end select
    slept = 0
    value = 1
    line = 0
    prev = 0
    call system_clock(count_rate=rate)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    do i = 1, iterations
        call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr); prev = __LINE__
        call system_clock(t0)
        mine(1, i) = dble(t0) / dble(rate)
        if (rank == delayer .and. trim(pattern) /= 'balanced') then
            call system_clock(t0)
            ierr = usleep(int(ms * 1000, c_int))
            call system_clock(t1)
            slept = slept + dble(t1 - t0) / dble(rate)
        end if
        call system_clock(t0)
        mine(2, i) = dble(t0) / dble(rate)
        select case (trim(pattern))
        case ('late-sender')
            if (rank == 0) then
                call MPI_Send(value, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr); line = __LINE__
            else if (rank == 1) then
                call MPI_Recv(value, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            end if
        case ('late-sender-test')
            if (rank == 0) then
                call MPI_Send(value, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr); line = __LINE__
            else if (rank == 1) then
                call MPI_Irecv(value, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, req, ierr)
                done = .false.
                do while (.not. done)
                    call MPI_Test(req, done, MPI_STATUS_IGNORE, ierr)
                end do
            end if
        case ('late-sender-sendrecv')
            ! a ring, as delays.c's, but from the previous rank by name, the status ignored
            right = mod(rank + 1, nranks)
            left = mod(rank + nranks - 1, nranks)
            call MPI_Sendrecv_replace(value, 1, MPI_INTEGER, right, 5, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
            line = __LINE__ - 1   ! the call's line (too long a line for both)
        case ('late-receiver-issend')
            if (rank == 0) then
                call MPI_Issend(value, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, req, ierr)
                call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
            else if (rank == 1) then
                call MPI_Recv(value, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr); line = __LINE__
            end if
        case ('late-receiver')
            if (rank == 0) then
                call MPI_Ssend(value, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr)
            else if (rank == 1) then
                call MPI_Recv(value, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr); line = __LINE__
            end if
        case ('nxn')
            call MPI_Allreduce(value, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr); line = __LINE__
        case ('bcast')
            call MPI_Bcast(value, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr); line = __LINE__
        case ('barrier')
            call MPI_Barrier(MPI_COMM_WORLD, ierr); line = __LINE__
        end select
        call system_clock(t1)
        mine(3, i) = dble(t1) / dble(rate)
    end do
    allocate (times(3, iterations, 0:nranks - 1))
    call MPI_Gather(mine, 3 * iterations, MPI_DOUBLE_PRECISION, times, 3 * iterations, &
                    MPI_DOUBLE_PRECISION, delayer, MPI_COMM_WORLD, ierr)
    if (rank == delayer) then
        waited = 0
        late = 0
        select case (trim(pattern))
        case ('late-sender', 'late-sender-test', 'late-sender-sendrecv')
            waited = waiting(0, 1)
            late = behind(0, 1)
        case ('late-receiver', 'late-receiver-issend')
            waited = waiting(1, 0)
            late = behind(1, 0)
        case default
            do w = 0, nranks - 1
                if (w /= delayer) then
                    waited = waited + waiting(delayer, w)
                    late = late + behind(delayer, w)
                end if
            end do
        end select
        write (*, '(a,i0,a,f0.6,a,i0,a,i0,a,f0.6,a,f0.6)') 'delay ', rank, ' ', slept, ' ', &
            line, ' ', prev, ' ', waited, ' ', late
    end if
    call MPI_Finalize(ierr)
contains
    ! What rank w waited in the delayed calls: from its entry to the late
    ! rank's, at most until it left.
    double precision function waiting(late, w)
        integer, intent(in) :: late, w
        integer :: k
        double precision :: until
        waiting = 0
        do k = 1, iterations
            until = min(times(2, k, late), times(3, k, w))
            waiting = waiting + max(0d0, until - times(2, k, w))
        end do
    end function waiting

    ! How much later than the late rank rank w began its iterations' work.
    double precision function behind(late, w)
        integer, intent(in) :: late, w
        behind = sum(times(1, :, w) - times(1, :, late))
    end function behind
end program delays
