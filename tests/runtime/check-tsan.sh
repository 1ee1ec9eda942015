#!/usr/bin/env bash
# ThreadSanitizer: the runtime (runtime/*/*.c) and the generated wrappers of
# this build (top_builddir/generated/*.c, with the Fortran calls' fast bodies but not the entry points) are compiled
# with -fsanitize=thread together with threads.c into one executable (no
# preload: the wrappers are linked into the program), which runs on 2 ranks
# with TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0 and tsan.supp.
#
# 1. canary: threads.c built with -DMW_TSAN_CANARY races on purpose in a
#    function named mw_tsan_canary; TSan must report it, so a clean run below
#    means something (TSan works under this mpirun, the options reach the
#    ranks, the suppressions do not hide mpiwatch-like code).
# 2. clean: the real program must run with no ThreadSanitizer report at all
#    (the MPI libraries' own reports are suppressed, see tsan.supp), print
#    "errors 0", and write a report with exact counts (threads.expect). A
#    report involving mpiwatch code (mw_* functions, runtime/*/*.c, the
#    generated wrappers) is a failure, and so is any other report that stops
#    the run, since it hides what would come after.
# 2b. dumped: the same with a partial profile every 10 ms
#    (MPIWATCH_DUMP_EVERY), whose thread reads the statistics, histograms
#    and pairs while the threads write them.
# 3. monitored: the same with the live monitor on (a snapshot every 10 ms)
#    and a client (tests/monitor/raw_client.py) attached from the start, so
#    that the sender thread reads the statistics while the threads write them.
#
# SKIP when the compiler cannot build with -fsanitize=thread, or when TSan
# cannot start under this MPI at all (the reason is printed). MW_TSAN_JOBS
# (default 2) compiles that many files at once.
name=tsan
. "$(dirname "$0")/../lib/harness.sh"

NP=2
if [ -z "${top_builddir:-}" ] || [ ! -f "$top_builddir/generated/mw_functions.c" ]; then
    echo "ERROR $name: top_builddir/generated/mw_functions.c not found (top_builddir=${top_builddir:-unset})" >&2
    exit 99
fi
# Absolute, as the file names in TSan's reports are.
top_builddir=$(cd "$top_builddir" && pwd)

# Can this compiler build a TSan program at all?
printf 'int main(void) { return 0; }\n' >"$work/probe.c"
if ! $MPICC -fsanitize=thread -o "$work/probe" "$work/probe.c" >"$work/probe.log" 2>&1; then
    skip "tsan" "$MPICC cannot link with -fsanitize=thread: $(head -n 1 "$work/probe.log")"
    finish
fi

# Compile the runtime and the generated wrappers, the way Makefile.am does,
# plus -fsanitize=thread -g -O1.
cflags=(-std=c11 -D_POSIX_C_SOURCE=200809L -fvisibility=hidden -fsanitize=thread -g -O1
        -I"$top_srcdir/include" -I"$top_srcdir/runtime" -I"$top_builddir/generated"
        -I"$top_srcdir/client")
# The client's parts libmpiwatch holds (the trace's reader and wait-state
# analysis, the OTF2 converter: run at MPI_Finalize, on the calling thread)
# are linked as the build made them, without the sanitizer.
client_libs=("$top_builddir/client/.libs/libmwwait.a" "$top_builddir/client/.libs/libmwotf2.a")
[ "$MW_HAVE_OTF2" = yes ] && client_libs+=(-lotf2)
client_libs+=(-lm)
mkdir -p "$work/obj"
sources=()
for src in "$top_srcdir"/runtime/*/*.c "$top_builddir"/generated/*.c; do
    case "$src" in
        # What libmpiwatch has: the Fortran calls' fast bodies are in it (and
        # the argument conversion, runtime/fortran/convert.c); libmpiwatch_f's
        # own code, the Fortran entry points, is not.
        */generated/fortran_calls.c) ;;
        */generated/fortran_*) continue ;;
    esac
    sources+=("$src")
done
export MPICC work
printf '%s\n' "${sources[@]}" | xargs -P "${MW_TSAN_JOBS:-2}" -I{} sh -c '
    src=$1; shift
    obj="$work/obj/$(basename "$(dirname "$src")")-$(basename "$src" .c).o"
    $MPICC "$@" -c "$src" -o "$obj" 2>"$obj.log" || { echo "cannot compile $src"; cat "$obj.log"; }
' sh {} "${cflags[@]}" >"$work/compile.log" 2>&1
if [ -s "$work/compile.log" ]; then
    fail "tsan build" "compiling the runtime and wrappers with -fsanitize=thread failed" \
        "$work/compile.log"
    finish
