! usempi.f90: the "use mpi" binding under mpiwatch. Every rank makes the same
! calls (partnerless operations use MPI_PROC_NULL), checks what it receives,
! and rank 0 prints a summary that is the same on every run with the same
! rank count, so a profiled run can be compared byte for byte with a bare one.
! Covers: MPI_INIT_THREAD, MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_IN_PLACE,
! MPI_BOTTOM with an absolute-address datatype, MPI_UNWEIGHTED, request arrays
! (MPI_WAITALL, MPI_WAITSOME, MPI_TESTSOME), strings with hidden lengths
! (MPI_GET_PROCESSOR_NAME, MPI_INFO_SET/GET), LOGICAL results, MPI_WTIME,
! MPI_PCONTROL. usempi.expect lists the calls.
program usempi
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, left, right, provided, errors
  integer :: sendval, recvval, pairval, partner, nlen, info, nkeys
  integer :: reqs(3), indices(3), outcount, statuses(MPI_STATUS_SIZE, 3)
  integer :: vals(4), scratch(4), gathered(64), mine, i, total
  integer :: graph, indeg, outdeg, srcs(1), dsts(1), newtype
  integer :: blocklens(2), types(2)
  integer(kind=MPI_ADDRESS_KIND) :: disps(2)
  logical :: flag, weighted, isinter
  double precision :: t0, t1
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=32) :: value
  ! Reached only through MPI_BOTTOM: in a common block, so the compiler
  ! reloads them after each call.
  integer :: abs_a
  double precision :: abs_b
  common /mwabs/ abs_b, abs_a

  errors = 0
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  left = mod(rank - 1 + nprocs, nprocs)
  right = mod(rank + 1, nprocs)
  if (provided < MPI_THREAD_SINGLE .or. provided > MPI_THREAD_MULTIPLE) errors = errors + 1
  call MPI_Initialized(flag, ierr)
  if (.not. flag) errors = errors + 1
  call MPI_Is_thread_main(flag, ierr)
  if (.not. flag) errors = errors + 1
  call MPI_Comm_test_inter(MPI_COMM_WORLD, isinter, ierr)
  if (isinter) errors = errors + 1
  t0 = MPI_Wtime()

  ! Strings: the hidden lengths must reach the MPI.
  call MPI_Get_processor_name(pname, nlen, ierr)
  if (nlen < 1 .or. nlen /= len_trim(pname)) errors = errors + 1
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'mw_key', 'mw_value', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  value = 'untouched'
  call MPI_Info_get(info, 'mw_key', len(value), value, flag, ierr)
  if (.not. flag .or. value /= 'mw_value' .or. nkeys /= 1) errors = errors + 1
  call MPI_Info_free(info, ierr)

  ! A ring with request arrays: MPI_WAITALL with MPI_STATUSES_IGNORE.
  sendval = 100 + rank
  call MPI_Irecv(recvval, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sendval, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (recvval /= 100 + left) errors = errors + 1

  ! Blocking pairs with MPI_STATUS_IGNORE (the odd rank out talks to MPI_PROC_NULL).
  if (mod(rank, 2) == 0) then
    partner = rank + 1
    if (partner >= nprocs) partner = MPI_PROC_NULL
    call MPI_Send(sendval, 1, MPI_INTEGER, partner, 2, MPI_COMM_WORLD, ierr)
    pairval = -1
    call MPI_Recv(pairval, 1, MPI_INTEGER, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    partner = rank - 1
    call MPI_Recv(pairval, 1, MPI_INTEGER, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(sendval, 1, MPI_INTEGER, partner, 2, MPI_COMM_WORLD, ierr)
  end if
  if (partner /= MPI_PROC_NULL .and. pairval /= 100 + partner) errors = errors + 1

  ! MPI_WAITSOME on an array with one active request: it completes in one call.
  reqs(1) = MPI_REQUEST_NULL
  call MPI_Irecv(recvval, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(2), ierr)
  reqs(3) = MPI_REQUEST_NULL
  call MPI_Send(sendval, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD, ierr)
  call MPI_Waitsome(3, reqs, outcount, indices, statuses, ierr)
  if (outcount /= 1 .or. indices(1) /= 2 .or. recvval /= 100 + left) errors = errors + 1
  if (statuses(MPI_SOURCE, 1) /= left .or. statuses(MPI_TAG, 1) /= 3) errors = errors + 1
  if (reqs(2) /= MPI_REQUEST_NULL) errors = errors + 1

  ! MPI_TESTSOME: operations with MPI_PROC_NULL are complete at once.
  call MPI_Irecv(recvval, 1, MPI_INTEGER, MPI_PROC_NULL, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sendval, 1, MPI_INTEGER, MPI_PROC_NULL, 4, MPI_COMM_WORLD, reqs(2), ierr)
  reqs(3) = MPI_REQUEST_NULL
  call MPI_Testsome(3, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
  if (outcount /= 2 .or. indices(1) + indices(2) /= 3) errors = errors + 1
  call MPI_Testsome(3, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
  if (outcount /= MPI_UNDEFINED) errors = errors + 1

  ! Collectives with MPI_IN_PLACE.
  vals = (/ rank, 1, 2 * rank, 3 /)
  call MPI_Allreduce(MPI_IN_PLACE, vals, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (vals(2) /= nprocs .or. vals(1) /= nprocs * (nprocs - 1) / 2) errors = errors + 1
  vals = (/ rank, 1, 2 * rank, 3 /)
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, vals, 4, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  else
    call MPI_Reduce(vals, scratch, 4, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  end if
  gathered = -1
  mine = rank * rank
  gathered(rank + 1) = mine
  if (rank == 0) then
    call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
  else
    call MPI_Gather(mine, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, &
                    MPI_COMM_WORLD, ierr)
  end if
  total = 0
  if (rank == 0) then
    do i = 1, nprocs
      total = total + gathered(i)
    end do
  end if

  ! MPI_BOTTOM with a datatype of absolute addresses.
  if (rank == 0) then
    abs_a = 4242
    abs_b = 2.5d0
  else
    abs_a = 0
    abs_b = 0d0
  end if
  call MPI_Get_address(abs_a, disps(1), ierr)
  call MPI_Get_address(abs_b, disps(2), ierr)
  blocklens = (/ 1, 1 /)
  types = (/ MPI_INTEGER, MPI_DOUBLE_PRECISION /)
  call MPI_Type_create_struct(2, blocklens, disps, types, newtype, ierr)
  call MPI_Type_commit(newtype, ierr)
  call MPI_Bcast(MPI_BOTTOM, 1, newtype, 0, MPI_COMM_WORLD, ierr)
  call MPI_Type_free(newtype, ierr)
  if (abs_a /= 4242 .or. abs_b /= 2.5d0) errors = errors + 1

  ! MPI_UNWEIGHTED, and a LOGICAL result.
  srcs(1) = left
  dsts(1) = right
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, dsts, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., graph, ierr)
  call MPI_Dist_graph_neighbors_count(graph, indeg, outdeg, weighted, ierr)
  if (indeg /= 1 .or. outdeg /= 1 .or. weighted) errors = errors + 1
  srcs = -1
  dsts = -1
  call MPI_Dist_graph_neighbors(graph, 1, srcs, MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, ierr)
  if (srcs(1) /= left .or. dsts(1) /= right) errors = errors + 1
  call MPI_Comm_free(graph, ierr)

  ! Profiling off: the barrier in between is not counted; MPI_PCONTROL(0) is.
  call MPI_Pcontrol(0)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Pcontrol(1)

  t1 = MPI_Wtime()
  if (t1 < t0) errors = errors + 1
  call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (*, '(a, i0)') 'ranks ', nprocs
    write (*, '(a, 4(1x, i0))') 'reduce max', vals
    write (*, '(a, i0)') 'gather sum ', total
    write (*, '(a, i0)') 'errors ', errors
  end if
  call MPI_Finalize(ierr)
end program usempi
