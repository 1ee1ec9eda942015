#!/usr/bin/env bash
# The README's layout table names every folder of the source tree that a
# newcomer looks for: each top-level folder (.ci/ too) and each folder under
# it (the runtime's layers, the test suites, client/web, templates/wrapper,
# ...), either by its path or, in its parent's row, by its name. A folder
# added without a word in the README fails here.
set -eu
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
readme="$top_srcdir/README.md"
table=$(sed -n '/^## Layout/,/^## /p' "$readme")
# named NAME TEXT [ROW]: TEXT is in the table, or in its ROW (a prefix of the row).
named() {
    printf '%s\n' "$table" | grep -F -- "${2:-|}" | grep -qF -- "$1"
}
cd "$top_srcdir"
# source_folder DIR: DIR holds files of the source tree (tracked by git, when
# this is a git checkout; else any file, as in a distribution's tree).
source_folder() {
    if [ -e .git ]; then   # .git is a file in a worktree
        [ -n "$(git ls-files -- "$1" 2>/dev/null | head -n 1)" ]
    else
        [ -n "$(find "$1" -type f | head -n 1)" ]
    fi
}
top=()
for d in */ .[!.]*/; do
    [ -d "$d" ] || continue
    d=${d%/}
    case $d in .git|generated|autom4te.cache|m4|build-aux|build-*|mpiwatch-*) continue ;; esac
    source_folder "$d" || continue
    top+=("$d")
    if named "\`$d/"; then
        pass "README layout names $d/"
    else
        fail "README layout names $d/" "no \"\`$d/\" under ## Layout"
    fi
done
for parent in "${top[@]}"; do
    for d in "$parent"/*/; do
        [ -d "$d" ] || continue
        d=${d%/}
        case ${d##*/} in __pycache__|.*) continue ;; esac
        source_folder "$d" || continue
        # By its path anywhere in the table, or by its name in its parent's row.
        if named "\`$d/" || named "\`${d##*/}/" "| \`$parent/"; then
            pass "README layout names $d/"
        else
            fail "README layout names $d/" "neither \"\`$d/\" under ## Layout nor \"\`${d##*/}/\" in the row of \`$parent/\`"
        fi
    done
done
finish
