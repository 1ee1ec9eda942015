#!/usr/bin/env bash
# Generator unit tests: no MPI needed (hand-written headers, a plain cc).
# Each test method is one TAP case (tests/lib/unittest_tap.py).
set -eu
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
cd "$top_srcdir"
PYTHONPATH="$top_srcdir/generator" PYTHONDONTWRITEBYTECODE=1 \
    exec_tap "$PYTHON" "$top_srcdir/tests/lib/unittest_tap.py" -s tests/generator -p 'test_*.py'
