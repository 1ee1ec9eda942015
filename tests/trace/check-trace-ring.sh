#!/usr/bin/env bash
# The trace (docs/trace.md), with examples/ring.c preloaded on 4 ranks:
# - traced: MPIWATCH_TRACE=1 leaves the bare run's output and status, one
#   file per rank, NAME.trace.RANK with one NAME; decoded from the format
#   (trace_check.py, independent of the client), per function as many calls
#   as the JSON report, whose "trace" says as many events and none dropped;
# - non-blocking (tests/trace/nonblocking.c): requests matched to their
#   completions, roots, a polling loop folded, flows to non-blocking receives;
# - perfetto: `mpiwatch --trace DIR --perfetto OUT` exits 0; OUT parses, has
#   one process per rank, and every flow joins a send to the receive that
#   matched it, as many flows as the report's messages; with --ranks 1,2
#   --window (the middle third of the work): processes 1 and 2, exactly the whole
#   conversion's calls of theirs that overlap the window and the flows
#   between two of them, and otherData says how many calls it left out;
# - transfers (tests/trace/transfers.c): each rank's records of its sends,
#   receives and reductions to all carry the peers, tags and bytes the program
#   wrote down for them, in order (tags changing at one call site, a receive's
#   matched tag from its status, a communicator of its own, a shape changing,
#   non-blocking ones, whose requests are each completed once);
# - threads (tests/runtime/threads.c, 4 threads a rank) and Fortran
#   (examples/halo.f90 with libmpiwatch_f): per function as many calls in the
#   files as in the report, every request completed once, and their Perfetto
#   conversions a process per rank and a flow for each message; threads.c under a 256K bound (less than a chunk
#   for each of its 5 threads a rank): calls dropped, and written + dropped =
#   the report's calls, exactly;
# - bounded: tests/monitor/ring.c, 20000 iterations, MPIWATCH_TRACE_BUFFER=256K:
#   the calls written plus the dropped ones are the report's calls, exactly,
#   and the drops the files say are the report's;
# - truncated (copies of the bounded run's files, several chunks a rank):
#   rank 1's file cut inside its last chunk still converts (exit 0), with
#   fewer calls of rank 1 but some; a file cut inside its header (the other
#   ranks converted), or with garbage after its chunks, is named on stderr,
#   exit 1; 300 damaged copies of the ring's rank 1 file (bytes changed, cut,
#   repeated) each convert without a crash, exit 0 or 1, JSON that parses;
# - bad values: MPIWATCH_TRACE=yes, MPIWATCH_TRACE_BUFFER=12 and
#   MPIWATCH_TRACE_RANKS=3-1 each get one warning naming the value, and the run
#   is the bare run (every rank traced for the last);
# - ranks: MPIWATCH_TRACE_RANKS=1,3 leaves the files of ranks 1 and 3 only,
#   which convert; rank 0 says once that the wait states are not analysed
#   at MPI_Finalize (not every rank traced);
# - regions and pcontrol (tests/runtime/regions.c linked, pcontrol.c toggle):
#   each named region's begins are the report's entries and the calls inside
#   it its calls, well nested, begun and ended as often in Perfetto; the
#   MPI_Pcontrol levels 0, 1, 0, 1 are marked and nothing else is recorded
#   while paused;
# - unwritable: MPIWATCH_TRACE_DIR naming no folder: a warning naming it, the
#   bare run's output and status, a report without "trace".
# The cost of a call with the trace off is tests/runtime/check-cost.sh's.
name=trace-ring
. "$(dirname "$0")/../lib/harness.sh"

NP=4
check="$top_srcdir/tests/trace/trace_check.py"
need_client
build "$top_srcdir/examples/ring.c" "$work/ring" plain
build "$top_srcdir/tests/monitor/ring.c" "$work/busy" plain

run "$work/bare" "$NP" bare -- "$work/ring"
if [ "$(rc_of "$work/bare")" -ne 0 ]; then
    fail "bare ring" "the program fails without mpiwatch: $(describe_rc "$(rc_of "$work/bare")")" \
        "$work/bare/stdout" "$work/bare/stderr"
    finish
