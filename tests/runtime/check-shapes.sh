#!/usr/bin/env bash
# Shapes: at the same call sites, sends, receives, send-receives and
# reductions whose counts and peers change from call to call (shapes.c),
# including MPI_PROC_NULL, MPI_ANY_SOURCE, empty messages and reductions of
# nothing. The fast path counts a call of its site's last shape again from
# what that call added (runtime/traffic/memo.h); its report must say what the
# general path's says (MPIWATCH_TIMER=clock_gettime takes it): calls, bytes,
# message sizes, rank pairs and call-site totals (compare_traffic.py), on
# 1, 2 and 4 ranks, preloaded and linked.
name=shapes
. "$(dirname "$0")/../lib/harness.sh"

build "$rt_dir/shapes.c" "$work/shapes" plain
build "$rt_dir/shapes.c" "$work/shapes-linked" linked
compare="$top_srcdir/tests/fortran/traffic/compare_traffic.py"

for np in 1 2 4; do
    for mode in preload linked; do
        prog="$work/shapes"
        [ "$mode" = linked ] && prog="$work/shapes-linked"
        case_name="shapes np=$np $mode"
        ok=1
        for path in general fast; do
            dir="$work/$np-$mode-$path"
            timer=tsc
            [ "$path" = general ] && timer=clock_gettime
            run "$dir" "$np" "$mode" MPIWATCH_OUTDIR="$dir" MPIWATCH_TIMER="$timer" -- "$prog"
            rc=$(rc_of "$dir")
            if [ "$rc" -ne 0 ]; then
                fail "$case_name ($path path)" "the program failed: $(describe_rc "$rc")" \
                    "$dir/stdout" "$dir/stderr"
                ok=0
            elif ! grep -qx "shapes: 6 rounds, 0 errors" "$dir/stdout"; then
                fail "$case_name ($path path)" "a message arrived wrong" "$dir/stdout" "$dir/stderr"
                ok=0
            fi
        done
        [ "$ok" = 1 ] || continue
        general=$(ls "$work/$np-$mode-general"/mpiwatch-*.json)
        fast=$(ls "$work/$np-$mode-fast"/mpiwatch-*.json)
        if "$PYTHON" "$compare" "$general" "$fast" >"$work/$np-$mode.diff" 2>&1; then
            pass "$case_name: the fast path's report has the general path's traffic"
        else
            fail "$case_name" "the fast path's report differs from the general path's" \
                "$work/$np-$mode.diff"
        fi
    done
done

finish
