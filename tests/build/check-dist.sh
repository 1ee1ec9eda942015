#!/usr/bin/env bash
# The tarball (make dist) holds the source tree and nothing a build or a
# test run left in the build tree. Automake copies a folder distributed whole
# (tests/trace, bench, docs...) from the build tree as well: a test
# program's object carried into the tarball is found there by VPATH, taken
# as up to date, and the tarball's own build then fails to link it.
set -eu
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
cd "$top_builddir"

# The build tree holds test programs' objects, as after make check.
$MAKE tests/trace/transcode_test tests/trace/clock_test >"$work/build.log" 2>&1 ||
    bail_out "dist: make of the test programs failed (see $work/build.log)"
dist=$work/mpiwatch-dist
if ! $MAKE distdir distdir="$dist" top_distdir="$dist" >"$work/distdir.log" 2>&1; then
    fail "make distdir" "it failed" "$work/distdir.log"
    finish
fi
(cd "$dist" && find . -mindepth 1 | sed 's|^\./||' | sort) >"$work/dist.txt"

grep -E '(^|/)(\.deps|\.libs|\.dirstamp)(/|$)|\.(o|lo|la|log|trs|time|pyc)$|__pycache__' \
    "$work/dist.txt" >"$work/products.txt" || true
for p in tests/trace/transcode_test tests/trace/clock_test tests/client/test_decoder; do
    grep -qx "$p" "$work/dist.txt" && echo "$p" >>"$work/products.txt"
done
if [ -s "$work/products.txt" ]; then
    fail "the tarball holds no build product" "$(wc -l <"$work/products.txt") found" "$work/products.txt"
else
    pass "the tarball holds no build product"
fi

# Against git: every tracked file but CI's and git's own is in the tarball,
# and the tarball holds nothing else but what autoreconf made.
if [ -e "$top_srcdir/.git" ] && git -C "$top_srcdir" ls-files >"$work/git.txt" 2>/dev/null; then
    (cd "$dist" && find . -type f | sed 's|^\./||' | sort) >"$work/dist-files.txt"
    grep -vE '^(\.ci/|\.gitignore$)' "$work/git.txt" | sort >"$work/source.txt"
    comm -13 "$work/dist-files.txt" "$work/source.txt" >"$work/missing.txt"
    if [ -s "$work/missing.txt" ]; then
        fail "the tarball holds every source file" "$(wc -l <"$work/missing.txt") missing" "$work/missing.txt"
    else
        pass "the tarball holds every source file"
    fi
    comm -23 "$work/dist-files.txt" "$work/source.txt" |
        grep -vE '^(configure|aclocal\.m4|Makefile\.in|build-aux/.*|m4/.*)$' >"$work/extra.txt" || true
    if [ -s "$work/extra.txt" ]; then
        fail "the tarball holds only source files" "$(wc -l <"$work/extra.txt") others" "$work/extra.txt"
    else
        pass "the tarball holds only source files"
    fi
else
    skip "the tarball holds every source file" "the source tree is not a git checkout"
    skip "the tarball holds only source files" "the source tree is not a git checkout"
fi
finish