fi

# --- traced
out="$work/traced/cwd"
run "$work/traced" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/ring"
same_output "traced: output and status" "$work/traced" "$work/bare"
report="$out/$(reports "$out" 'mpiwatch-*.json' | head -n 1)"
traces=$(cd "$out" && ls | grep '\.trace\.[0-9]*$' | sort)
names=$(printf '%s\n' "$traces" | sed 's/\.trace\.[0-9]*$//' | sort -u)
ranks=$(printf '%s\n' "$traces" | sed 's/.*\.trace\.//' | sort -n | tr '\n' ' ')
if [ "$(printf '%s\n' "$names" | grep -c .)" -eq 1 ] && [ "$ranks" = "0 1 2 3 " ]; then
    pass "traced: one file per rank, $names.trace.RANK"
else
    fail "traced: files" "expected NAME.trace.0 to .3 of one NAME, found: $(echo $traces)"
fi
files=()
for t in $traces; do files+=("$out/$t"); done
checked "traced: calls per function" "$PYTHON" "$check" counts "$report" "${files[@]}"
dropped=$(json_get "$report" trace dropped)
if [ "$dropped" = 0 ]; then
    pass "traced: the report says no call was dropped"
else
    fail "traced: dropped" "the report's trace.dropped is $dropped"
fi

# --- perfetto
checked "perfetto: converted" "$client" --trace "$out" --perfetto "$work/ring.json"
checked "perfetto: processes and flows" "$PYTHON" "$check" perfetto "$work/ring.json" "$NP" "$report"
# --ranks and --window: ranks 1 and 2, the middle third of the work.
if win=$("$PYTHON" "$check" window "$work/ring.json" 2>&1); then
    checked "perfetto --ranks 1,2 --window $win: converted" \
        "$client" --trace "$out" --perfetto "$work/ring-part.json" --ranks 1,2 --window "$win"
    checked "perfetto --ranks 1,2 --window: processes and flows" \
        "$PYTHON" "$check" perfetto "$work/ring-part.json" 1,2
    checked "perfetto --ranks 1,2 --window: exactly the calls and flows taken, the rest said" \
        "$PYTHON" "$check" selected "$work/ring.json" "$work/ring-part.json" 1,2 \
        "${win%%:*}" "${win##*:}"
else
    fail "perfetto --ranks --window" "no window from the whole conversion: $win"
fi
rc7=0 rc100=0
"$client" --trace "$out" --perfetto "$work/none.json" --ranks 7-9 2>"$work/none7.err" || rc7=$?
"$client" --trace "$out" --perfetto "$work/none.json" --window 100: 2>"$work/none100.err" || rc100=$?
if [ "$rc7" = 1 ] && [ "$rc100" = 1 ] && [ ! -e "$work/none.json" ] &&
    grep -q "none of them chosen" "$work/none7.err" && grep -q "no call of the" "$work/none100.err"; then
    pass "perfetto --ranks 7-9 of 4, --window 100: past the end: status 1, said, no file"
else
    fail "perfetto: nothing chosen" "status $rc7 and $rc100, file: $(ls "$work/none.json" 2>&1)" \
        "$work/none7.err" "$work/none100.err"
fi

# --- non-blocking (tests/trace/nonblocking.c --polls 100000): every request
# started is completed once, every completion names its start, rooted
# collectives have their root; rank 0's 100000 tests that found nothing are
# one record; the calls per function are still the report's, and every flow
# (to an Irecv: at the wait or test that completed it) joins a send to its
# receive, as many as the report's messages.
build "$top_srcdir/tests/trace/nonblocking.c" "$work/nonblocking" plain
run "$work/nb" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/nonblocking" \
    --polls 100000
