#!/bin/sh
# The README's layout table names every folder of the source tree that a
# newcomer looks for: each top-level folder, each runtime layer and each
# test folder. A folder added without a word in the README fails here.
set -eu
readme="$top_srcdir/README.md"
table=$(sed -n '/^## Layout/,/^## /p' "$readme")
failed=0 n=0
check() {   # check NAME TEXT-THAT-MUST-APPEAR [ROW]: in the table, or in its ROW
    n=$((n + 1))
    if printf '%s\n' "$table" | grep -F -- "${3:-|}" | grep -qF -- "$2"; then
        echo "ok $n - README layout names $1"
    else
        echo "not ok $n - README layout names $1 (no \"$2\" under ## Layout)"
        failed=$((failed + 1))
    fi
}
cd "$top_srcdir"
for d in */; do
    d=${d%/}
    case $d in generated|autom4te.cache|m4|build-aux|build-*|mpiwatch-*) continue ;; esac
    [ -n "$(git ls-files "$d" 2>/dev/null | head -1)" ] || [ ! -e .git ] || continue   # .git is a file in a worktree
    check "$d/" "\`$d/"
done
for d in runtime/*/ tests/*/; do
    d=${d%/}
    check "$d/" "\`$(basename "$d")/\`" "| \`${d%%/*}/\` |"
done
echo "1..$n"
[ "$failed" -eq 0 ]
