#!/usr/bin/env bash
# The client's C unit tests (decoder and model, endpoints, recordings, JSON,
# the wait-for graph, the wait-state analysis, rates and the communication matrix, the JSON check of
# --report, the --web address parser and the live page's state hub)
# and the fuzz seed corpus replayed through the fuzz target, built by make
# check in the build tree. Each program is one TAP case; its checks' count
# ("NAME: N checks, M failed") is in the case's name, and a failed check's
# message follows as a comment.
set -u
. "$(dirname "$0")/../lib/harness.sh"
b=$top_builddir/tests/client
s=$top_srcdir/tests/client
# unit NAME COMMAND...: run one program as the case NAME.
unit() {
    local case=$1 rc=0 summary
    shift
    "$@" >"$work/$case.out" 2>&1 || rc=$?
    summary=$(grep -E '^[^ ]+: [0-9]+ checks, [0-9]+ failed$' "$work/$case.out" | tail -n 1 | sed 's/^[^:]*: //')
    if [ "$rc" -eq 0 ]; then
        pass "$case${summary:+ ($summary)}"
    else
        fail "$case" "status $rc${summary:+ ($summary)}" "$work/$case.out"
    fi
}
for t in test_decoder test_endpoints test_record test_json test_waitfor test_rates test_json_check \
         test_web_addr test_web_hub test_wait_states test_trace_requests; do
    unit "$t" "$b/$t"
done
unit "fuzz corpus" "$b/fuzz_corpus" "$s"/corpus/*
finish
