#!/usr/bin/env bash
# libmpiwatch_f.so exports exactly the Fortran entry points the Fortran
# coverage report calls wrapped (every mpif.h/use mpi one in its four
# spellings), nothing of its internals, no profiling entry point (pmpi_x_)
# and no C function name.
set -eu
. "$(dirname "$0")/../lib/harness.sh"
fortran_or_skip
lib=$LIBMPIWATCH_F
coverage="$top_builddir/generated/fortran-coverage.txt"
c_coverage="$top_builddir/generated/coverage.txt"
tmp=$work

# The names between [ ] on the wrapped lines.
awk '!/^#/ && $3 == "wrapped"' "$coverage" |
    sed 's/.*\[\(.*\)\].*/\1/' | tr ' ' '\n' | sed '/^$/d' | sort > "$tmp/wrapped"
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" { print $3 }' |
    grep -Ev '^(_init|_fini)$' | sort > "$tmp/exported"

if ! cmp -s "$tmp/wrapped" "$tmp/exported"; then
    diff "$tmp/wrapped" "$tmp/exported" | head -20 >"$tmp/diff" || true
    fail "exported symbols are the wrapped entry points" "they differ (< wrapped, > exported)" "$tmp/diff"
else
    pass "exported symbols are the wrapped entry points"
fi
if grep -E '^(pmpi|PMPI)' "$tmp/exported" | head >"$tmp/pmpi" && [ -s "$tmp/pmpi" ]; then
    fail "libmpiwatch_f defines no profiling entry point" "it does" "$tmp/pmpi"
else
    pass "libmpiwatch_f defines no profiling entry point"
fi
awk '!/^#/ { print $1 }' "$c_coverage" | sort > "$tmp/c-names"
if comm -12 "$tmp/c-names" "$tmp/exported" | head >"$tmp/c-defined" && [ -s "$tmp/c-defined" ]; then
    fail "libmpiwatch_f defines no C function name" "it does" "$tmp/c-defined"
else
    pass "libmpiwatch_f defines no C function name"
fi
# Every mpif.h entry point: mpi_x, mpi_x_, mpi_x__ and MPI_X.
awk '!/^#/ && $1 == "mpif" && $3 == "wrapped"' "$coverage" |
    sed 's/.*\[\(.*\)\].*/\1/' > "$tmp/mpif"
awk 'NF != 4 || $2 != $1 "_" || $3 != $1 "__" || $4 != toupper($1)' "$tmp/mpif" | head -5 >"$tmp/bad"
if [ -s "$tmp/bad" ]; then
    fail "mpif.h entry points in their four spellings" "some are not" "$tmp/bad"
else
    pass "mpif.h entry points in their four spellings"
fi
mpif=$(wc -l < "$tmp/mpif")
f08=$(awk '!/^#/ && $1 == "f08" && $3 == "wrapped"' "$coverage" | wc -l)
note "libmpiwatch_f ($MPI_FLAVOR): $mpif mpif.h/use mpi entry points (x4 spellings)," \
     "$f08 use mpi_f08 entry points, $(wc -l < "$tmp/exported") symbols exported"
grep '^# .*strategy' "$coverage" | sed 's/^# /#   /' || true
if [ "$mpif" -gt 100 ]; then
    pass "more than 100 mpif.h entry points ($mpif)"
else
    fail "more than 100 mpif.h entry points" "only $mpif"
fi
finish
