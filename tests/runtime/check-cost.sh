#!/usr/bin/env bash
# The cost guard: what libmpiwatch adds to a call, in instructions, stays
# within its budget (bench/budgets.sh; docs/design.md says how the fast path
# keeps it there). Callgrind's counts are exact, so this is a test, not a
# timing: a compiler upgrade or a refactor that undoes a trick of the fast
# path fails it, naming the call.
#
# bench/overhead.c (and, when this build has libmpiwatch_f, its Fortran twin
# bench/overhead_f.f90) runs every single-rank loop in one process with N and
# 2N iterations after a warm-up (--callgrind-all), under callgrind with one
# dump per run; tests/runtime/callgrind_costs.py turns the dumps into
# (I(2N) - I(N)) / N per loop and per MPI call (bench_call_X, callees
# included), as bench/run-overhead.sh does with two processes per figure. One
# valgrind run per variant and language: bare, preloaded with profiling on,
# preloaded with MPIWATCH_LEVEL=0, and (C) with profiling and MPIWATCH_TRACE=1.
# Cases:
#   C LOOP or LOOP:CALL   added over bare <= the call's budget + tolerance,
#                         profiling on; each is also printed as a figure
#   C ... off             the same with profiling off, against BUDGET_OFF
#   C ... traced          tracing on, over profiling on, against
#                         trace_budget_of (issue 29's target, BUDGET_TRACE,
#                         is bench/run-trace-cost.sh's verdict)
#   C send_recv_dup:CALL minus send_recv:CALL
#                         a duplicated communicator over MPI_COMM_WORLD,
#                         against BUDGET_DUP_EXTRA
#   Fortran LOOP (on, off) per iteration, against the sum of its calls' C
#                         budgets plus BUDGET_FORTRAN_EXTRA each (on) or
#                         BUDGET_OFF each (off)
# SKIP (with the reason) where the budgets do not apply: no valgrind, not
# x86-64 (the fast path's asm is for x86-64), or an instrumented or
# unoptimised build (sanitizers, coverage, -O0).
name=cost
. "$(dirname "$0")/../lib/harness.sh"
. "$top_srcdir/bench/budgets.sh"

N=2000

if ! command -v valgrind >/dev/null 2>&1; then
    skip_all "$name: valgrind is not installed (tools/install-deps.sh installs it)"
fi
if [ "$(uname -m)" != x86_64 ]; then
    skip_all "$name: the budgets are for x86-64, where the fast path's asm applies; this is $(uname -m)"
fi
if nm -D "$LIBMPIWATCH" 2>/dev/null |
        grep -Eq ' U (__tsan_|__asan_|__ubsan_|__msan_|__gcov_|__llvm_profile_)'; then
    skip_all "$name: $LIBMPIWATCH is instrumented (sanitizer or coverage): its counts say nothing of the budgets"
fi
build_cflags=$(sed -n 's/^CFLAGS = //p' "$top_builddir/Makefile" 2>/dev/null)
case " $build_cflags " in
    *" -O0 "* | *-fsanitize* | *--coverage* | *-fprofile-arcs*)
        skip_all "$name: the build's CFLAGS ($build_cflags) are not an optimised, uninstrumented build's" ;;
    *-O[123s]* | *-Ofast*) ;;
    *) skip_all "$name: the build's CFLAGS ($build_cflags) do not optimise; the budgets are for -O2" ;;
esac
# Open MPI refuses root without these; both MPIs run singletons (no mpirun).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$work/reports"

# measure LANG VARIANT PROGRAM: one callgrind run of PROGRAM --callgrind-all N
# with VARIANT (bare, on, off); its figures in $work/LANG.VARIANT.costs
# ("NAME FIGURE" lines). Returns 1 after failing the case.
measure() {
    local lang=$1 variant=$2 program=$3 dir=$work/$1.$2 preload
    local -a envs=()
    mkdir -p "$dir"
    preload=$LIBMPIWATCH
    [ "$lang" = Fortran ] && preload=$LIBMPIWATCH:$LIBMPIWATCH_F
    case $variant in
        on) envs=(LD_PRELOAD="$preload") ;;
        off) envs=(LD_PRELOAD="$preload" MPIWATCH_LEVEL=0) ;;
        trace) envs=(LD_PRELOAD="$preload" MPIWATCH_TRACE=1 MPIWATCH_TRACE_DIR="$dir") ;;
    esac
    if ! (cd "$dir" && env ${envs[@]+"${envs[@]}"} MPIWATCH_OUTDIR="$work/reports" \
              timeout "$MW_TIMEOUT" valgrind --tool=callgrind --collect-atstart=no \
              --toggle-collect=bench_run_loop --dump-after=bench_run_loop \
              --callgrind-out-file="$dir/cg.out" "$program" --callgrind-all "$N" \
              >"$dir/plan" 2>"$dir/stderr" </dev/null); then
        fail "$lang $variant: callgrind run" "$(basename "$program") failed under valgrind" "$dir/stderr"
        return 1
    fi
    if ! "$PYTHON" "$rt_dir/callgrind_costs.py" "$dir/plan" "$dir/cg.out" >"$work/$lang.$variant.costs" \
            2>"$dir/costs.err"; then
        fail "$lang $variant: callgrind's dumps" "cannot read them" "$dir/costs.err" "$dir/plan"
        return 1
    fi
}

