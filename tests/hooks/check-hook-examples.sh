#!/bin/sh
# Each shipped hook example, generated in, compiled and run on 2 ranks,
# prints exactly the lines it promises.
set -eu
. "$top_srcdir/tests/lib/launch.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
examples="$top_srcdir/templates/hooks/examples"
passed=0 failed=0

# build_with_hook HOOK DIR: a libmpiwatch.so with HOOK built in, in DIR.
build_with_hook() {
    mkdir -p "$2/gen" "$2/obj"
    PYTHONPATH="$top_srcdir/generator" PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -m mpiwatch_gen \
        --mpicc "$MPICC" --spec "$top_srcdir/spec/mpi-4.1.json" --hooks "$1" --out "$2/gen" -q
    for src in "$top_srcdir"/runtime/*/*.c "$2"/gen/*.c; do
        $MPICC -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fPIC -fvisibility=hidden -Wall -Wextra \
            -Werror -I"$top_srcdir/include" -I"$top_srcdir/runtime" -I"$2/gen" \
            -c "$src" -o "$2/obj/$(basename "$(dirname "$src")")-$(basename "$src" .c).o"
    done
    $MPICC -shared -o "$2/libmpiwatch.so" "$2"/obj/*.o -lpthread
}

# expect NAME FILE PATTERN COUNT: FILE has COUNT lines matching PATTERN.
expect() {
    got=$(grep -c -- "$3" "$2" || true)
    if [ "$got" -eq "$4" ]; then
        passed=$((passed + 1)); echo "PASS $1"
    else
        failed=$((failed + 1)); echo "FAIL $1: $got lines match '$3', expected $4"; cat "$2"
    fi
}

$MPICC -o "$tmp/hook_program" "$top_srcdir/tests/hooks/hook_program.c"

build_with_hook "$examples/log-sends.j2" "$tmp/log-sends"
(cd "$tmp" && mw_launch 2 LD_PRELOAD="$tmp/log-sends/libmpiwatch.so" MPIWATCH_OUTDIR="$tmp" \
    -- ./hook_program > "$tmp/log-sends.out" 2> "$tmp/log-sends.err")
expect "log-sends: rank 0's send" "$tmp/log-sends.err" \
    'mpiwatch-hook: rank 0: MPI_Isend to 1, tag 7, 4096 bytes' 1
expect "log-sends: rank 1's send" "$tmp/log-sends.err" \
    'mpiwatch-hook: rank 1: MPI_Isend to 0, tag 7, 4096 bytes' 1
expect "log-sends: nothing else logged" "$tmp/log-sends.err" 'mpiwatch-hook:' 2

build_with_hook "$examples/collectives-per-comm.j2" "$tmp/per-comm"
(cd "$tmp" && mw_launch 2 LD_PRELOAD="$tmp/per-comm/libmpiwatch.so" MPIWATCH_OUTDIR="$tmp" \
    -- ./hook_program > "$tmp/per-comm.out" 2> "$tmp/per-comm.err")
for rank in 0 1; do
    expect "collectives-per-comm: rank $rank, world" "$tmp/per-comm.err" \
        "rank $rank: communicator 1 of 2 (size 2): 2 collective calls" 1
    expect "collectives-per-comm: rank $rank, duplicate" "$tmp/per-comm.err" \
        "rank $rank: communicator 2 of 2 (size 2): 3 collective calls" 1
done
expect "collectives-per-comm: results unchanged" "$tmp/per-comm.out" '^sum 1$' 1

build_with_hook "$examples/count-tags.j2" "$tmp/count-tags"
mkdir -p "$tmp/count-tags/out"
(cd "$tmp" && mw_launch 2 LD_PRELOAD="$tmp/count-tags/libmpiwatch.so" \
    MPIWATCH_OUTDIR="$tmp/count-tags/out" -- ./hook_program > "$tmp/count-tags.out" 2>&1)
cat "$tmp"/count-tags/out/mpiwatch-*.txt > "$tmp/count-tags.txt" 2>/dev/null || true
expect "count-tags: the text report's counter (sum 2 over 2 ranks)" "$tmp/count-tags.txt" \
    '^  MPI_Isend tag 7  *2  *2 ' 1
expect "count-tags: one counter" "$tmp/count-tags.txt" ' tag [0-9]' 1
"${PYTHON:-python3}" - "$tmp"/count-tags/out/mpiwatch-*.json > "$tmp/count-tags.json.txt" <<'PY'
import json, sys
print(json.load(open(sys.argv[1]))["counters"])
PY
expect "count-tags: the JSON report's counters" "$tmp/count-tags.json.txt" \
    "{'MPI_Isend tag 7': {'sum': 2, 'ranks': 2, 'min': 1, 'min_rank': 0, 'max': 1, 'max_rank': 0}}" 1
expect "count-tags: results unchanged" "$tmp/count-tags.out" '^sum 1$' 1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
