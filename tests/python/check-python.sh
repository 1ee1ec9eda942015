#!/usr/bin/env bash
# The Python package (python/mpiwatch/, docs/python.md) by its unit tests
# (tests/python/test_*.py, stdlib unittest, one TAP case per test method):
# load() on synthetic reports of 1, 4 and 1,024 ranks, diff(), the --fail-if
# grammar and statuses, the Hatchet literal. Run twice: with pandas (when
# installed: DataFrames) and with pandas hidden (tests/python/no_pandas:
# lists, and load() says so). With the Python configure chose and, when it is
# another, Debian's /usr/bin/python3 (python3-pandas is Debian's). No MPI needed.
set -u
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
cd "$top_srcdir"
py=$top_srcdir/python:$top_srcdir/tests/python
# run PYTHON LABEL PYTHONPATH: the unit tests, each case's name prefixed with LABEL.
run() {
    tap_relay "$2" bash -c 'set -o pipefail
        PYTHONPATH=$3 "$1" "$top_srcdir/tests/lib/unittest_tap.py" -s tests/python -p "test_*.py" \
            -t tests/python | sed "s|^\(\(not \)\{0,1\}ok [0-9]* - \)|\1$2: |"' run "$1" "$2" "$3"
}
pythons=$PYTHON
if [ -x /usr/bin/python3 ] && [ "$(readlink -f /usr/bin/python3)" != "$(readlink -f "$PYTHON")" ]; then
    pythons="$pythons /usr/bin/python3"
fi
with_pandas=0
for p in $pythons; do
    if PYTHONPATH=$py "$p" -c 'import mpiwatch, sys; sys.exit(0 if mpiwatch.HAVE_PANDAS else 1)' 2>/dev/null; then
        run "$p" "$p with pandas" "$py"
        with_pandas=1
    fi
    run "$p" "$p without pandas" "$top_srcdir/tests/python/no_pandas:$py"
done
if [ "$with_pandas" = 0 ]; then
    skip "with pandas" "no Python here has pandas (Debian: python3-pandas); the tests ran without it"
fi
finish