nb_files=()
for t in $(cd "$work/nb/cwd" && ls | grep '\.trace\.[0-9]*$'); do nb_files+=("$work/nb/cwd/$t"); done
nb_report="$work/nb/cwd/$(reports "$work/nb/cwd" 'mpiwatch-*.json' | head -n 1)"
if [ "$(rc_of "$work/nb")" -ne 0 ] || [ "${#nb_files[@]}" -ne "$NP" ]; then
    fail "non-blocking: run" "$(describe_rc "$(rc_of "$work/nb")"), ${#nb_files[@]} trace files" \
        "$work/nb/stdout" "$work/nb/stderr"
else
    checked "non-blocking: calls per function" "$PYTHON" "$check" counts "$nb_report" "${nb_files[@]}"
    checked "non-blocking: requests and roots" "$PYTHON" "$check" requests "${nb_files[@]}"
    checked "non-blocking: polls folded" "$PYTHON" "$check" polls "${nb_files[@]}" 100000 MPI_Test
    checked "non-blocking: perfetto converted" "$client" --trace "$work/nb/cwd" --perfetto "$work/nb.json"
    checked "non-blocking: processes and flows" "$PYTHON" "$check" perfetto "$work/nb.json" "$NP" \
        "$nb_report"
fi

# --- transfers (tests/trace/transfers.c): each rank's sends, receives (also
# non-blocking) and reductions to all, most recorded from their call sites'
# memos, with the peers, tags (changing at one site, a receive's from its
# status) and bytes the program expected, in order; every request started is
# completed once; the calls per function are the report's.
build "$top_srcdir/tests/trace/transfers.c" "$work/transfers" plain
run "$work/tr" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/transfers"
tr_files=()
for t in $(cd "$work/tr/cwd" && ls | grep '\.trace\.[0-9]*$'); do tr_files+=("$work/tr/cwd/$t"); done
if [ "$(rc_of "$work/tr")" -ne 0 ] || [ "${#tr_files[@]}" -ne "$NP" ]; then
    fail "transfers: run" "$(describe_rc "$(rc_of "$work/tr")"), ${#tr_files[@]} trace files" \
        "$work/tr/stdout" "$work/tr/stderr"
else
    checked "transfers: peers, tags and bytes" "$PYTHON" "$check" transfers "$work/tr/cwd" \
        "${tr_files[@]}"
    checked "transfers: requests" "$PYTHON" "$check" requests "${tr_files[@]}"
    checked "transfers: calls per function" "$PYTHON" "$check" counts \
        "$work/tr/cwd/$(reports "$work/tr/cwd" 'mpiwatch-*.json' | head -n 1)" "${tr_files[@]}"
fi

# --- threads and Fortran: per function, the files' calls are the report's
# traced_counts CASE DIR: the run in DIR (status 0) left one trace file per
# rank whose calls per function are its report's, every request started
# completed once, and whose Perfetto conversion has a process per rank and a
# flow from each of the report's messages' send to its receive.
traced_counts() {
    local case=$1 dir=$2 t
    local -a found=()
    if [ "$(rc_of "$dir")" -ne 0 ]; then
        fail "$case: status" "$(describe_rc "$(rc_of "$dir")")" "$dir/stdout" "$dir/stderr"
        return
    fi
    for t in $(cd "$dir/cwd" && ls | grep '\.trace\.[0-9]*$'); do found+=("$dir/cwd/$t"); done
    if [ "${#found[@]}" -ne "$NP" ]; then
        fail "$case: files" "${#found[@]} trace files, not $NP"
        return
    fi
    local report="$dir/cwd/$(reports "$dir/cwd" 'mpiwatch-*.json' | head -n 1)"
    checked "$case: calls per function" "$PYTHON" "$check" counts "$report" "${found[@]}"
    checked "$case: requests and roots" "$PYTHON" "$check" requests "${found[@]}"
    checked "$case: perfetto converted" "$client" --trace "$dir/cwd" --perfetto "$dir.json"
    checked "$case: processes and flows" "$PYTHON" "$check" perfetto "$dir.json" "$NP" "$report"
}
build "$top_srcdir/tests/runtime/threads.c" "$work/threads-prog" plain
run "$work/threads" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/threads-prog"
if grep -q '^SKIP' "$work/threads/stdout"; then
    skip "threads" "$(grep '^SKIP' "$work/threads/stdout" | head -n 1 | sed 's/^SKIP: //')"
