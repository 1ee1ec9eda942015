! tests/trace/split_comms.c in `use mpi_f08`: messages and rooted
! collectives on the even and the odd world ranks and on all ranks numbered
! backwards, communicators made by the f08 binding's MPI_Comm_split, whose
! handles are TYPE(MPI_Comm). Blocking sends and receives only (the f08
! binding's requests are not traced yet). Prints one line per rank; exit 0.
! For check-trace-otf2.sh.
program split_f08
    use mpi_f08
    implicit none
    type(MPI_Comm) :: halves, backwards
    integer :: rank, total

    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, halves)
    call MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, backwards)
    total = ring(halves, 2 + mod(rank, 2)) + ring(backwards, 5) + ring(MPI_COMM_WORLD, 1)
    print '(a, i0, a, i0)', 'rank ', rank, ': ', total
    call MPI_Comm_free(halves)
    call MPI_Comm_free(backwards)
    call MPI_Finalize()

contains

    ! Steps of a ring on comm, messages of n integers; the sum of what arrived.
    integer function ring(comm, n)
        type(MPI_Comm), intent(in) :: comm
        integer, intent(in) :: n
        integer :: me, size, right, left, step, value, reduced
        integer :: out(8), in(8)

        call MPI_Comm_rank(comm, me)
        call MPI_Comm_size(comm, size)
        right = mod(me + 1, size)
        left = mod(me + size - 1, size)
        ring = 0
        do step = 1, 5
            out(1:n) = me * 10 + step
            if (mod(me, 2) == 0) then
                call MPI_Send(out, n, MPI_INTEGER, right, 8, comm)
                call MPI_Recv(in, n, MPI_INTEGER, left, 8, comm, MPI_STATUS_IGNORE)
            else
                call MPI_Recv(in, n, MPI_INTEGER, left, 8, comm, MPI_STATUS_IGNORE)
                call MPI_Send(out, n, MPI_INTEGER, right, 8, comm)
            end if
            ring = ring + in(1)
        end do
        value = 0
        if (size > 1 .and. me == 1) value = 42
        call MPI_Bcast(value, 1, MPI_INTEGER, min(1, size - 1), comm)
        call MPI_Reduce(value, reduced, 1, MPI_INTEGER, MPI_SUM, 0, comm)
        if (me == 0) ring = ring + reduced
    end function ring

end program split_f08
