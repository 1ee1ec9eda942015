#!/usr/bin/env bash
# A short libFuzzer run of the client's decoder (run-fuzz.sh), MW_FUZZ_SECONDS
# long (default 20); SKIP without clang's libFuzzer.
exec "${top_srcdir:?run through make check}/tests/client/run-fuzz.sh" "${MW_FUZZ_SECONDS:-20}"
