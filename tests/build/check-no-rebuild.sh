#!/bin/sh
# A second make with no change regenerates and recompiles nothing; a forced
# regeneration with unchanged inputs rewrites no file and recompiles nothing.
set -eu
cd "$top_builddir"
snapshot() {
    find generated .libs runtime -type f \( -name '*.c' -o -name '*.h' -o -name '*.o' \
         -o -name '*.lo' -o -name '*.so*' -o -name '*.a' -o -name 'coverage.txt' \) \
         -newer "$1" 2>/dev/null | sort
}
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
sleep 1   # file times have a one-second grain on some file systems

out=$($MAKE all 2>&1)
changed=$(snapshot "$marker")
if [ -n "$changed" ]; then
    echo "FAIL: a second make changed files:"; echo "$changed"; echo "$out"; exit 1
fi
echo "a second make changed nothing"

rm -f generated/stamp
out=$($MAKE all 2>&1)
changed=$(snapshot "$marker")
if [ -n "$changed" ]; then
    echo "FAIL: regenerating unchanged inputs changed files:"; echo "$changed"; echo "$out"; exit 1
fi
[ -f generated/stamp ] || { echo "FAIL: make did not regenerate"; exit 1; }
echo "regenerating from unchanged inputs rewrote and recompiled nothing"
