! Named regions from Fortran (no interface needed: the CHARACTER argument's
! hidden length is part of the call): the same regions as regions.c.
program regions
    implicit none
    include 'mpif.h'
    integer :: ierr, rank, i, x, y
    x = 1
    call MPI_INIT(ierr)
    call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
    call mpiwatch_region_begin('setup')
    do i = 1, 5
        call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    end do
    call mpiwatch_region_end('setup')
    call mpiwatch_region_begin('solve')
    do i = 1, 7
        call MPI_ALLREDUCE(x, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    end do
    call mpiwatch_region_begin('inner    ')
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    call mpiwatch_region_end('inner')
    call mpiwatch_region_end('solve')
    if (rank == 0) print '(a,i0)', 'sum ', y
    call MPI_FINALIZE(ierr)
end program regions
