! traffic_mpif.F90: the calls of traffic.c through mpif.h
! (see traffic_body.inc). mpif.h declares no interfaces, so gfortran must be
! told that one routine takes buffers of several types:
! mw-flags: -fallow-argument-mismatch
#define STATUS_SOURCE status(MPI_SOURCE)
#define IERR , ierr
program traffic_mpif
  implicit none
  include 'mpif.h'
  integer :: reqs(4), status(MPI_STATUS_SIZE), win, fh, wtypes(64)
#include "traffic_body.inc"
end program traffic_mpif
