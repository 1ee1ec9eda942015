! passthrough.f90: the sentinels and strings reach the MPI's Fortran binding
! exactly as the program passed them. The program calls mpiwatch's Fortran
! entry points without MPI_INIT; passthrough.c stands in for the MPI's
! Fortran profiling entry points (pmpi_x_, which the entry points forward
! to) and checks that each argument is the very address the program passed
! (mw_expect records it) and that each hidden string length is intact.
! Run only with mpiwatch linked or preloaded, as a plain program.
program passthrough
  use mpi
  implicit none
  integer :: ierr, inter, graph, info, buf(4), reqs(2), srcs(1), np1(1), infos(1)
  character(len=11) :: commands(1)

  buf = 0
  reqs = MPI_REQUEST_NULL
  srcs = 0
  np1 = 1
  infos = MPI_INFO_NULL
  info = MPI_INFO_NULL
  commands(1) = 'mw_child'

  call mw_expect(1, loc(MPI_IN_PLACE), -1)
  call MPI_Allreduce(MPI_IN_PLACE, buf, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call mw_expect(2, loc(MPI_BOTTOM), -1)
  call MPI_Bcast(MPI_BOTTOM, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call mw_expect(3, loc(MPI_STATUS_IGNORE), -1)
  call MPI_Recv(buf, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call mw_expect(4, loc(MPI_STATUSES_IGNORE), -1)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call mw_expect(5, loc(MPI_ARGV_NULL), len(MPI_ARGV_NULL))
  call mw_expect(6, loc(MPI_ERRCODES_IGNORE), -1)
  call MPI_Comm_spawn('mw_child', MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &
                      inter, MPI_ERRCODES_IGNORE, ierr)
  call mw_expect(7, loc(MPI_ARGVS_NULL), len(MPI_ARGVS_NULL))
  call MPI_Comm_spawn_multiple(1, commands, MPI_ARGVS_NULL, np1, infos, 0, MPI_COMM_WORLD, &
                               inter, MPI_ERRCODES_IGNORE, ierr)
  call mw_expect(8, loc(MPI_UNWEIGHTED), -1)
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, srcs, MPI_UNWEIGHTED, 1, srcs, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .true., graph, ierr)
  call MPI_Info_set(info, 'mw_key', 'a longer value', ierr)
  call mw_passthrough_report()
end program passthrough
