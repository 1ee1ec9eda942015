#!/bin/sh
# Build mpiwatch and profile a small MPI program with it: set-up, configure
# and build against Open MPI (or MPICH, or MW_MPI=...), run examples/ring.c
# on 4 ranks with libmpiwatch preloaded, and show the report it wrote; then
# the Fortran example examples/halo.f90, with both libraries preloaded.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
# Only what building and running need (the test command installs the rest).
tools/install-deps.sh --demo

mpi=${MW_MPI:-}
if [ -z "$mpi" ]; then
    for candidate in openmpi mpich; do
        command -v "mpicc.$candidate" >/dev/null 2>&1 && { mpi=$candidate; break; }
    done
fi
[ -n "$mpi" ] || { echo "demo: no MPI found (mpicc.openmpi or mpicc.mpich)" >&2; exit 1; }
command -v "mpicc.$mpi" >/dev/null 2>&1 || {
    echo "demo: MW_MPI=$mpi, but there is no mpicc.$mpi (for MPICH: apt-get install libmpich-dev mpich)" >&2
    exit 1; }

echo "=== building mpiwatch for $mpi in build-$mpi/ (log: build-$mpi/make.log)"
autoreconf -fi > autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }
mkdir -p "build-$mpi"
cd "build-$mpi"
../configure MPICC="mpicc.$mpi" > configure.log 2>&1 || { tail -n 30 configure.log; exit 1; }
make -j"$(nproc 2>/dev/null || echo 2)" > make.log 2>&1 || { tail -n 30 make.log; exit 1; }
sed -n 's/^# Coverage of /coverage of /p' generated/coverage.txt

echo "=== running examples/ring.c on 4 ranks under mpiwatch"
out=$(pwd)/demo-report
rm -rf "$out"
mkdir -p "$out"
# -g: the report's call sites get their file:line.
"mpicc.$mpi" -g -o ring ../examples/ring.c
MPI_FLAVOR=$mpi MPIRUN="mpirun.$mpi"
export MPI_FLAVOR MPIRUN
. ../tests/lib/launch.sh
mw_launch 4 LD_PRELOAD="$(pwd)/.libs/libmpiwatch.so" MPIWATCH_OUTDIR="$out" -- ./ring 1000

echo "=== the text report ($(ls "$out"/mpiwatch-*.txt))"
cat "$out"/mpiwatch-*.txt
echo "=== and the JSON report for tools: $(ls "$out"/mpiwatch-*.json) (docs/report-format.md)"

if [ -f .libs/libmpiwatch_f.so ] && command -v "mpif90.$mpi" >/dev/null 2>&1; then
    echo "=== running the Fortran example examples/halo.f90 on 4 ranks (libmpiwatch_f preloaded too)"
    fout=$(pwd)/demo-report-fortran
    rm -rf "$fout"
    mkdir -p "$fout"
    "mpif90.$mpi" -g -o halo ../examples/halo.f90
    mw_launch 4 LD_PRELOAD="$(pwd)/.libs/libmpiwatch.so:$(pwd)/.libs/libmpiwatch_f.so" \
        MPIWATCH_OUTDIR="$fout" -- ./halo 200
    echo "=== its report's functions ($(ls "$fout"/mpiwatch-*.txt)): the same bytes and pairs as C"
    sed -n '/^MPI functions by time/,/^$/p' "$fout"/mpiwatch-*.txt
fi
