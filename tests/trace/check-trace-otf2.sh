#!/usr/bin/env bash
# The OTF2 archive (docs/trace.md, "OTF2"): `mpiwatch --trace DIR --otf2 OUT`
# on traced runs of 4 ranks, preloaded: examples/ring.c,
# tests/trace/nonblocking.c (requests, wildcard receives, roots, a polling
# loop), tests/runtime/threads.c (4 threads a rank, MPI_THREAD_MULTIPLE) and
# examples/halo.f90 (Fortran). For each: the conversion exits 0, otf2-print
# reads the archive (exit 0), and tests/trace/otf2_check.py, reading it with
# Debian's python3-otf2, finds per function as many calls as the JSON
# report, the report's matrix of messages and bytes, every receive matched
# to one send in non-overtaking order (and every send to one receive), every
# matched send entered before its receive left on the one clock, times that
# never decrease per location, every non-blocking request completed. A
# second conversion into the same folder is refused (exit 1), naming it.
# SKIP without OTF2 in this build, otf2-print, or python3-otf2; the threads
# case under MPICH (its communicators are not identified across ranks yet).
name=trace-otf2
. "$(dirname "$0")/../lib/harness.sh"

NP=4
check="$top_srcdir/tests/trace/otf2_check.py"
need_client
if [ "$MW_HAVE_OTF2" != yes ]; then
    skip_all "$name: this mpiwatch is built without OTF2 (install libotf2-trace-dev)"
fi
if ! command -v otf2-print >/dev/null 2>&1; then
    skip_all "$name: otf2-print is not installed (Debian: otf2-tools)"
fi
otf2_python=
for py in "$PYTHON" /usr/bin/python3 python3; do
    if "$py" -c 'import otf2' >/dev/null 2>&1; then otf2_python=$py; break; fi
done
if [ -z "$otf2_python" ]; then
    skip_all "$name: no Python with the otf2 module (Debian: python3-otf2)"
fi

# archive CASE DIR: the traced run in DIR (status 0) converts, reads and checks.
archive() {
    local case=$1 dir=$2 log
    if [ "$(rc_of "$dir")" -ne 0 ]; then
        fail "$case: run" "$(describe_rc "$(rc_of "$dir")")" "$dir/stdout" "$dir/stderr"
        return
    fi
    log="$dir/convert.log"
    if "$client" --trace "$dir/cwd" --otf2 "$dir/otf2" >"$log" 2>&1; then
        pass "$case: converted: $(tail -n 1 "$log")"
    else
        fail "$case: converted" "$(head -n 3 "$log")" "$log"
        return
    fi
    if otf2-print "$dir/otf2/traces.otf2" >"$dir/print.out" 2>"$dir/print.err"; then
        pass "$case: otf2-print reads it ($(grep -c . "$dir/print.out") lines)"
    else
        fail "$case: otf2-print" "exit status $?" "$dir/print.err"
    fi
    log="$dir/check.log"
    if "$otf2_python" "$check" "$dir/otf2/traces.otf2" \
            "$dir/cwd/$(reports "$dir/cwd" 'mpiwatch-*.json' | head -n 1)" >"$log" 2>&1; then
        pass "$case: as the report: $(tail -n 1 "$log")"
    else
        fail "$case: as the report" "$(head -n 5 "$log")" "$log"
    fi
}

build "$top_srcdir/examples/ring.c" "$work/ring" plain
run "$work/ring-run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/ring"
archive "ring" "$work/ring-run"
if "$client" --trace "$work/ring-run/cwd" --otf2 "$work/ring-run/otf2" >"$work/again.log" 2>&1; then
    fail "ring: converted again" "exit 0 into a folder that holds an archive"
elif grep -q "already holds an archive" "$work/again.log"; then
    pass "ring: a second archive into the same folder is refused, naming it"
else
    fail "ring: converted again" "$(head -n 2 "$work/again.log")" "$work/again.log"
fi

build "$top_srcdir/tests/trace/nonblocking.c" "$work/nonblocking" plain
run "$work/nb" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/nonblocking" \
    --polls 1000
archive "non-blocking" "$work/nb"

build "$top_srcdir/tests/runtime/threads.c" "$work/threads" plain
run "$work/threads-run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/threads"
if grep -q '^SKIP' "$work/threads-run/stdout"; then
    skip "threads" "$(grep '^SKIP' "$work/threads-run/stdout" | head -n 1 | sed 's/^SKIP: //')"
elif [ "$MPI_FLAVOR" = mpich ]; then
    # Its messages are on duplicated communicators, which the files name by
    # each rank's own handle: MPICH's differ between ranks (docs/trace.md,
    # Status: a communicator's identity across ranks is missing).
    skip "threads" "MPICH names one communicator by different handles on different ranks; the trace does not identify communicators across ranks yet"
else
    archive "threads (4 a rank, MPI_THREAD_MULTIPLE)" "$work/threads-run"
fi

if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
    skip "Fortran halo" "this build has no libmpiwatch_f"
elif ! $MPIFC -o "$work/halo" "$top_srcdir/examples/halo.f90" >"$work/halo.log" 2>&1; then
    fail "Fortran halo: build" "$MPIFC could not build examples/halo.f90" "$work/halo.log"
else
    run "$work/halo-run" "$NP" bare LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" MPIWATCH_TRACE=1 \
        MPIWATCH_FORMATS=json -- "$work/halo"
    archive "Fortran halo" "$work/halo-run"
fi
finish
