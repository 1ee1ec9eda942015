! mpif.f: the mpif.h binding, in fixed form, under mpiwatch. Every rank
! makes the same calls (partnerless operations use MPI_PROC_NULL), checks
! what it receives, and rank 0 prints a summary that is the same on every
! run with the same rank count. Covers: MPI_INIT without argc/argv,
! MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_IN_PLACE, MPI_BOTTOM with an
! absolute-address datatype, MPI_UNWEIGHTED, request arrays (MPI_WAITALL,
! MPI_WAITSOME, MPI_TESTSOME), strings with hidden lengths
! (MPI_GET_PROCESSOR_NAME, MPI_INFO_SET/GET, MPI_COMM_SET/GET_NAME),
! LOGICAL results, MPI_WTIME. mpif.expect lists the calls. Without
! interfaces, gfortran 10 and later need -fallow-argument-mismatch:
! mw-flags: -fallow-argument-mismatch
      program mpif
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, left, right, errors
      integer sendval, recvval, pairval, partner, nlen, info, nkeys
      integer reqs(3), indices(3), outcount
      integer statuses(MPI_STATUS_SIZE, 3)
      integer vals(4), scratch(4), gathered(64), mine, i, total
      integer graph, indeg, outdeg, srcs(1), dsts(1), newtype
      integer blocklens(2), types(2), dup
      integer(kind=MPI_ADDRESS_KIND) disps(2)
      logical flag, weighted
      double precision t0, t1
      character*(MPI_MAX_PROCESSOR_NAME) pname
      character*(MPI_MAX_OBJECT_NAME) cname
      character*32 value
! Reached only through MPI_BOTTOM: in a common block, so the compiler
! reloads them after each call.
      integer abs_a
      double precision abs_b
      common /mwabs/ abs_b, abs_a

      errors = 0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
      left = mod(rank - 1 + nprocs, nprocs)
      right = mod(rank + 1, nprocs)
      call MPI_INITIALIZED(flag, ierr)
      if (.not. flag) errors = errors + 1
      t0 = MPI_WTIME()

! Strings: the hidden lengths must reach the MPI.
      call MPI_GET_PROCESSOR_NAME(pname, nlen, ierr)
      if (nlen .lt. 1 .or. nlen .ne. len_trim(pname))
     &    errors = errors + 1
      call MPI_INFO_CREATE(info, ierr)
      call MPI_INFO_SET(info, 'mw_key', 'mw_value', ierr)
      call MPI_INFO_GET_NKEYS(info, nkeys, ierr)
      value = 'untouched'
      call MPI_INFO_GET(info, 'mw_key', len(value), value, flag, ierr)
      if (.not. flag .or. value .ne. 'mw_value' .or. nkeys .ne. 1)
     &    errors = errors + 1
      call MPI_INFO_FREE(info, ierr)
      call MPI_COMM_DUP(MPI_COMM_WORLD, dup, ierr)
      call MPI_COMM_SET_NAME(dup, 'mw comm', ierr)
      call MPI_COMM_GET_NAME(dup, cname, nlen, ierr)
      if (cname .ne. 'mw comm' .or. nlen .ne. 7) errors = errors + 1
      call MPI_COMM_FREE(dup, ierr)

