! traffic_f08.F90: the calls of traffic.c through use mpi_f08, without the optional ierror
! (see traffic_body.inc).
#define STATUS_SOURCE status%MPI_SOURCE
#define IERR 
program traffic_f08
  use mpi_f08
  implicit none
  type(MPI_Request) :: reqs(4)
  type(MPI_Status) :: status
  type(MPI_Win) :: win
  type(MPI_File) :: fh
  type(MPI_Datatype) :: wtypes(64)
#include "traffic_body.inc"
end program traffic_f08