# added LANG VARIANT NAME: the figure NAME of VARIANT minus bare's.
added() {
    awk -v n="$3" '$1 == n {print $2}' "$work/$1.bare.costs" "$work/$1.$2.costs" |
        awk 'NR == 1 {b = $1} NR == 2 {printf "%.2f\n", $1 - b; found = 1} END {exit !found}'
}

# judge CASE ADDED BUDGET UNIT: pass CASE if ADDED <= BUDGET + tolerance.
judge() {
    if awk -v a="$2" -v b="$3" -v t="$BUDGET_TOLERANCE" 'BEGIN {exit !(a <= b + t)}'; then
        pass "$1: +$2 $4 <= $3"
    else
        fail "$1" "+$2 $4, above its budget of $3 (+$BUDGET_TOLERANCE tolerance; bench/budgets.sh)"
    fi
}

# check LANG NAME BUDGET-ON CALLS UNIT: the on and off cases of figure NAME;
# CALLS is how many calls the figure counts (the off budget is per call).
check() {
    local lang=$1 what=$2 budget=$3 calls=$4 unit=$5 a
    if ! a=$(added "$lang" on "$what"); then
        fail "$lang $what" "no figure (see $work/$lang.on.costs)"
        return
    fi
    figure "cost $lang $what" "+$a" "$unit" "<= $budget"
    judge "$lang $what" "$a" "$budget" "$unit"
    if ! a=$(added "$lang" off "$what"); then
        fail "$lang $what off" "no figure (see $work/$lang.off.costs)"
        return
    fi
    note "cost $lang $what, profiling off: +$a $unit"
    judge "$lang $what off" "$a" "$((BUDGET_OFF * calls))" "$unit"
}

# traced NAME CALL: what tracing adds to the C figure NAME (of call CALL)
# over profiling alone, against trace_budget_of CALL.
traced() {
    local on tr a budget
    budget=$(trace_budget_of "$2") || { fail "C $1 traced" "bench/budgets.sh has no trace budget for $2"; return; }
    if ! on=$(added C on "$1") || ! tr=$(added C trace "$1"); then
        fail "C $1 traced" "no figure (see $work/C.trace.costs)"
        return
    fi
    a=$(awk -v t="$tr" -v o="$on" 'BEGIN {printf "%.2f", t - o}')
    figure "cost C $1 traced over profiled" "+$a" "instructions per call" "<= $budget"
    judge "C $1 traced" "$a" "$budget" "instructions per call"
}

started=$(date +%s)

# C: bench/overhead.c, built as bench/run-overhead.sh builds it.
if $MPICC -std=c11 -O2 -o "$work/overhead" "$top_srcdir/bench/overhead.c" >"$work/overhead.log" 2>&1; then
    ok=yes
    for v in bare on off trace; do measure C "$v" "$work/overhead" || ok=no; done
    if [ "$ok" = yes ]; then
        for loop in $(awk '$1 !~ /:/ {print $1}' "$work/C.bare.costs"); do
            calls=$(calls_per_iteration "$loop") || { fail "C $loop" "bench/budgets.sh has no budget for it"; continue; }
            if [ "$calls" = "$loop" ]; then
                check C "$loop" "$(budget_of "$loop")" 1 "instructions per call"
                traced "$loop" "$loop"
            else
                # A loop of several calls: each call on its own (bench_call_X).
                for c in $calls; do
                    check C "$loop:$c" "$(budget_of "$c")" 1 "instructions per call"
                    traced "$loop:$c" "$c"
                done
            fi
        done
        # A duplicated communicator costs what MPI_COMM_WORLD costs (the memo
        # holds any communicator's facts).
        for c in $(calls_per_iteration send_recv_dup); do
            if w=$(added C on "send_recv:$c") && d=$(added C on "send_recv_dup:$c"); then
                judge "C send_recv_dup:$c minus send_recv:$c" \
                    "$(awk -v d="$d" -v w="$w" 'BEGIN {printf "%.2f", d - w}')" \
                    "$BUDGET_DUP_EXTRA" "instructions per call"
            else
                fail "C send_recv_dup:$c minus send_recv:$c" "no figure (see $work/C.on.costs)"
            fi
        done
    fi
else
    fail "C: build bench/overhead.c" "$MPICC could not build it" "$work/overhead.log"
fi

# Fortran: bench/overhead_f.f90 with both libraries preloaded (the README's recipe).
if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
    skip "Fortran" "this build has no libmpiwatch_f (configure found no working MPI Fortran)"
elif (cd "$work" && $MPIFC -O2 -o "$work/overhead_f" "$top_srcdir/bench/overhead_f.f90") \
        >"$work/overhead_f.log" 2>&1; then
    ok=yes
    for v in bare on off; do measure Fortran "$v" "$work/overhead_f" || ok=no; done
    if [ "$ok" = yes ]; then
        for loop in $(awk '{print $1}' "$work/Fortran.bare.costs"); do
            budget=$(fortran_budget_of "$loop") || { fail "Fortran $loop" "bench/budgets.sh has no budget for it"; continue; }
            calls=$(calls_per_iteration "$loop" | wc -w)
            check Fortran "$loop" "$budget" "$calls" "instructions per iteration"
        done
    fi
else
    fail "Fortran: build bench/overhead_f.f90" "$MPIFC could not build it" "$work/overhead_f.log"
fi

note "the cost guard took $(($(date +%s) - started)) s (N = $N)"
finish
