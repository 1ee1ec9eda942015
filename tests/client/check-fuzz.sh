#!/usr/bin/env bash
# A short libFuzzer run of the client's decoder (run-fuzz.sh), MW_FUZZ_SECONDS
# long (default 20); SKIP without clang's libFuzzer.
. "$(dirname "$0")/../lib/harness.sh"
exec_tap "$top_srcdir/tests/client/run-fuzz.sh" "${MW_FUZZ_SECONDS:-20}"
