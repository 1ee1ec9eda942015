#!/usr/bin/env bash
# The writer's encoding of a chunk (runtime/trace/transcode.c):
# tests/trace/transcode_test.c, built by make check, checks raw records of
# every kind against the file format's bytes worked out by hand; it reports
# its cases in TAP.
name=trace-transcode
. "$(dirname "$0")/../lib/harness.sh"
exec_built_tap tests/trace/transcode_test
