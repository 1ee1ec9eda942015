#!/bin/sh
# The whole test suite: set-up, then for each MPI (Open MPI and MPICH) an
# out-of-tree build with `make check`, then `make distcheck` once.
#
#   tools/test-all.sh                  everything (what CI runs)
#   MW_MPIS=mpich tools/test-all.sh    one MPI only
#   MW_SKIP_DISTCHECK=1 ...            skip the distcheck
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tools/install-deps.sh
autoreconf -fi > autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }

mpis=${MW_MPIS:-"openmpi mpich"}
jobs=$(nproc 2>/dev/null || echo 2)
failed_mpis=""
for mpi in $mpis; do
    echo "=== $mpi: configure, build, make check"
    command -v "mpicc.$mpi" >/dev/null 2>&1 || { echo "mpicc.$mpi not found"; exit 1; }
    rm -rf "build-$mpi"
    mkdir "build-$mpi"
    if ! (cd "build-$mpi" &&
          ../configure MPICC="mpicc.$mpi" > configure.log 2>&1 &&
          make -j"$jobs" > make.log 2>&1 &&
          make check > check.log 2>&1); then
        failed_mpis="$failed_mpis $mpi"
        for log in configure make check; do
            [ -f "build-$mpi/$log.log" ] && tail -n 40 "build-$mpi/$log.log"
        done
        [ -f "build-$mpi/test-suite.log" ] && cat "build-$mpi/test-suite.log"
    fi
    # One line per case that did not pass (the TAP driver's lines), and the
    # number that did.
    grep -E '^(FAIL|ERROR|SKIP|XPASS)' "build-$mpi/check.log" 2>/dev/null | sed "s/^/  [$mpi] /" || true
    echo "  [$mpi] $(grep -c '^PASS' "build-$mpi/check.log" 2>/dev/null || echo 0) cases passed"
done

distcheck=ok
# The full suites ran above, on every MPI. The tarball's check runs one suite
# of most test directories (enough to catch a file missing from the
# distribution), so that CI stays under 40 minutes. tests/hooks is left out:
# it is distributed whole, and the hook examples it runs are installed, so
# distcheck's own install fails if one is missing. Its build runs in
# parallel, and so do these light suites (none of them measures time).
distcheck_tests="tests/generator/run-unit-tests.sh tests/build/check-exports.sh \
tests/mpi/check-programs.sh tests/cxx/check-cxx.sh \
tests/fortran/check-exports.sh tests/runtime/check-config.sh \
tests/monitor/check-monitor-options.sh tests/client/check-units.sh"
if [ -z "${MW_SKIP_DISTCHECK:-}" ] && [ -z "$failed_mpis" ]; then
    first=$(echo $mpis | cut -d' ' -f1)
    echo "=== make distcheck ($first)"
    if ! (cd "build-$first" &&
          make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS="MPICC=mpicc.$first" \
              TESTS="$distcheck_tests" > distcheck.log 2>&1); then
        distcheck=failed
        tail -n 60 "build-$first/distcheck.log"
    fi
    echo "  distcheck: $distcheck"
fi

# One closing line counting every test case of every suite, on every MPI.
# Each suite reports its cases in TAP, and Automake's TAP driver writes one
# ":test-result: X" line per case into the suite's .trs file (and one more,
# ERROR, when the suite exits with a bad status or its TAP is broken): PASS
# and XFAIL count as passed; FAIL, XPASS and ERROR as failed; SKIP as
# skipped, never as passed. A .trs with no result at all is a failure.
passed=0 failed=0 skipped=0
for trs in $(find $(for m in $mpis; do echo "build-$m"; done) -name '*.trs' -path '*tests*' \
             -not -path '*/mpiwatch-*/*'); do
    set -- $(awk '
        /^:test-result: (PASS|XFAIL)/ { p++ }
        /^:test-result: (FAIL|XPASS|ERROR)/ { f++ }
        /^:test-result: SKIP/ { s++ }
        END { print p + 0, f + 0, s + 0 }' "$trs")
    p=$1 f=$2 s=$3
    [ $((p + f + s)) -gt 0 ] || f=1
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
echo "$skipped skipped (not counted as passed)"
[ "$distcheck" = ok ] || failed=$((failed + 1))
[ -z "$failed_mpis" ] || echo "failed on:$failed_mpis"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ -z "$failed_mpis" ]
