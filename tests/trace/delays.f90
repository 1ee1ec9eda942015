! Injected delays for the wait-state analysis, in Fortran (the same
! patterns and output as tests/trace/delays.c, which explains them):
!   delays PATTERN MS
! prints "delay RANK SECONDS LINE PREV" on the delaying rank.
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
    integer :: ierr, rank, nranks, delayer, i, line, prev, value, total, ms
    integer(kind=8) :: t0, t1, rate
    double precision :: slept

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
    case ('late-receiver')
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
    do i = 1, 10
        call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr); prev = __LINE__
        if (rank == delayer .and. trim(pattern) /= 'balanced') then
            call system_clock(t0)
            ierr = usleep(int(ms * 1000, c_int))
            call system_clock(t1)
            slept = slept + dble(t1 - t0) / dble(rate)
        end if
        select case (trim(pattern))
        case ('late-sender')
            if (rank == 0) then
                call MPI_Send(value, 1, MPI_INTEGER, 1, 5, MPI_COMM_WORLD, ierr); line = __LINE__
            else if (rank == 1) then
                call MPI_Recv(value, 1, MPI_INTEGER, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
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
    end do
    if (rank == delayer) write (*, '(a,i0,a,f0.6,a,i0,a,i0)') 'delay ', rank, ' ', slept, ' ', &
        line, ' ', prev
    call MPI_Finalize(ierr)
end program delays
