! hook_program.f90: the Fortran twin of hook_program.c (use mpi): one Isend
! per rank to its right neighbour (tag 7, 1024 integers), 2 barriers on
! MPI_COMM_WORLD and 3 allreduces on a duplicate of it. The hook examples
! must print for it exactly what they print for the C program.
program hook_program
  use mpi
  implicit none
  integer :: rank, nprocs, ierr, i, req, dup, sum
  integer :: outv(1024), inv(1024)

  sum = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  do i = 1, 1024
    outv(i) = rank + i - 1
  end do
  call MPI_Isend(outv, 1024, MPI_INTEGER, mod(rank + 1, nprocs), 7, MPI_COMM_WORLD, req, ierr)
  call MPI_Recv(inv, 1024, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 7, MPI_COMM_WORLD, &
                MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  do i = 1, 3
    call MPI_Allreduce(inv(1), sum, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
  end do
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Comm_free(dup, ierr)
  if (rank == 0) print '(a, i0)', 'sum ', sum
  call MPI_Finalize(ierr)
end program hook_program
