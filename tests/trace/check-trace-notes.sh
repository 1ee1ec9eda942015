#!/usr/bin/env bash
# The trace's request table across threads (runtime/trace/notes.c):
# tests/trace/notes_threads_test.c, built by make check, makes threads take
# turns in the orders a multi-threaded run meets only by chance (a freed
# handle reused by another thread before the first one's look-up); it
# reports its cases in TAP.
name=trace-notes
. "$(dirname "$0")/../lib/harness.sh"
exec_built_tap tests/trace/notes_threads_test
