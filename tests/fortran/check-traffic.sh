#!/usr/bin/env bash
# Fortran programs are measured as their C twins are: traffic_mpif.F90 (mpif.h),
# traffic_usempi.F90 (use mpi) and traffic_f08.F90 (use mpi_f08, ierror
# omitted) make the calls of traffic.c -- blocking, non-blocking and
# persistent point-to-point, collectives with MPI_IN_PLACE and v/w variants,
# one-sided, MPI-IO -- on 1, 2 and 4 ranks, preloaded (both libraries, the
# README's recipe), linked and linked statically. Each report must have the
# C twin's calls, bytes, message sizes, rank pairs and call-site totals,
# exactly (tests/fortran/traffic/compare_traffic.py).
set -eu
. "$(dirname "$0")/../lib/harness.sh"
fortran_or_skip
dir="$top_srcdir/tests/fortran/traffic"
tests="traffic_mpif traffic_usempi"
case "$FORTRAN_LAYERING" in
    *f08:absent*) note "this MPI has no use mpi_f08 module: traffic_f08.F90 is not run" ;;
    *) tests="$tests traffic_f08" ;;
esac
deps=$(sed -n "s/^dependency_libs='\(.*\)'$/\1/p" "$top_builddir/libmpiwatch.la" |
       tr ' ' '\n' | grep '^-l' | tr '\n' ' ' || true)
exec_tap "$top_srcdir/tests/fortran/run-fortran-tests.sh" --mpi "$MPI_FLAVOR" \
    --compiler "$MPIFC" --mpirun "$MPIRUN" --cc "$MPICC" --src "$dir" \
    --lib "$LIBMPIWATCH_F" --lib "$LIBMPIWATCH" --tests "$tests" \
    --static --static-libs "$deps" --twin "$dir/traffic.c" --nps "${MW_NPS:-1 2 4}"
