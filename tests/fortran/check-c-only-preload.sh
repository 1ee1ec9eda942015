#!/usr/bin/env bash
# A Fortran program with only libmpiwatch.so preloaded (libmpiwatch_f.so
# forgotten) gets either the full profile (MPICH: its Fortran binding calls
# the C MPI_X, which libmpiwatch wraps) or, when the binding calls PMPI_X
# (Open MPI) and nothing could be profiled, exactly one warning saying to
# load libmpiwatch_f.so: never a silent run without a report. Either way the
# program's output and status are its own.
name=fortran-c-only
. "$(dirname "$0")/../lib/harness.sh"

if [ -z "${MPIFC:-}" ] || ! command -v "${MPIFC%% *}" >/dev/null 2>&1; then
    skip "c-only preload" "no MPI Fortran compiler (MPIFC)"
    finish
fi
if ! $MPIFC -o "$work/c_only" "$top_srcdir/tests/fortran/c_only.f90" >"$work/build.log" 2>&1; then
    fail "build c_only.f90" "$MPIFC could not build it" "$work/build.log"
    finish
fi
run "$work/bare" 2 bare -- "$work/c_only"
run "$work/pre" 2 preload -- "$work/c_only"
if same_output "c-only preload" "$work/pre" "$work/bare"; then
    report=$(reports "$work/pre/cwd" 'mpiwatch-*.json')
    warnings=$(grep -c 'load libmpiwatch_f.so too' "$work/pre/stderr" || true)
    if [ -n "$report" ] && [ "$warnings" -eq 0 ]; then
        calls=$(json_get "$work/pre/cwd/$report" functions MPI_Barrier calls)
        if [ "$calls" = 2 ]; then
            pass "c-only preload: a full report (MPI_Barrier 2 calls), no warning needed"
        else
            fail "c-only preload: report" "MPI_Barrier calls '$calls', expected 2" "$work/pre/stderr"
        fi
    elif [ -z "$report" ] && [ "$warnings" -eq 1 ]; then
        pass "c-only preload: no report, and one warning says to load libmpiwatch_f.so"
    else
        fail "c-only preload" "report '${report:-none}', $warnings warnings naming libmpiwatch_f.so (expected a report, or none and one warning)" \
            "$work/pre/stderr"
    fi
fi
finish
