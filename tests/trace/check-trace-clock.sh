#!/usr/bin/env bash
# The one clock's arithmetic (include/mpiwatch_clock.h): tests/trace/clock_test.c,
# built by make check, with synthetic clocks off by seconds, drifting, at
# another rate, and with uneven latencies; it reports its cases in TAP.
name=trace-clock
. "$(dirname "$0")/../lib/harness.sh"
exec_built_tap tests/trace/clock_test
