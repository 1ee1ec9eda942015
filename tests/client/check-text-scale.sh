#!/usr/bin/env bash
# The text report stays readable at any job size (docs/scaling.md, "The
# report files"): partial profiles of some ranks of a 1,000-rank job, made
# here (tests/client/partial-profiles.py), merged by `mpiwatch --merge`:
# - the missing ranks are ranges, at most 16 of them, then how many more,
#   in the text report and on mpiwatch's standard error; the JSON report
#   lists every one;
# - "Time per rank" lists at most 16 ranks (the most and least MPI time, the
#   median) and says how many there are; no line of the text is longer than
#   400 characters;
# - a job of 8 ranks with 3, 4, 6 and 7 missing says "3-4, 6-7".
needs_library=no
name=text-scale
. "$(dirname "$0")/../lib/harness.sh"

need_client
if [ "${MW_HAVE_JANSSON:-no}" != yes ]; then
    skip_all "$name: this build has no --merge (configure found no libjansson; install libjansson-dev)"
fi
make_partials="$top_srcdir/tests/client/partial-profiles.py"

# merge CASE DIR: mpiwatch --merge DIR; the merged text report's name in $text.
merge() {
    if ! "$client" --merge "$2" >"$2.out" 2>"$2.err"; then
        fail "$1: --merge" "mpiwatch --merge failed" "$2.err"
        return 1
    fi
    text=$(ls "$2"/*-merged.txt 2>/dev/null | head -n 1)
    [ -n "$text" ] || { fail "$1: --merge" "no merged text report in $2" "$2.err"; return 1; }
}

# 1,000 ranks: 0-9, the even ranks 20-58 and rank 500 have profiles.
big="$work/big"
"$PYTHON" "$make_partials" "$big" 1000 $(seq 0 9) $(seq 20 2 58) 500
if merge "1000 ranks" "$big"; then
    want="missing (no partial profile): 10-19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 41, 43, 45, 47, 49, and 944 more ranks (all in the JSON report)"
    if grep -qF "MERGED from the partial profiles of 31 of 1000 ranks; $want" "$text"; then
        pass "1000 ranks: the text names the 969 missing ranks as 16 ranges and how many more"
    else
        fail "1000 ranks: missing" "no line '... $want'" "$text"
    fi
    if grep -qF "(missing: 10-19, 21, 23," "$big.err" && grep -qF "and 944 more ranks" "$big.err"; then
        pass "1000 ranks: so does mpiwatch's standard error ($(wc -c <"$big.err") bytes)"
    else
        fail "1000 ranks: stderr" "the missing ranks are not summed up as ranges" "$big.err"
    fi
    listed=$("$PYTHON" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["merged"]["missing"]))' "${text%.txt}.json")
    if [ "$listed" = 969 ]; then
        pass "1000 ranks: the JSON report lists all 969 missing ranks"
    else
        fail "1000 ranks: JSON" "the JSON report lists $listed missing ranks, not 969" "${text%.txt}.json"
    fi
    lines=$(sed -n '/^Time per rank/,/^  mean/p' "$text" | grep -c '^  rank ')
    longest=$(awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }' "$text")
    if [ "$lines" -le 16 ] && grep -q '^  (31 ranks, ordered by MPI time; all of them are in the JSON report)$' "$text" &&
       grep -q '^  rank 500 .*most MPI$' "$text" && [ "$longest" -le 400 ]; then
        pass "1000 ranks: $lines rank lines of 31 (rank 500, the most MPI time, among them); the longest line $longest characters; the text is $(wc -l <"$text") lines"
    else
        fail "1000 ranks: per rank" "$lines rank lines, the longest line $longest characters" "$text"
    fi
fi

# 8 ranks, 3, 4, 6 and 7 missing: ranges, nothing left out.
small="$work/small"
"$PYTHON" "$make_partials" "$small" 8 0 1 2 5
if merge "8 ranks" "$small"; then
    if grep -q 'MERGED from the partial profiles of 4 of 8 ranks; missing (no partial profile): 3-4, 6-7$' "$text"; then
        pass "8 ranks: missing 3-4, 6-7"
    else
        fail "8 ranks: missing" "no line '... missing (no partial profile): 3-4, 6-7'" "$text"
    fi
fi
finish
