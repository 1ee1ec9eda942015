#!/bin/sh
# libmpiwatch_f.so exports exactly the Fortran entry points the Fortran
# coverage report calls wrapped (every mpif.h/use mpi one in its four
# spellings), nothing of its internals, no profiling entry point (pmpi_x_)
# and no C function name.
set -eu
lib="${LIBMPIWATCH_F:?LIBMPIWATCH_F is not set}"
coverage="$top_builddir/generated/fortran-coverage.txt"
c_coverage="$top_builddir/generated/coverage.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The names between [ ] on the wrapped lines.
awk '!/^#/ && $3 == "wrapped"' "$coverage" |
    sed 's/.*\[\(.*\)\].*/\1/' | tr ' ' '\n' | sed '/^$/d' | sort > "$tmp/wrapped"
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" { print $3 }' |
    grep -Ev '^(_init|_fini)$' | sort > "$tmp/exported"

status=0
if ! cmp -s "$tmp/wrapped" "$tmp/exported"; then
    echo "FAIL: exported symbols differ from the wrapped entry points (< wrapped, > exported):"
    diff "$tmp/wrapped" "$tmp/exported" | head -20
    status=1
fi
if grep -Eq '^(pmpi|PMPI)' "$tmp/exported"; then
    echo "FAIL: libmpiwatch_f defines profiling entry points:"
    grep -E '^(pmpi|PMPI)' "$tmp/exported" | head
    status=1
fi
awk '!/^#/ { print $1 }' "$c_coverage" | sort > "$tmp/c-names"
if comm -12 "$tmp/c-names" "$tmp/exported" | grep -q .; then
    echo "FAIL: libmpiwatch_f defines C function names:"
    comm -12 "$tmp/c-names" "$tmp/exported" | head
    status=1
fi
# Every mpif.h entry point: mpi_x, mpi_x_, mpi_x__ and MPI_X.
awk '!/^#/ && $1 == "mpif" && $3 == "wrapped"' "$coverage" |
    sed 's/.*\[\(.*\)\].*/\1/' > "$tmp/mpif"
bad=$(awk 'NF != 4 || $2 != $1 "_" || $3 != $1 "__" || $4 != toupper($1)' "$tmp/mpif" | head -5)
if [ -n "$bad" ]; then
    echo "FAIL: mpif.h entry points not in their four spellings:"
    echo "$bad"
    status=1
fi
mpif=$(wc -l < "$tmp/mpif")
f08=$(awk '!/^#/ && $1 == "f08" && $3 == "wrapped"' "$coverage" | wc -l)
echo "libmpiwatch_f ($MPI_FLAVOR): $mpif mpif.h/use mpi entry points (x4 spellings)," \
     "$f08 use mpi_f08 entry points, $(wc -l < "$tmp/exported") symbols exported"
grep '^# .*strategy' "$coverage" | sed 's/^# /  /'
[ "$mpif" -gt 100 ] || { echo "FAIL: only $mpif mpif.h entry points"; status=1; }
exit $status
