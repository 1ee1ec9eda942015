#!/usr/bin/env bash
# Each shipped hook example, built into the libraries from an install
# (mpiwatch-gen --hooks FILE --build DIR, docs/hooks.md) and run on 2 ranks,
# prints exactly the lines it promises: for hook_program.c and, when the
# Fortran library is built, for its Fortran twin hook_program.f90 (the same
# hooks, reached through libmpiwatch_f).
set -eu
. "$(dirname "$0")/../lib/harness.sh"
. "$top_srcdir/tests/lib/install.sh"
tmp=$work
examples="$top_srcdir/templates/hooks/examples"

# build_with_hook HOOK DIR: DIR/lib/libmpiwatch.so with HOOK built in (and,
# where the install has it, libmpiwatch_f.so), the way docs/hooks.md tells a
# user: mpiwatch-gen --hooks HOOK --build DIR from the installed mpiwatch.
build_with_hook() {
    mw_installed_gen --hooks "$1" --build "$2" -q >"$2.log" 2>&1 || {
        fail "mpiwatch-gen --hooks $(basename "$1") --build" "" "$2.log"; finish
    }
}

# run_hooked HOOK-DIR OUTDIR LANG: hook_program (LANG c) or its Fortran twin
# (f) on 2 ranks with HOOK-DIR's libraries preloaded; stdout and stderr in
# OUTDIR/LANG.out and .err.
run_hooked() {
    preload="$1/lib/libmpiwatch.so"
    [ "$3" = c ] || preload="$1/lib/libmpiwatch.so:$1/lib/libmpiwatch_f.so"
    mkdir -p "$2"
    (cd "$tmp" && mw_launch 2 LD_PRELOAD="$preload" MPIWATCH_OUTDIR="$2" \
        -- "./hook_program_$3" > "$2/$3.out" 2> "$2/$3.err")
}

# expect NAME FILE PATTERN COUNT: FILE has COUNT lines matching PATTERN.
expect() {
    got=$(grep -c -- "$3" "$2" || true)
    if [ "$got" -eq "$4" ]; then
        pass "$1"
    else
        fail "$1" "$got lines match '$3', expected $4" "$2"
    fi
}

mw_stage_install "$tmp" || { fail "make install DESTDIR=..." "" "$tmp/install.log"; finish; }
languages=c
$MPICC -o "$tmp/hook_program_c" "$top_srcdir/tests/hooks/hook_program.c"
if [ -f "$prefix/lib/libmpiwatch_f.so" ] && [ -n "${MPIFC:-}" ]; then
    languages="c f"
    $MPIFC -o "$tmp/hook_program_f" "$top_srcdir/tests/hooks/hook_program.f90"
else
    note "no Fortran library: hook_program.f90 is not run"
fi

build_with_hook "$examples/log-sends.j2" "$tmp/log-sends"
for lang in $languages; do
    out="$tmp/log-sends/$lang"
    run_hooked "$tmp/log-sends" "$out" "$lang"
    expect "log-sends ($lang): rank 0's send" "$out/$lang.err" \
        'mpiwatch-hook: rank 0: MPI_Isend to 1, tag 7, 4096 bytes' 1
    expect "log-sends ($lang): rank 1's send" "$out/$lang.err" \
        'mpiwatch-hook: rank 1: MPI_Isend to 0, tag 7, 4096 bytes' 1
    expect "log-sends ($lang): nothing else logged" "$out/$lang.err" 'mpiwatch-hook:' 2
done

build_with_hook "$examples/collectives-per-comm.j2" "$tmp/per-comm"
for lang in $languages; do
    out="$tmp/per-comm/$lang"
    run_hooked "$tmp/per-comm" "$out" "$lang"
    for rank in 0 1; do
        expect "collectives-per-comm ($lang): rank $rank, world" "$out/$lang.err" \
            "rank $rank: communicator 1 of 2 (size 2): 2 collective calls" 1
        expect "collectives-per-comm ($lang): rank $rank, duplicate" "$out/$lang.err" \
            "rank $rank: communicator 2 of 2 (size 2): 3 collective calls" 1
    done
    expect "collectives-per-comm ($lang): results unchanged" "$out/$lang.out" '^sum 1$' 1
done

build_with_hook "$examples/count-tags.j2" "$tmp/count-tags"
for lang in $languages; do
    out="$tmp/count-tags/$lang"
    run_hooked "$tmp/count-tags" "$out" "$lang"
    cat "$out"/mpiwatch-*.txt > "$out/report.txt" 2>/dev/null || true
    expect "count-tags ($lang): the text report's counter (sum 2 over 2 ranks)" \
        "$out/report.txt" '^  MPI_Isend tag 7  *2  *2 ' 1
    expect "count-tags ($lang): one counter" "$out/report.txt" ' tag [0-9]' 1
    "${PYTHON:-python3}" - "$out"/mpiwatch-*.json > "$out/counters.txt" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["counters"])
PY
    expect "count-tags ($lang): the JSON report's counters" "$out/counters.txt" \
        "{'MPI_Isend tag 7': {'sum': 2, 'ranks': 2, 'min': 1, 'min_rank': 0, 'max': 1, 'max_rank': 0}}" 1
    expect "count-tags ($lang): results unchanged" "$out/$lang.out" '^sum 1$' 1
done

finish
