#!/usr/bin/env bash
# The trace's bounds (docs/trace.md, "Recording: never blocking"), with
# bench/trace_bounds.c on 4 ranks (bench/run-trace-bounds.sh is the same at
# the issue's size, 10^7 calls and 10^6 polls):
# - bounded: 10^6 MPI_Comm_rank calls a rank with MPIWATCH_TRACE_BUFFER=1M:
#   the bare run's result and status 0; each rank's peak resident set grows
#   by less than BOUND_GROWTH_KIB from the first tenth of the calls to the
#   end (the trace's 4 MB a rank never held at once); the calls written plus
#   the dropped ones are the report's calls, and the drops the files say
#   are the report's (trace_check.py written);
# - polling: 5,000 MPI_Test calls a rank that find nothing are one record
#   a rank (trace_check.py polls), and the run's result is the bare run's.
name=trace-bounds
. "$(dirname "$0")/../lib/harness.sh"

NP=4
CALLS=1000000
POLLS=5000
# Chunks are 64 KiB; the bound lets a rank hold 16 of them at once. The
# growth allowed is the bound and as much again for the allocator's slack.
BOUND_GROWTH_KIB=2048
check="$top_srcdir/tests/trace/trace_check.py"
build "$top_srcdir/bench/trace_bounds.c" "$work/trace_bounds" plain

run "$work/bare" "$NP" bare -- "$work/trace_bounds" "$CALLS" 0
if [ "$(rc_of "$work/bare")" -ne 0 ]; then
    fail "bare run" "trace_bounds fails without mpiwatch: $(describe_rc "$(rc_of "$work/bare")")" \
        "$work/bare/stdout" "$work/bare/stderr"
    finish
fi

# --- bounded
out="$work/bounded/cwd"
started=$(date +%s)
run "$work/bounded" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_TRACE_BUFFER=1M MPIWATCH_FORMATS=json \
    -- "$work/trace_bounds" "$CALLS" 0
note "bounded: $NP ranks x $CALLS calls traced in $(($(date +%s) - started)) s"
same_output "bounded: output and status" "$work/bounded" "$work/bare"
growth=$(awk '$1 == "vmhwm" {
        split($2, rk, "="); split($3, t, "="); split($4, k, "=")
        if (t[2] == 1) first[rk[2]] = k[2]; if (t[2] == 10) last[rk[2]] = k[2] }
    END { for (n in first) { g = last[n] - first[n]; if (g > most) most = g; seen++ }
          if (seen) print most }' "$work/bounded/stderr")
if [ -z "$growth" ]; then
    fail "bounded: resident set" "no vmhwm lines on stderr" "$work/bounded/stderr"
elif [ "$growth" -lt "$BOUND_GROWTH_KIB" ]; then
    pass "bounded: the peak resident set grew by at most $growth KiB a rank (< $BOUND_GROWTH_KIB)"
else
    fail "bounded: resident set" "a rank's peak resident set grew by $growth KiB (>= $BOUND_GROWTH_KIB)" \
        "$work/bounded/stderr"
fi
note "bounded: $(grep '^vmhwm' "$work/bounded/stderr" | grep -c .) VmHWM samples, the largest growth $growth KiB"
report="$out/$(reports "$out" 'mpiwatch-*.json' | head -n 1)"
files=("$out"/*.trace.*)
if [ -f "$report" ] && [ -f "${files[0]}" ]; then
    checked "bounded: written + dropped = calls" "$PYTHON" "$check" written "$report" "${files[@]}"
    checked "bounded: bytes a call" "$PYTHON" "$check" sizes "${files[@]}"
else
    fail "bounded: files" "no JSON report or no trace file" "$work/bounded/stderr"
fi

# --- polling
run "$work/polls-bare" "$NP" bare -- "$work/trace_bounds" 0 "$POLLS"
out="$work/polls/cwd"
run "$work/polls" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/trace_bounds" 0 "$POLLS"
same_output "polling: output and status" "$work/polls" "$work/polls-bare"
files=("$out"/*.trace.*)
if [ "${#files[@]}" -eq "$NP" ] && [ -f "${files[0]}" ]; then
    checked "polling: $POLLS unsuccessful MPI_Test calls a rank in one record" \
        "$PYTHON" "$check" polls "${files[@]}" "$POLLS" MPI_Test
    # One record a rank for the loop, one for the MPI_Test calls of nothing else.
    records=$("$PYTHON" "$check" polls "${files[@]}" "$POLLS" MPI_Test | sed -n 's/.* in \([0-9]*\) records.*/\1/p')
    if [ "${records:-0}" -eq "$NP" ]; then
        pass "polling: $records MPI_Test records for $NP ranks"
    else
        fail "polling: records" "expected $NP MPI_Test records (one a rank), found '${records:-none}'"
    fi
else
    fail "polling: files" "expected $NP trace files" "$work/polls/stderr"
fi
finish