fi
for variant in clean canary; do
    defs=()
    [ "$variant" = canary ] && defs=(-DMW_TSAN_CANARY)
    if ! $MPICC -fsanitize=thread -g -O1 ${defs[@]+"${defs[@]}"} -o "$work/threads-$variant" \
            "$rt_dir/threads.c" "$work"/obj/*.o "${client_libs[@]}" -lpthread \
            >"$work/link-$variant.log" 2>&1; then
        fail "tsan build" "linking threads.c ($variant) with the runtime failed" \
            "$work/link-$variant.log"
        finish
    fi
done

# UCX (MPICH's ch4:ucx device here, Open MPI's pml/ucx where chosen) patches
# mmap/madvise in every loaded library; its madvise hook runs while glibc
# sets up a new thread, which crashes the TSan runtime (SIGSEGV in
# __tsan::MutexPreReadLock from ucm_madvise). Its hooks are not needed here.
tsan_env=(UCX_MEM_MMAP_HOOK_MODE=none
          TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0:suppressions=$rt_dir/tsan.supp)

# tsan_reports FILE: the ThreadSanitizer reports in FILE, separated by blank lines.
tsan_reports() {
    awk '/^WARNING: ThreadSanitizer:/ {on = 1} on {print} /^SUMMARY: ThreadSanitizer:/ {on = 0; print ""}' "$1"
}

# mentions_mpiwatch FILE: a report in FILE has a frame of mpiwatch's code:
# an mw_ function (not the canary), or a line of top_srcdir/runtime/ or of
# top_builddir/generated/ (the wrappers).
mentions_mpiwatch() {
    tsan_reports "$1" | grep -v 'mw_tsan_canary' >"$1.frames"
    grep -Eq '#[0-9]+ mw_[A-Za-z0-9_]+ ' "$1.frames" ||
        grep -Fq "$top_srcdir/runtime/" "$1.frames" ||
        grep -Fq "$top_builddir/generated/" "$1.frames"
}

# cannot_run DIR: TSan could not start or run under this MPI (prints why).
cannot_run() {
    if grep -q 'FATAL: ThreadSanitizer' "$1/stderr"; then
        grep -m 1 'FATAL: ThreadSanitizer' "$1/stderr"
        return 0
    fi
    return 1
}

# 1. The canary race must be reported.
dir="$work/canary"
run "$dir" "$NP" bare MPIWATCH_OUTDIR="$dir" "${tsan_env[@]}" -- "$work/threads-canary"
rc=$(rc_of "$dir")
if grep -q '^SKIP' "$dir/stdout"; then
    skip "tsan" "$(grep '^SKIP' "$dir/stdout" | head -n 1 | sed 's/^SKIP: //')"
    finish
fi
if why=$(cannot_run "$dir"); then
    skip "tsan" "ThreadSanitizer cannot run under $MPIRUN here: $why"
    finish
fi
if grep -q 'WARNING: ThreadSanitizer: data race' "$dir/stderr" &&
        tsan_reports "$dir/stderr" | grep -q 'mw_tsan_canary' && [ "$rc" -ne 0 ]; then
    pass "tsan canary race reported"
else
    fail "tsan canary race reported" "TSan did not report the deliberate race in mw_tsan_canary ($(describe_rc "$rc")); a clean run would prove nothing" \
        "$dir/stdout" "$dir/stderr"
fi

# check_clean CASE DIR: the run in DIR had no report, succeeded, printed
# "errors 0" and wrote exact counts.
check_clean() {
    local case=$1 dir=$2 rc
    rc=$(rc_of "$dir")
    tsan_reports "$dir/stderr" >"$dir/reports"
    if why=$(cannot_run "$dir"); then
        skip "$case" "ThreadSanitizer cannot run under $MPIRUN here: $why"
    elif mentions_mpiwatch "$dir/stderr"; then
        fail "$case" "ThreadSanitizer reports a problem involving mpiwatch code" "$dir/reports"
    elif [ -s "$dir/reports" ]; then
        fail "$case" "ThreadSanitizer stopped the run on a report outside mpiwatch (extend tsan.supp only if every frame of it is inside the MPI's libraries)" \
            "$dir/reports"
    elif [ "$rc" -ne 0 ]; then
        fail "$case" "the program failed: $(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
    elif [ "$(cat "$dir/stdout")" != "errors 0" ]; then
        fail "$case" "the program's output is not 'errors 0'" "$dir/stdout" "$dir/stderr"
    else
        pass "$case: no ThreadSanitizer report"
        check_counts "$case counts" "$rt_dir/threads.expect" "$NP" "$dir"
    fi
}

# 2. The real program: no report.
dir="$work/clean"
run "$dir" "$NP" bare MPIWATCH_OUTDIR="$dir" "${tsan_env[@]}" -- "$work/threads-clean"
check_clean "tsan np=$NP" "$dir"

# 2b. The same with a partial profile every 10 ms: the dumper thread reads
# every thread's statistics, histograms and pairs while they are updated.
dir="$work/dumped"
run "$dir" "$NP" bare MPIWATCH_OUTDIR="$dir" MPIWATCH_DUMP_EVERY=0.01 "${tsan_env[@]}" \
    -- "$work/threads-clean"
check_clean "tsan np=$NP, a partial profile every 10 ms" "$dir"

# 3. The same with the live monitor on and a client attached from the start:
# the sender thread reads every thread's statistics each 10 ms while the
# threads update them.
dir="$work/monitored"
mkdir -p "$dir"
("$PYTHON" "$top_srcdir/tests/monitor/raw_client.py" "$dir/ports" --timeout 100 \
     >"$dir/client.json" 2>"$dir/client.err") &
cpid=$!
run "$dir" "$NP" bare MPIWATCH_OUTDIR="$dir" MPIWATCH_MONITOR="file:$dir/ports" MPIWATCH_WAIT=60 \
    MPIWATCH_MONITOR_INTERVAL=0.01 "${tsan_env[@]}" -- "$work/threads-clean"
wait "$cpid"
check_clean "tsan np=$NP, monitor attached" "$dir"
attached=$("$PYTHON" -c "import json,sys; print(json.load(open(sys.argv[1]))['attached'])" \
           "$dir/client.json" 2>/dev/null)
if [ "$attached" = "$NP" ]; then
    pass "tsan np=$NP, monitor attached: the client was attached to every rank"
else
    fail "tsan monitor client" "attached to ${attached:-no} ranks, expected $NP" "$dir/client.err"
fi

finish