! A ring with request arrays: MPI_WAITALL with MPI_STATUSES_IGNORE.
      sendval = 100 + rank
      call MPI_IRECV(recvval, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD,
     &               reqs(1), ierr)
      call MPI_ISEND(sendval, 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
      if (recvval .ne. 100 + left) errors = errors + 1

! Blocking pairs with MPI_STATUS_IGNORE (the odd rank out: MPI_PROC_NULL).
      if (mod(rank, 2) .eq. 0) then
        partner = rank + 1
        if (partner .ge. nprocs) partner = MPI_PROC_NULL
        call MPI_SEND(sendval, 1, MPI_INTEGER, partner, 2,
     &                MPI_COMM_WORLD, ierr)
        pairval = -1
        call MPI_RECV(pairval, 1, MPI_INTEGER, partner, 2,
     &                MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      else
        partner = rank - 1
        call MPI_RECV(pairval, 1, MPI_INTEGER, partner, 2,
     &                MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_SEND(sendval, 1, MPI_INTEGER, partner, 2,
     &                MPI_COMM_WORLD, ierr)
      end if
      if (partner .ne. MPI_PROC_NULL .and. pairval .ne. 100 + partner)
     &    errors = errors + 1

! MPI_WAITSOME on an array with one active request: one call completes it.
      reqs(1) = MPI_REQUEST_NULL
      call MPI_IRECV(recvval, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD,
     &               reqs(2), ierr)
      reqs(3) = MPI_REQUEST_NULL
      call MPI_SEND(sendval, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD,
     &              ierr)
      call MPI_WAITSOME(3, reqs, outcount, indices, statuses, ierr)
      if (outcount .ne. 1 .or. indices(1) .ne. 2
     &    .or. recvval .ne. 100 + left) errors = errors + 1
      if (statuses(MPI_SOURCE, 1) .ne. left
     &    .or. statuses(MPI_TAG, 1) .ne. 3) errors = errors + 1

! MPI_TESTSOME: operations with MPI_PROC_NULL are complete at once.
      call MPI_IRECV(recvval, 1, MPI_INTEGER, MPI_PROC_NULL, 4,
     &               MPI_COMM_WORLD, reqs(1), ierr)
      call MPI_ISEND(sendval, 1, MPI_INTEGER, MPI_PROC_NULL, 4,
     &               MPI_COMM_WORLD, reqs(2), ierr)
      reqs(3) = MPI_REQUEST_NULL
      call MPI_TESTSOME(3, reqs, outcount, indices,
     &                  MPI_STATUSES_IGNORE, ierr)
      if (outcount .ne. 2 .or. indices(1) + indices(2) .ne. 3)
     &    errors = errors + 1

! Collectives with MPI_IN_PLACE.
      vals(1) = rank
      vals(2) = 1
      vals(3) = 2 * rank
      vals(4) = 3
      call MPI_ALLREDUCE(MPI_IN_PLACE, vals, 4, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (vals(2) .ne. nprocs .or. vals(1) .ne. nprocs*(nprocs-1)/2)
     &    errors = errors + 1
      vals(1) = rank
      vals(2) = 1
      vals(3) = 2 * rank
      vals(4) = 3
      if (rank .eq. 0) then
        call MPI_REDUCE(MPI_IN_PLACE, vals, 4, MPI_INTEGER, MPI_MAX, 0,
     &                  MPI_COMM_WORLD, ierr)
      else
        call MPI_REDUCE(vals, scratch, 4, MPI_INTEGER, MPI_MAX, 0,
     &                  MPI_COMM_WORLD, ierr)
      end if
      do i = 1, 64
        gathered(i) = -1
      end do
      mine = rank * rank
      gathered(rank + 1) = mine
      if (rank .eq. 0) then
        call MPI_GATHER(MPI_IN_PLACE, 1, MPI_INTEGER, gathered, 1,
     &                  MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      else
        call MPI_GATHER(mine, 1, MPI_INTEGER, gathered, 1,
     &                  MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
      end if
      total = 0
      if (rank .eq. 0) then
        do i = 1, nprocs
          total = total + gathered(i)
        end do
      end if

! MPI_BOTTOM with a datatype of absolute addresses.
      if (rank .eq. 0) then
        abs_a = 4242
        abs_b = 2.5d0
      else
        abs_a = 0
        abs_b = 0d0
      end if
      call MPI_GET_ADDRESS(abs_a, disps(1), ierr)
      call MPI_GET_ADDRESS(abs_b, disps(2), ierr)
      blocklens(1) = 1
      blocklens(2) = 1
      types(1) = MPI_INTEGER
      types(2) = MPI_DOUBLE_PRECISION
      call MPI_TYPE_CREATE_STRUCT(2, blocklens, disps, types, newtype,
     &                            ierr)
      call MPI_TYPE_COMMIT(newtype, ierr)
      call MPI_BCAST(MPI_BOTTOM, 1, newtype, 0, MPI_COMM_WORLD, ierr)
      call MPI_TYPE_FREE(newtype, ierr)
      if (abs_a .ne. 4242 .or. abs_b .ne. 2.5d0) errors = errors + 1

! MPI_UNWEIGHTED, and a LOGICAL result.
      srcs(1) = left
      dsts(1) = right
      call MPI_DIST_GRAPH_CREATE_ADJACENT(MPI_COMM_WORLD, 1, srcs,
     &     MPI_UNWEIGHTED, 1, dsts, MPI_UNWEIGHTED, MPI_INFO_NULL,
     &     .false., graph, ierr)
      call MPI_DIST_GRAPH_NEIGHBORS_COUNT(graph, indeg, outdeg,
     &                                    weighted, ierr)
      if (indeg .ne. 1 .or. outdeg .ne. 1 .or. weighted)
     &    errors = errors + 1
      call MPI_COMM_FREE(graph, ierr)

      t1 = MPI_WTIME()
      if (t1 .lt. t0) errors = errors + 1
      call MPI_ALLREDUCE(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (rank .eq. 0) then
        write (*, '(a, i0)') 'ranks ', nprocs
        write (*, '(a, 4(1x, i0))') 'reduce max', vals
        write (*, '(a, i0)') 'gather sum ', total
        write (*, '(a, i0)') 'errors ', errors
      end if
      call MPI_FINALIZE(ierr)
      end
