#!/usr/bin/env bash
# C++ programs under mpiwatch, on 1, 2 and 4 ranks, bare, preloaded and
# linked with libmpiwatch alone: capi.cpp calls the C API from C++;
# cxxbind.cpp uses the MPI C++ bindings where the MPI ships them (Open MPI's
# libmpi_cxx, MPICH's mpicxx.h and libmpichcxx), which are layered on the C
# functions. Same output as the bare run, every call counted once, as its C
# function (the *.expect files; NAME.openmpi.expect where Open MPI's binding
# makes C calls of its own).
set -eu
. "$(dirname "$0")/../lib/harness.sh"
if [ -z "${MPICXX:-}" ]; then
    skip_all "no MPI C++ compiler wrapper (configure found no MPICXX)"
fi
tests="capi"
probe=$work
printf '#include <mpi.h>\nint main(int c, char **v) { MPI::Init(c, v); MPI::Finalize(); return 0; }\n' \
    > "$probe/bindings.cpp"
if $MPICXX -o "$probe/bindings" "$probe/bindings.cpp" >"$probe/log" 2>&1; then
    tests="$tests cxxbind"
else
    note "$MPICXX has no MPI C++ bindings: cxxbind.cpp is not run"
fi
exec_tap "$top_srcdir/tests/fortran/run-fortran-tests.sh" --mpi "$MPI_FLAVOR" --compiler "$MPICXX" \
    --mpirun "$MPIRUN" --lib "$LIBMPIWATCH" --src "$top_srcdir/tests/cxx" --tests "$tests" \
    --nps "${MW_NPS:-1 2 4}"
