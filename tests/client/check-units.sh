#!/usr/bin/env bash
# The client's C unit tests (decoder and model, endpoints, recordings, JSON,
# the wait-for graph, rates and the communication matrix, the JSON check of
# --report, the --web address parser and the live page's state hub)
# and the fuzz seed corpus replayed through the fuzz target, built by make
# check in the build tree.
set -u
b=${top_builddir:?run through make check}/tests/client
s=${top_srcdir:?run through make check}/tests/client
failed=0
for t in test_decoder test_endpoints test_record test_json test_waitfor test_rates test_json_check \
         test_web_addr test_web_hub; do
    if "$b/$t"; then echo "PASS $t"; else echo "FAIL $t"; failed=1; fi
done
if "$b/fuzz_corpus" "$s"/corpus/*; then echo "PASS fuzz corpus"; else echo "FAIL fuzz corpus"; failed=1; fi
exit $failed