else
    traced_counts "threads (4 a rank, MPI_THREAD_MULTIPLE)" "$work/threads"
fi
# Five threads a rank (the main one and 4) under a bound of 256K, less than
# five chunks: some threads never get one, so calls are dropped for certain.
run "$work/threads-bounded" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_BUFFER=256K \
    MPIWATCH_FORMATS=json -- "$work/threads-prog"
out="$work/threads-bounded/cwd"
if grep -q '^SKIP' "$work/threads-bounded/stdout"; then
    skip "threads bounded" "$(grep '^SKIP' "$work/threads-bounded/stdout" | head -n 1 | sed 's/^SKIP: //')"
elif [ "$(rc_of "$work/threads-bounded")" -ne 0 ] ||
        [ "$(cat "$work/threads-bounded/stdout")" != "errors 0" ]; then
    fail "threads bounded: status" "$(describe_rc "$(rc_of "$work/threads-bounded")")" \
        "$work/threads-bounded/stdout" "$work/threads-bounded/stderr"
else
    report="$out/$(reports "$out" 'mpiwatch-*.json' | head -n 1)"
    dropped=$(json_get "$report" trace dropped)
    if [ "$dropped" -gt 0 ] 2>/dev/null; then
        pass "threads bounded: the report says $dropped calls were dropped"
    else
        fail "threads bounded: dropped" "the report's trace.dropped is '$dropped'"
    fi
    checked "threads bounded: written + dropped = calls" "$PYTHON" "$check" written "$report" \
        "$out"/*.trace.*
fi
if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
    skip "Fortran halo" "this build has no libmpiwatch_f"
elif ! $MPIFC -o "$work/halo" "$top_srcdir/examples/halo.f90" >"$work/halo.log" 2>&1; then
    fail "Fortran halo: build" "$MPIFC could not build examples/halo.f90" "$work/halo.log"
else
    run "$work/halo-run" "$NP" bare LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" MPIWATCH_TRACE=1 \
        MPIWATCH_FORMATS=json -- "$work/halo"
    traced_counts "Fortran halo" "$work/halo-run"
fi

# --- bounded
out="$work/bounded/cwd"
run "$work/bounded" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_BUFFER=256K \
    MPIWATCH_FORMATS=json -- "$work/busy" 20000 0
busy=()
if [ "$(rc_of "$work/bounded")" -ne 0 ]; then
    fail "bounded: status" "$(describe_rc "$(rc_of "$work/bounded")")" "$work/bounded/stderr"
else
    for t in $(cd "$out" && ls | grep '\.trace\.[0-9]*$' | sort); do busy+=("$out/$t"); done
    checked "bounded: written + dropped = calls" "$PYTHON" "$check" written \
        "$out/$(reports "$out" 'mpiwatch-*.json' | head -n 1)" "${busy[@]}"
fi

# --- truncated: copies of the bounded run's files (several chunks a rank),
# one of them cut or damaged.
# convert CASE STATUS DIR RANKS: the client converts DIR with exit status
# STATUS into DIR.json, which has one process per rank of RANKS; a nonzero
# status names the damaged file on stderr.
convert() {
    local case=$1 want=$2 dir=$3 rc=0
    "$client" --trace "$dir" --perfetto "$dir.json" >"$dir.out" 2>"$dir.err" || rc=$?
    if [ "$rc" -ne "$want" ]; then
        fail "$case: status" "exit $rc, expected $want" "$dir.err"
        return 1
    fi
    if [ "$want" -ne 0 ] && ! grep -q "\.trace\.1" "$dir.err"; then
        fail "$case: message" "stderr does not name the damaged file" "$dir.err"
        return 1
    fi
    checked "$case: converted (exit $rc), processes $4" "$PYTHON" "$check" perfetto "$dir.json" "$4"
}
# calls_of JSON PID: the slices of one rank.
calls_of() {
    "$PYTHON" -c 'import json, sys
print(sum(1 for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X" and e["pid"] == int(sys.argv[2])))' "$1" "$2"
}
copy_run() {
    mkdir -p "$1" && cp "${busy[@]}" "$1/"
}
if [ "${#busy[@]}" -eq "$NP" ]; then
    copy_run "$work/whole"
    convert "whole" 0 "$work/whole" "$NP"
    copy_run "$work/cut"
    one="$work/cut/$(basename "${busy[1]}")"
    size=$(stat -c %s "$one")
    truncate -s $((size - 40)) "$one"
    if convert "truncated" 0 "$work/cut" "$NP"; then
        whole=$(calls_of "$work/whole.json" 1)
        cut=$(calls_of "$work/cut.json" 1)
        if [ "$cut" -gt 0 ] && [ "$cut" -lt "$whole" ]; then
            pass "truncated: rank 1 keeps its whole chunks ($cut of $whole calls)"
        else
            fail "truncated: rank 1" "$cut calls after the cut, $whole before"
        fi
    fi
    copy_run "$work/header"
    truncate -s 20 "$work/header/$(basename "${busy[1]}")"
    convert "cut header" 1 "$work/header" 0,2,3
    copy_run "$work/garbage"
    printf 'not a chunk' >>"$work/garbage/$(basename "${busy[1]}")"
    convert "garbage" 1 "$work/garbage" "$NP"
    checked "mutations" "$PYTHON" "$check" mutate "$client" "${files[1]}" 300
else
    fail "truncated" "the bounded run left ${#busy[@]} trace files, not $NP"
fi

# --- bad values
# warned_once CASE DIR TEXT: exactly one line of DIR/stderr has TEXT.
warned_once() {
    local n
    n=$(grep -cF -- "$3" "$2/stderr")
    if [ "$n" -eq 1 ]; then
        pass "$1: one warning"
    else
        fail "$1: warning" "$n lines with \"$3\"" "$2/stderr"
    fi
}
run "$work/bad-trace" "$NP" preload MPIWATCH_TRACE=yes MPIWATCH_FORMATS=json -- "$work/ring"
same_output "bad MPIWATCH_TRACE: output and status" "$work/bad-trace" "$work/bare"
warned_once "bad MPIWATCH_TRACE" "$work/bad-trace" "MPIWATCH_TRACE='yes'"
run "$work/bad-buffer" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_BUFFER=12 \
    MPIWATCH_FORMATS=json -- "$work/ring"
same_output "bad MPIWATCH_TRACE_BUFFER: output and status" "$work/bad-buffer" "$work/bare"
warned_once "bad MPIWATCH_TRACE_BUFFER" "$work/bad-buffer" "MPIWATCH_TRACE_BUFFER='12'"
run "$work/bad-ranks" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_RANKS=3-1 \
    MPIWATCH_FORMATS=json -- "$work/ring"
same_output "bad MPIWATCH_TRACE_RANKS: output and status" "$work/bad-ranks" "$work/bare"
warned_once "bad MPIWATCH_TRACE_RANKS" "$work/bad-ranks" "MPIWATCH_TRACE_RANKS='3-1'"
if [ "$(cd "$work/bad-ranks/cwd" && ls | grep -c '\.trace\.[0-9]*$')" -eq "$NP" ]; then
    pass "bad MPIWATCH_TRACE_RANKS: every rank traced"
else
    fail "bad MPIWATCH_TRACE_RANKS: files" "$(cd "$work/bad-ranks/cwd" && ls)"
fi

# --- ranks: MPIWATCH_TRACE_RANKS=1,3 leaves the files of ranks 1 and 3 only,
# which convert (the other ranks' processes with no slices).
run "$work/ranks" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_RANKS=1,3 \
    MPIWATCH_FORMATS=json -- "$work/ring"
same_output "ranks 1,3: output and status" "$work/ranks" "$work/bare"
listed=$(cd "$work/ranks/cwd" && ls | grep '\.trace\.[0-9]*$' | sed 's/.*\.trace\.//' | sort -n | tr '\n' ' ')
if [ "$listed" = "1 3 " ]; then
    pass "ranks 1,3: the files of ranks 1 and 3 only"
else
    fail "ranks 1,3: files" "the files of ranks '$listed'"
fi
warned_once "ranks 1,3: no wait-state analysis at MPI_Finalize" "$work/ranks" "not every rank traced"
checked "ranks 1,3: perfetto converted" "$client" --trace "$work/ranks/cwd" --perfetto "$work/ranks.json"
checked "ranks 1,3: processes" "$PYTHON" "$check" perfetto "$work/ranks.json" 1,3

# --- named regions (tests/runtime/regions.c, linked) and MPI_Pcontrol
# (tests/runtime/pcontrol.c toggle): each region's begins in the files are
# the report's entries and the calls inside it its calls, well nested, and
# Perfetto begins and ends it as often; the levels 0, 1, 0, 1 are marked,
# nothing but MPI_Pcontrol recorded while paused.
build "$top_srcdir/tests/runtime/regions.c" "$work/regions" linked
run "$work/regions-run" "$NP" linked MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/regions"
out="$work/regions-run/cwd"
rg_files=()
for t in $(cd "$out" && ls | grep '\.trace\.[0-9]*$'); do rg_files+=("$out/$t"); done
if [ "$(rc_of "$work/regions-run")" -ne 0 ] || [ "${#rg_files[@]}" -ne "$NP" ]; then
    fail "regions: run" "$(describe_rc "$(rc_of "$work/regions-run")"), ${#rg_files[@]} trace files" \
        "$work/regions-run/stdout" "$work/regions-run/stderr"
else
    checked "regions: perfetto converted" "$client" --trace "$out" --perfetto "$work/regions.json"
    checked "regions: as the report, in the files and Perfetto" "$PYTHON" "$check" regions \
        "$out/$(reports "$out" 'mpiwatch-*.json' | head -n 1)" "$work/regions.json" "${rg_files[@]}"
fi
build "$top_srcdir/tests/runtime/pcontrol.c" "$work/pcontrol" plain
run "$work/pcontrol-run" "$NP" preload MPIWATCH_TRACE=1 -- "$work/pcontrol" toggle
pc_files=()
for t in $(cd "$work/pcontrol-run/cwd" && ls | grep '\.trace\.[0-9]*$'); do
    pc_files+=("$work/pcontrol-run/cwd/$t")
done
if [ "$(rc_of "$work/pcontrol-run")" -ne 0 ] || [ "${#pc_files[@]}" -ne "$NP" ]; then
    fail "pcontrol: run" "$(describe_rc "$(rc_of "$work/pcontrol-run")"), ${#pc_files[@]} files" \
        "$work/pcontrol-run/stdout" "$work/pcontrol-run/stderr"
else
    checked "pcontrol: the pauses marked" "$PYTHON" "$check" pcontrol 0,1,0,1 "${pc_files[@]}"
fi

# --- unwritable
out="$work/unwritable/cwd"
run "$work/unwritable" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_DIR="$work/none" \
    MPIWATCH_FORMATS=json -- "$work/ring"
same_output "unwritable: output and status" "$work/unwritable" "$work/bare"
if grep -qF "$work/none" "$work/unwritable/stderr"; then
    pass "unwritable: the warning names the folder"
else
    fail "unwritable: warning" "stderr does not name $work/none" "$work/unwritable/stderr"
fi
report=$(reports "$out" 'mpiwatch-*.json' | head -n 1)
if [ -n "$report" ] && ! json_get "$out/$report" trace >/dev/null; then
    pass "unwritable: a report, without \"trace\""
else
    fail "unwritable: report" "no report, or one with \"trace\": '$report'"
fi
finish
