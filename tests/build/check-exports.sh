#!/usr/bin/env bash
# libmpiwatch.so exports exactly the functions the coverage report calls
# wrapped, plus the public mpiwatch_* API, and nothing of its internals.
set -eu
. "$(dirname "$0")/../lib/harness.sh"
lib=$LIBMPIWATCH
coverage="$top_builddir/generated/coverage.txt"
tmp=$work

status_of() { awk -v s="$1" '!/^#/ && $2 == s { print $1 }' "$coverage"; }
status_of wrapped | sort > "$tmp/wrapped"
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" { print $3 }' | sort > "$tmp/exported"
grep -E '^P?MPIX?_' "$tmp/exported" > "$tmp/exported-mpi" || true

if ! cmp -s "$tmp/wrapped" "$tmp/exported-mpi"; then
    diff "$tmp/wrapped" "$tmp/exported-mpi" | head -20 >"$tmp/diff" || true
    fail "exported MPI functions are the wrapped ones" "they differ (< wrapped, > exported)" "$tmp/diff"
else
    pass "exported MPI functions are the wrapped ones"
fi
if grep -Ev '^(P?MPIX?_|mpiwatch_|MPIWATCH_)' "$tmp/exported" > "$tmp/leaked"; then
    head -20 "$tmp/leaked" >"$tmp/leaked20"
    fail "no internal symbol is exported" "internal symbols are exported" "$tmp/leaked20"
else
    pass "no internal symbol is exported"
fi
if grep -q '^PMPI_' "$tmp/exported-mpi"; then
    fail "libmpiwatch defines no PMPI_ function" "it does"
else
    pass "libmpiwatch defines no PMPI_ function"
fi
wrapped=$(wc -l < "$tmp/wrapped")
note "$wrapped MPI functions wrapped and exported ($MPI_FLAVOR):" \
     "$(status_of macro | wc -l) macro, $(status_of absent | wc -l) absent," \
     "$(status_of missing | wc -l) missing"
if [ "$wrapped" -gt 100 ]; then
    pass "more than 100 functions wrapped ($wrapped)"
else
    fail "more than 100 functions wrapped" "only $wrapped functions wrapped"
fi
finish
