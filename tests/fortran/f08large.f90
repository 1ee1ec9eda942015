! f08large.f90: large-count calls through use mpi_f08 (MPI 4.0: a count of
! KIND=MPI_COUNT_KIND selects the procedure), each counted as its C
! large-count function (MPI_Send_c...). Run where the MPI's mpi_f08 module
! has them (MPICH 4; not Open MPI 4.1). f08large.expect lists the calls.
program f08large
  use mpi_f08
  implicit none
  integer :: rank, nprocs, left, right, errors
  integer(kind=MPI_COUNT_KIND) :: n
  integer :: sendbuf(8), recvbuf(8), total(8)
  type(MPI_Request) :: reqs(2)

  errors = 0
  n = 8
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)
  sendbuf = rank
  recvbuf = -1
  call MPI_Irecv(recvbuf, n, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(sendbuf, n, MPI_INTEGER, right, 1, MPI_COMM_WORLD)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  if (any(recvbuf /= left)) errors = errors + 1
  call MPI_Allreduce(sendbuf, total, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (any(total /= nprocs * (nprocs - 1) / 2)) errors = errors + 1
  call MPI_Bcast(total, n, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    write (*, '(a, i0)') 'ranks ', nprocs
    write (*, '(a, i0)') 'sum ', total(1)
    write (*, '(a, i0)') 'errors ', errors
  end if
  call MPI_Finalize()
end program f08large
