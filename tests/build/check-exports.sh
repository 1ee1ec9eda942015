#!/bin/sh
# libmpiwatch.so exports exactly the functions the coverage report calls
# wrapped, plus the public mpiwatch_* API, and nothing of its internals.
set -eu
lib="${LIBMPIWATCH:?LIBMPIWATCH is not set}"
coverage="$top_builddir/generated/coverage.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status_of() { awk -v s="$1" '!/^#/ && $2 == s { print $1 }' "$coverage"; }
status_of wrapped | sort > "$tmp/wrapped"
nm -D --defined-only "$lib" | awk '$2 == "T" || $2 == "W" { print $3 }' | sort > "$tmp/exported"
grep -E '^P?MPIX?_' "$tmp/exported" > "$tmp/exported-mpi" || true

status=0
if ! cmp -s "$tmp/wrapped" "$tmp/exported-mpi"; then
    echo "FAIL: exported MPI functions differ from the wrapped ones (< wrapped, > exported):"
    diff "$tmp/wrapped" "$tmp/exported-mpi" | head -20
    status=1
fi
if grep -Ev '^(P?MPIX?_|mpiwatch_|MPIWATCH_)' "$tmp/exported" > "$tmp/leaked"; then
    echo "FAIL: internal symbols are exported:"
    head -20 "$tmp/leaked"
    status=1
fi
if grep -q '^PMPI_' "$tmp/exported-mpi"; then
    echo "FAIL: libmpiwatch must not define PMPI_ functions"
    status=1
fi
wrapped=$(wc -l < "$tmp/wrapped")
echo "$wrapped MPI functions wrapped and exported ($MPI_FLAVOR):" \
     "$(status_of macro | wc -l) macro, $(status_of absent | wc -l) absent," \
     "$(status_of missing | wc -l) missing"
[ "$wrapped" -gt 100 ] || { echo "FAIL: only $wrapped functions wrapped"; status=1; }
exit $status
