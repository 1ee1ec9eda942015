#!/usr/bin/env bash
# The one clock's arithmetic (include/mpiwatch_clock.h): tests/trace/clock_test.c,
# built by make check, with synthetic clocks off by seconds, drifting, at
# another rate, and with uneven latencies; it reports its cases in TAP.
name=trace-clock
. "$(dirname "$0")/../lib/harness.sh"
test_program="$top_builddir/tests/trace/clock_test"
if [ ! -x "$test_program" ]; then
    echo "ERROR $name: $test_program is not built (make check builds it)" >&2
    exit 99
fi
exec_tap "$test_program"
