#!/usr/bin/env bash
# Fuzzes the client's decoder, recording reader and model with libFuzzer
# (fuzz_decoder.c), starting from the seed corpus in tests/client/corpus.
#   tests/client/run-fuzz.sh [SECONDS]        (default 60)
# Needs clang with libFuzzer (Debian: clang, libclang-rt-dev); without it the
# script says so (TAP: 1..0 # SKIP). Reports in TAP. New inputs go to a work
# corpus, not the seeds; a crash leaves its input in the work directory,
# which is then kept and named: add it to tests/client/corpus once fixed.
# Environment: CLANG (default clang), MW_FUZZ_WORK (default a temporary
# directory), MW_FUZZ_JOBS (parallel fuzzing processes, default 1).
set -u
seconds=${1:-${MW_FUZZ_SECONDS:-60}}
here=$(cd "$(dirname "$0")" && pwd)
src=${top_srcdir:-$here/../..}
src=$(cd "$src" && pwd)
. "$here/../lib/tap.sh"
clang=${CLANG:-clang}
if ! command -v "$clang" >/dev/null 2>&1; then
    skip_all "fuzz: no $clang (install clang and libclang-rt-dev to fuzz the client)"
fi
work=${MW_FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/mpiwatch-fuzz.XXXXXX")}
mkdir -p "$work/corpus"
probe="$work/probe.c"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$probe"
if ! "$clang" -fsanitize=fuzzer "$probe" -o "$work/probe" >/dev/null 2>&1; then
    rm -rf "$work"
    skip_all "fuzz: $clang has no libFuzzer (Debian: apt-get install libclang-rt-14-dev)"
fi
c="$src/client"
if ! "$clang" -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -D_DEFAULT_SOURCE -I"$c" -I"$src/include" -o "$work/fuzz_decoder" "$src/tests/client/fuzz_decoder.c" \
        "$c/decoder.c" "$c/model.c" "$c/session.c" "$c/record.c" "$c/util.c" "$c/view_json.c" \
        "$c/waitfor.c" "$c/rates.c" "$c/matrix.c" "$c/view_tty.c" \
        >"$work/build.log" 2>&1; then
    fail "fuzz: the harness builds" "it does not" "$work/build.log"
    finish
fi
cp "$src"/tests/client/corpus/* "$work/corpus/"
note "fuzzing for $seconds s in $work"
jobs=${MW_FUZZ_JOBS:-1}
parallel=()
# -jobs forks workers that log to fuzz-N.log; one job runs in this process.
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
(cd "$work" && ./fuzz_decoder -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 "${parallel[@]}" \
    corpus "$src/tests/client/corpus" >"$work/fuzz.log" 2>&1)
rc=$?
[ "$jobs" -gt 1 ] && cat "$work"/fuzz-*.log >>"$work/fuzz.log" 2>/dev/null
grep -E '^(#[0-9]+ +DONE|Done|stat::number_of_executed_units|stat::peak_rss_mb)|cov:' "$work/fuzz.log" | tail -n 4 | sed 's/^/# /'
note "corpus: $(ls "$work/corpus" | wc -l) inputs"
if [ "$rc" -ne 0 ] || ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
    fail "fuzz ($seconds s)" "a crash, leak, timeout or out-of-memory (work directory kept: $work)"
    grep -E 'ERROR|SUMMARY|artifact' "$work/fuzz.log" | head -n 20 | sed 's/^/# /'
    finish
fi
pass "fuzz ($seconds s, no crash)"
[ -z "${MW_FUZZ_WORK:-}" ] && rm -rf "$work"
finish
