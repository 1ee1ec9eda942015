#!/usr/bin/env bash
# The Fortran test programs through mpif.h (mpif.f), use mpi (usempi.f90) and
# use mpi_f08 (f08.f90, when the MPI has that module; f08large.f90, its
# large-count calls, when the module has them) on 1, 2 and 4 ranks:
# bare, preloaded (libmpiwatch_f and libmpiwatch, LD_BIND_NOW=1), linked, and
# linked statically in the classic order (app -lmpiwatch_f -lmpiwatch, then
# the MPI's libraries): the same output as the bare run and exact counts in
# the report. Then passthrough.f90: the sentinels and the strings' hidden
# lengths reach the MPI's Fortran binding exactly as the program passed them.
set -eu
. "$(dirname "$0")/../lib/harness.sh"
fortran_or_skip
tests="mpif usempi"
case "$FORTRAN_LAYERING" in
    *f08:absent*) note "this MPI has no use mpi_f08 module: f08.f90 is not run" ;;
    *) tests="$tests f08"
       # Large-count f08 calls (MPI 4.0), where the module has them.
       probe=$work/probe; mkdir -p "$probe"
       if $MPIFC -o "$probe/f08large" "$top_srcdir/tests/fortran/f08large.f90" \
           >"$probe/log" 2>&1; then
           tests="$tests f08large"
       else
           note "this MPI's mpi_f08 has no large-count procedures: f08large.f90 is not run"
       fi
       rm -rf "$probe" ;;
esac
# What the static archives need besides the MPI (libtool's dependency_libs).
deps=$(sed -n "s/^dependency_libs='\(.*\)'$/\1/p" "$top_builddir/libmpiwatch.la" |
       tr ' ' '\n' | grep '^-l' | tr '\n' ' ' || true)
exec_tap "$top_srcdir/tests/fortran/run-fortran-tests.sh" --mpi "$MPI_FLAVOR" \
    --compiler "$MPIFC" --mpirun "$MPIRUN" --cc "$MPICC" \
    --lib "$LIBMPIWATCH_F" --lib "$LIBMPIWATCH" --tests "$tests" \
    --static --static-libs "$deps" --passthrough passthrough --nps "${MW_NPS:-1 2 4}"
