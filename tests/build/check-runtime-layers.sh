#!/usr/bin/env bash
# The runtime's layering, read from the built objects' symbols: no cycle
# between runtime files, no file using a layer above its own, and generated
# wrappers using only the runtime's wrapper API (tests/build/runtime_layers.py
# says which rules and lists that API), and no two runtime files with one
# name. The checker's own
# self-test runs first, so a checker that sees nothing cannot pass.
set -eu
. "$(dirname "$0")/../lib/harness.sh"
tap_relay "runtime_layers.py --self-test" "$PYTHON" "$top_srcdir/tests/build/runtime_layers.py" --self-test
tap_relay "runtime_layers.py" "$PYTHON" "$top_srcdir/tests/build/runtime_layers.py" "$top_srcdir" "$top_builddir"
# A file's name says its room: no two runtime files share one (a reader
# who meets "counters.c" must not have to ask which).
shared=$(cd "$top_srcdir/runtime" && ls -- */*.c */*.h | sed 's|.*/||' | sort | uniq -d)
if [ -z "$shared" ]; then
    pass "no two runtime files share a name"
else
    fail "no two runtime files share a name" "shared: $(echo $shared)"
fi
finish
