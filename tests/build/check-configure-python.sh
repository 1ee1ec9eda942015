#!/usr/bin/env bash
# configure picks a Python that has jinja2 and pycparser, not merely the
# first python3 on PATH: with a python3 that lacks them first on PATH (a
# Debian python3 started with -S, which hides its modules, as a pyenv or
# conda shim would), configure chooses another, says which, and names the
# one it passed over with what it lacks; given only that one (PYTHON=), it
# stops with an error naming the missing modules and the Debian packages.
set -eu
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
if [ -f "$top_srcdir/config.status" ]; then
    # configure refuses to build out of a source tree configured in place.
    skip_all "the source tree is configured in place; configure cannot run elsewhere from it"
fi
real=$(command -v python3.11 || command -v /usr/bin/python3)
mkdir "$work/bin" "$work/a" "$work/b"
printf '#!/bin/sh\nexec %s -S "$@"\n' "$real" >"$work/bin/python3"
chmod +x "$work/bin/python3"
check() {   # check DESCRIPTION FILE EXTENDED-REGEX
    if grep -Eq -- "$3" "$2"; then
        pass "$1"
    else
        fail "$1" "no /$3/ in $2:"
        sed 's/^/#   /' "$2" | grep -i -A3 python | head -20
    fi
}
# make check exports PYTHON (configure's choice for this build): unset here,
# so that configure looks for an interpreter itself.
(cd "$work/a" && env -u PYTHON PATH="$work/bin:$PATH" "$top_srcdir/configure" MPICC="$MPICC" \
     --disable-fortran >out 2>&1) || true
check "configure passes over a python3 without the modules" "$work/a/out" \
    "^configure: passed over: $work/bin/python3 \\(lacks jinja2 pycparser\\)"
check "configure says which Python it chose" "$work/a/out" \
    "^checking for Python 3 with jinja2 and pycparser\\.\\.\\. yes \\(/"
check "the chosen Python is not the one without the modules" "$work/a/out" \
    "^ +Python: +/[^ ]*\$"
if grep -q "Python: *$work/bin/python3" "$work/a/out"; then
    fail "configure chose $work/bin/python3"
fi
(cd "$work/b" && PATH="$work/bin:$PATH" "$top_srcdir/configure" MPICC="$MPICC" \
     PYTHON="$work/bin/python3" --disable-fortran >out 2>&1) && status=0 || status=$?
if [ "$status" -ne 0 ]; then pass "configure stops when no Python has the modules"
else fail "configure went on with $work/bin/python3"; fi
check "the error names what is missing" "$work/b/out" "Tried: $work/bin/python3 \\(lacks jinja2 pycparser\\)"
check "the error names the Debian packages" "$work/b/out" "apt-get install python3 python3-jinja2 python3-pycparser"
finish
