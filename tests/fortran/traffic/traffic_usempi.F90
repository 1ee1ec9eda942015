! traffic_usempi.F90: the calls of traffic.c through use mpi
! (see traffic_body.inc).
#define STATUS_SOURCE status(MPI_SOURCE)
#define IERR , ierr
program traffic_usempi
  use mpi
  implicit none
  integer :: reqs(4), status(MPI_STATUS_SIZE), win, fh, wtypes(64)
#include "traffic_body.inc"
end program traffic_usempi
