#!/usr/bin/env bash
# The exact communication matrix (docs/report-format.md, "The matrix file"):
# an all-to-all program on 64 ranks (each pair its own message count and
# size, by point-to-point calls) writes beside its report NAME.matrix, whose
# every one of the 64 x 63 pairs, read back by `mpiwatch --matrix-file`,
# has the bytes and messages the program counted itself; the text report
# names the file under its busiest pairs, and the client's page of the
# report holds every pair (tests/client/page_matrix_check.py). A program that sends no message
# writes no matrix file (and its text names none); a damaged file is refused with a
# message naming it.
name=matrix-file
. "$(dirname "$0")/../lib/harness.sh"
need_client

NP=${MW_MATRIX_NP:-64}
MW_TIMEOUT=600
build "$rt_dir/alltoall_pairs.c" "$work/alltoall" bare
mkdir -p "$work/a2a/out" "$work/a2a/sent"
run "$work/a2a" "$NP" preload MPIWATCH_OUTDIR="$work/a2a/out" -- "$work/alltoall" "$work/a2a/sent"
json=$(reports "$work/a2a/out" 'mpiwatch-*.json')
matrix=$(reports "$work/a2a/out" 'mpiwatch-*.matrix')
if [ "$(rc_of "$work/a2a")" -ne 0 ] || [ -z "$json" ] || [ -z "$matrix" ]; then
    fail "all-to-all on $NP ranks: run" \
        "failed, or wrote no report or no matrix file ($(describe_rc "$(rc_of "$work/a2a")"))" \
        "$work/a2a/stderr"
    finish
fi
if [ "${matrix%.matrix}" = "${json%.json}" ]; then
    pass "the matrix file is named after the report: $matrix"
else
    fail "matrix file name" "$matrix is not $json's name with .matrix"
fi
sort -n -k1,1 -k2,2 "$work"/a2a/sent/sent.* >"$work/expected"
if "$client" --matrix-file "$work/a2a/out/$matrix" >"$work/read" 2>"$work/read.err"; then
    pass "mpiwatch --matrix-file reads it"
else
    fail "mpiwatch --matrix-file" "exit status not 0" "$work/read.err"
fi
pairs=$(wc -l <"$work/expected")
if [ "$pairs" -eq $((NP * (NP - 1))) ] && [ "$(head -n 1 "$work/read")" = "from to bytes messages" ] &&
   tail -n +2 "$work/read" | cmp -s - "$work/expected"; then
    pass "all $pairs pairs exact: bytes and messages as the program counted them"
else
    fail "the matrix's pairs" "the program counted $pairs pairs; the file's pairs differ (diff below)" \
        <(tail -n +2 "$work/read" | diff - "$work/expected" | head -n 20)
fi
# The report keeps its top pairs: each rank's busiest destinations.
top=$("$PYTHON" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["pairs"]))' \
      "$work/a2a/out/$json")
if [ "$top" -eq $((NP * 16)) ]; then
    pass "the report keeps its top pairs ($top: 16 per rank)"
else
    fail "the report's top pairs" "expected $((NP * 16)), found $top"
fi
# The text report names the file beside its busiest pairs.
txt="${json%.json}.txt"
if grep -qF "  every pair, exactly: $matrix (\`mpiwatch --matrix-file\` prints it, \`mpiwatch --report ${json} --html\` draws it)" "$work/a2a/out/$txt"; then
    pass "the text report names $matrix beside its busiest pairs"
else
    fail "the text report" "no line naming $matrix under its busiest pairs" "$work/a2a/out/$txt"
fi

# The client's page of the report holds the file's every pair (64 ranks: a block each).
if "$client" -q --report "$work/a2a/out/$json" --html "$work/a2a/page.html" 2>"$work/a2a/page.err"; then
    if said=$("$PYTHON" "$top_srcdir/tests/client/page_matrix_check.py" "$work/a2a/page.html" \
              <(tail -n +2 "$work/read") 2>&1); then
        pass "mpiwatch --report --html: the page holds the matrix: $said"
    else
        fail "the page's matrix" "$said"
    fi
elif grep -q 'built without Chart.js' "$work/a2a/page.err"; then
    skip "the page's matrix" "this build has no HTML report (no Chart.js)"
else
    fail "the page's matrix" "mpiwatch --report --html failed" "$work/a2a/page.err"
fi

# No message sent: no matrix file.
cat >"$work/quiet.c" <<'C'
#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
C
build "$work/quiet.c" "$work/quiet" bare
mkdir -p "$work/quiet-run/out"
run "$work/quiet-run" 2 preload MPIWATCH_OUTDIR="$work/quiet-run/out" -- "$work/quiet"
if [ "$(rc_of "$work/quiet-run")" -eq 0 ] && [ -n "$(reports "$work/quiet-run/out" 'mpiwatch-*.json')" ] &&
   [ -z "$(reports "$work/quiet-run/out" 'mpiwatch-*.matrix')" ] &&
   ! grep -q 'every pair, exactly' "$work/quiet-run/out"/mpiwatch-*.txt; then
    pass "a job that sends no message writes its report and no matrix file (nor names one)"
else
    fail "no messages" "expected a report and no .matrix" "$work/quiet-run/stderr"
fi

# Damaged files: a clear message naming the file, exit status 1.
damaged() {   # CASE FILE PATTERN
    local rc=0
    "$client" --matrix-file "$2" >"$work/damaged.out" 2>"$work/damaged.err" || rc=$?
    if [ "$rc" -eq 1 ] && grep -q -- "$(basename "$2"): $3" "$work/damaged.err"; then
        pass "damaged: $1"
    else
        fail "damaged: $1" "exit $rc (want 1), or no \"$3\"" "$work/damaged.err"
    fi
}
damaged "not a matrix" "$work/a2a/out/$json" "not an mpiwatch matrix file"
head -c 300 "$work/a2a/out/$matrix" >"$work/short.matrix"
damaged "truncated" "$work/short.matrix" "300 bytes cannot hold the index of $NP ranks"
head -c $((16 + (NP + 1) * 8 + 100)) "$work/a2a/out/$matrix" >"$work/cut.matrix"
damaged "rows cut" "$work/cut.matrix" "the index says"
damaged "missing" "$work/none.matrix" "cannot read it"
finish
