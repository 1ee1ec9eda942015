! layering08.f90: as layering.f, through the use mpi_f08 binding.
program layering08
  use mpi_f08
  implicit none
  integer :: rank, i, buf(1)
  call mw_c_init()
  do i = 1, 3
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  end do
  buf(1) = rank
  do i = 1, 2
    call MPI_Send(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD)
  end do
  if (rank == 0) write (*, '(a)') 'layering f08'
  call mw_c_finalize()
end program layering08
