! layering.f: which Fortran calls reach the C layer (see check-layering.sh).
! MPI is started and finished through the C API (layering_c.c), so that the
! C library alone writes a report; in between, the Fortran binding is called
! through mpif.h: MPI_COMM_RANK three times, MPI_SEND twice.
      program layering
      implicit none
      include 'mpif.h'
      integer ierr, rank, i, buf(1)
      call mw_c_init()
      do i = 1, 3
        call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      end do
      buf(1) = rank
      do i = 1, 2
        call MPI_SEND(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 0,
     &                MPI_COMM_WORLD, ierr)
      end do
      if (rank .eq. 0) write (*, '(a)') 'layering mpif'
      call mw_c_finalize()
      end
