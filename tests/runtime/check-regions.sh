#!/usr/bin/env bash
# Named regions (mpiwatch_region_begin/end) from C and from Fortran: the
# report's "regions" hold each region's entries and MPI calls, nested
# regions count in their parents, and trailing blanks of a Fortran name
# are not part of it.
name=regions
. "$(dirname "$0")/../lib/harness.sh"

NP=2

# check_regions CASE OUTDIR: the report in OUTDIR has the three regions.
check_regions() {
    local case=$1 out=$2 report got want region
    report=$(reports "$out" 'mpiwatch-*.json')
    if [ "$(printf '%s\n' "$report" | grep -c .)" -ne 1 ]; then
        fail "$case" "expected one JSON report in $out, found: ${report:-none}"
        return
    fi
    for region in "setup 5" "solve 9" "inner 2"; do
        set -- $region
        want="$NP $NP $(($2 * NP))"
        got="$(json_get "$out/$report" regions "$1" ranks) $(json_get "$out/$report" regions "$1" entries) $(json_get "$out/$report" regions "$1" calls)"
        if [ "$got" = "$want" ]; then
            pass "$case: region $1 (ranks, entries, calls = $got)"
        else
            fail "$case: region $1" "ranks, entries, calls: expected $want, got $got"
        fi
    done
    got=$(json_get "$out/$report" regions | "$PYTHON" -c 'import json,sys; print(len(json.load(sys.stdin)))')
    [ "$got" = 3 ] && pass "$case: no other region" || fail "$case: no other region" "$got regions"
}

build "$rt_dir/regions.c" "$work/regions" linked
mkdir -p "$work/c/out" "$work/f/out"
run "$work/c" "$NP" linked MPIWATCH_OUTDIR="$work/c/out" -- "$work/regions"
check_regions "C" "$work/c/out"

if [ -z "${MPIFC:-}" ] || ! command -v "${MPIFC%% *}" >/dev/null 2>&1; then
    skip "Fortran" "no MPI Fortran compiler (MPIFC)"
elif [ ! -e "$libdir/libmpiwatch_f.so" ]; then
    skip "Fortran" "libmpiwatch_f was not built"
# Fortran programs link the Fortran entry points too (docs/fortran.md): on
# Open MPI the Fortran binding calls PMPI_ directly.
elif ! $MPIFC -o "$work/regions_f" "$rt_dir/regions.f90" -L"$libdir" -lmpiwatch_f -lmpiwatch \
        "-Wl,-rpath,$libdir" >"$work/regions_f.log" 2>&1; then
    fail "Fortran build" "$MPIFC could not build regions.f90" "$work/regions_f.log"
else
    run "$work/f" "$NP" linked MPIWATCH_OUTDIR="$work/f/out" -- "$work/regions_f"
    check_regions "Fortran" "$work/f/out"
fi
finish
