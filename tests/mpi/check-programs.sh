#!/usr/bin/env bash
# The MPI test programs, bare, preloaded and linked, on 1, 2 and 4 ranks:
# same results with and without mpiwatch, and exact counts in the report.
set -eu
. "$(dirname "$0")/../lib/harness.sh"
exec_tap "$top_srcdir/tests/mpi/run-mpi-tests.sh" --mpi "$MPI_FLAVOR" --mpicc "$MPICC" \
    --mpirun "$MPIRUN" --lib "$LIBMPIWATCH" --nps "${MW_NPS:-1 2 4}"
