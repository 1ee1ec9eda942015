#!/bin/sh
# The whole test suite: set-up, then for each MPI (Open MPI and MPICH) an
# out-of-tree build with `make check`, both MPIs side by side, and
# `make distcheck` once (after the first MPI's suite, beside the other's).
# Ends with every suite's wall time, slowest first, the figures the suites
# measured, and the closing line `N passed, M failed` (test cases, both MPIs).
#
#   tools/test-all.sh                  everything (what CI runs)
#   MW_MPIS=mpich tools/test-all.sh    one MPI only
#   MW_SERIAL=1 ...                    one MPI after the other
#   MW_SKIP_DISTCHECK=1 ...            skip the distcheck
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tools/install-deps.sh
autoreconf -fi > autoreconf.log 2>&1 || { cat autoreconf.log; exit 1; }

mpis=${MW_MPIS:-"openmpi mpich"}
jobs=$(nproc 2>/dev/null || echo 2)
for mpi in $mpis; do
    command -v "mpicc.$mpi" >/dev/null 2>&1 || { echo "mpicc.$mpi not found"; exit 1; }
done
started=$(date +%s)

first=$(echo $mpis | cut -d' ' -f1)

# suite MPI: configure, build and check in build-MPI; its status in
# build-MPI/status (0 when all of it passed). The suites whose verdict does
# not depend on the MPI (Makefile.am: MPI_INDEPENDENT_TESTS) run with the
# first MPI only.
suite() {
    (
        rm -rf "build-$1" && mkdir "build-$1" && cd "build-$1" || exit 1
        s=$(date +%s)
        ../configure MPICC="mpicc.$1" > configure.log 2>&1 &&
            make -j"$jobs" > make.log 2>&1 &&
            echo "$(( $(date +%s) - s ))" > build.seconds &&
            if [ "$1" = "$first" ]; then
                make check > check.log 2>&1
            else
                make check TESTS="$(make -s print-mpi-tests | tr '\n' ' ')" > check.log 2>&1
            fi
        echo $? > status
    )
}

# report MPI: what did not pass in build-MPI, and how many cases passed.
report() {
    st=$(cat "build-$1/status" 2>/dev/null || echo 1)
    if [ "$st" -ne 0 ]; then
        for log in configure make check; do
            [ -f "build-$1/$log.log" ] && tail -n 40 "build-$1/$log.log"
        done
        [ -f "build-$1/test-suite.log" ] && cat "build-$1/test-suite.log"
    fi
    # One line per case that did not pass (the TAP driver's lines), and the
    # number that did.
    grep -E '^(FAIL|ERROR|SKIP|XPASS)' "build-$1/check.log" 2>/dev/null | sed "s/^/  [$1] /" || true
    echo "  [$1] $(grep -c '^PASS' "build-$1/check.log" 2>/dev/null || echo 0) cases passed" \
         "(build $(cat "build-$1/build.seconds" 2>/dev/null || echo '?') s)"
    return "$st"
}

# The tarball's check (make distcheck) runs one suite of most test
# directories: the full suites run on every MPI, and these are enough to
# catch a file missing from the distribution. tests/hooks is left out: it is
# distributed whole, and the hook examples it runs are installed, so
# distcheck's own install fails if one is missing. Its build runs in
# parallel, and so do these light suites.
distcheck_tests="tests/generator/run-unit-tests.sh tests/build/check-exports.sh \
tests/mpi/check-programs.sh tests/cxx/check-cxx.sh \
tests/fortran/check-exports.sh tests/runtime/check-config.sh \
tests/monitor/check-monitor-options.sh tests/client/check-units.sh"

# distcheck MPI: make distcheck in build-MPI, once its suite has passed; its
# status in build-MPI/distcheck.status, its time in distcheck.seconds.
distcheck() {
    [ -z "${MW_SKIP_DISTCHECK:-}" ] || return 0
    [ "$(cat "build-$1/status" 2>/dev/null)" = 0 ] || return 0
    s=$(date +%s)
    (cd "build-$1" &&
     make -j"$jobs" distcheck DISTCHECK_CONFIGURE_FLAGS="MPICC=mpicc.$1" \
         TESTS="$distcheck_tests" > distcheck.log 2>&1)
    echo $? > "build-$1/distcheck.status"
    echo "$(( $(date +%s) - s ))" > "build-$1/distcheck.seconds"
}

# Both MPIs' suites run side by side: most of a suite's time is spent in
# mpirun's start-up, in ranks waiting for each other and in the monitor's
# set intervals, which leave the cores to the other MPI's suite. No test
# asserts a wall-clock deadline, so the load does not change a verdict.
failed_mpis=""
if [ -n "${MW_SERIAL:-}" ]; then
    for mpi in $mpis; do
        echo "=== $mpi: configure, build, make check"
        suite "$mpi"
        report "$mpi" || failed_mpis="$failed_mpis $mpi"
    done
    distcheck "$first"
else
    echo "=== $(echo $mpis | sed 's/ / and /g'), side by side: configure, build, make check" \
         "(logs: build-MPI/check.log)"
    pids=""
    # The first MPI's distcheck follows its own suite, beside the rest of
    # the other's (here MPICH's, the longer one).
    for mpi in $mpis; do
        if [ "$mpi" = "$first" ]; then
            (suite "$mpi"; distcheck "$mpi") &
        else
            suite "$mpi" &
        fi
        pids="$pids $!"
    done
    wait $pids || true
    for mpi in $mpis; do
        echo "=== $mpi"
        report "$mpi" || failed_mpis="$failed_mpis $mpi"
    done
fi
echo "=== suites done after $(( $(date +%s) - started )) s"
distcheck=ok
if [ -n "${MW_SKIP_DISTCHECK:-}" ]; then
    distcheck=skipped
elif [ "$(cat "build-$first/status" 2>/dev/null)" != 0 ]; then
    distcheck="not run ($first's suite failed)"
elif [ "$(cat "build-$first/distcheck.status" 2>/dev/null)" != 0 ]; then
    distcheck=failed
    tail -n 60 "build-$first/distcheck.log"
fi
echo "=== make distcheck ($first): $distcheck ($(cat "build-$first/distcheck.seconds" 2>/dev/null || echo 0) s)"

# Every suite's wall time (tests/lib/timed-driver.sh writes a .time file
# beside each suite's .trs), slowest first, so that a change sees its cost.
echo "=== time per suite, slowest first (seconds)"
for m in $mpis; do
    find "build-$m/tests" -name '*.time' 2>/dev/null | while read -r t; do
        name=${t#build-$m/}
        echo "$(cat "$t") $m ${name%.time}"
    done
done | sort -rn | awk '{ printf "  %7.1f  %-8s %s\n", $1, $2, $3 }'
echo "  total: $(( $(date +%s) - started )) s"
# How soon things happened in this run: figures, never verdicts (a busy
# machine inflates them); bench/run-latency.sh judges them on a quiet one.
echo "=== figures measured by the suites (target in brackets; see bench/run-latency.sh)"
for m in $mpis; do
    find "build-$m/tests" -name '*.log' 2>/dev/null | xargs grep -h '^# figure: ' 2>/dev/null |
        sed "s/^# figure: /  [$m] /"
done

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
case $distcheck in ok|skipped|"not run"*) ;; *) failed=$((failed + 1)) ;; esac
[ -z "$failed_mpis" ] || echo "failed on:$failed_mpis"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ -z "$failed_mpis" ]
