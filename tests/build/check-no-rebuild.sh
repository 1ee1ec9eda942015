#!/usr/bin/env bash
# A second make with no change regenerates and recompiles nothing; a forced
# regeneration with unchanged inputs rewrites no file and recompiles nothing.
set -eu
. "$(dirname "$0")/../lib/harness.sh"
cd "$top_builddir"
snapshot() {
    find generated .libs runtime -type f \( -name '*.c' -o -name '*.h' -o -name '*.o' \
         -o -name '*.lo' -o -name '*.so*' -o -name '*.a' -o -name 'coverage.txt' \) \
         -newer "$1" 2>/dev/null | sort
}
marker=$work/marker
touch "$marker"
sleep 1   # file times have a one-second grain on some file systems

make_rc=0
$MAKE all >"$work/make1.log" 2>&1 || make_rc=$?
snapshot "$marker" >"$work/changed1"
if [ "$make_rc" -ne 0 ]; then
    fail "a second make changes nothing" "make failed (status $make_rc)" "$work/make1.log"
elif [ -s "$work/changed1" ]; then
    fail "a second make changes nothing" "it changed files" "$work/changed1" "$work/make1.log"
else
    pass "a second make changes nothing"
fi

rm -f generated/stamp
make_rc=0
$MAKE all >"$work/make2.log" 2>&1 || make_rc=$?
snapshot "$marker" >"$work/changed2"
if [ "$make_rc" -ne 0 ]; then
    fail "regenerating from unchanged inputs rewrites and recompiles nothing" \
        "make failed (status $make_rc)" "$work/make2.log"
elif [ -s "$work/changed2" ]; then
    fail "regenerating from unchanged inputs rewrites and recompiles nothing" "it changed files" \
        "$work/changed2" "$work/make2.log"
elif [ ! -f generated/stamp ]; then
    fail "regenerating from unchanged inputs rewrites and recompiles nothing" "make did not regenerate" \
        "$work/make2.log"
else
    pass "regenerating from unchanged inputs rewrites and recompiles nothing"
fi
finish
