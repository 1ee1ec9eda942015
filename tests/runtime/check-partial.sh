#!/usr/bin/env bash
# Partial profiles (docs/partial-reports.md), on 4 ranks of forever.c:
# - ended like a batch job's time limit (mw_launch's `timeout` sends TERM to
#   mpirun after 8 s): the status is the bare run's under the same signal,
#   every rank leaves a partial JSON file of the report schema, and each
#   rank's MPI_Allreduce calls in it are at least the first count rank 0
#   printed (before the signal; less one: a rank's count runs one behind rank 0's
#   at most) and at most its last count printed plus 101; `mpiwatch --merge`
#   makes the job report of every rank, its calls NP times those bounds;
# - a singleton: the program's own SIGTERM handler is called after the
#   dump, as bare, and without one the TERM kills it with the bare status;
# - MPIWATCH_DUMP_AT=2 on a job that ends by itself after 6 s: partial files
#   appear during the run, the job's status is 0, its report is the normal
#   one (all 4 ranks) and no partial file is left;
# - MPIWATCH_DUMP_EVERY: a later dump replaces the rank's file;
# - MPIWATCH_DUMP_SIGNALS with a bad entry: one warning naming it.
name=partial
. "$(dirname "$0")/../lib/harness.sh"

NP=4
build "$rt_dir/forever.c" "$work/forever" plain

# last_count FILE: the last "calls N" that rank 0 printed, or 0.
last_count() {
    { grep -o '^calls [0-9]*$' "$1" || echo "calls 0"; } | tail -n 1 | cut -d' ' -f2
}

# check_counts CASE DIR LOW HIGH: one partial JSON per rank in DIR/cwd, each
# of the report schema with LOW <= MPI_Allreduce calls <= HIGH.
check_counts() {
    local case=$1 dir=$2 low=$3 high=$4 rank f n problems=""
    for rank in $(seq 0 $((NP - 1))); do
        f=$(ls "$dir"/cwd/mpiwatch-forever-"$NP"r-*-rank"$rank"-partial.json 2>/dev/null)
        if [ "$(printf '%s\n' "$f" | grep -c .)" -ne 1 ]; then
            problems="$problems rank $rank has $(printf '%s\n' "$f" | grep -c .) partial JSON files;"
            continue
        fi
        out=$("$PYTHON" "$top_srcdir/tests/lib/report_schema.py" "$f" 2>&1) ||
            problems="$problems $out;"
        n=$(json_get "$f" functions MPI_Allreduce calls 2>/dev/null || echo 0)
        if [ "$n" -lt "$low" ] || [ "$n" -gt "$high" ]; then
            problems="$problems rank $rank made $n MPI_Allreduce calls, not within [$low, $high];"
        fi
    done
    if [ -n "$problems" ]; then
        fail "$case" "$problems" "$dir/stderr"
    else
        pass "$case: a partial profile per rank, calls within [$low, $high]"
    fi
}

# The time limit's TERM, bare and with mpiwatch (preloaded).
for mode in bare preload; do
    dir="$work/term-$mode"
    MW_TIMEOUT=8 run "$dir" "$NP" "$mode" MPIWATCH_OUTDIR="$dir/cwd" -- "$work/forever" &
    job=$!
    # The first count rank 0 prints (a lower bound of the calls every partial
    # profile must hold), however slowly the job starts on a loaded machine
    # (a fixed 3 s once came before MPICH's first count).
    early=0
    while kill -0 "$job" 2>/dev/null; do
        early=$(last_count "$dir/stdout")
        [ "$early" -ge 100 ] && break
        sleep 0.2
    done
    wait
    eval "${mode}_rc=$(rc_of "$dir")"
done
dir="$work/term-preload"
rc=$(rc_of "$dir")
if [ "$rc" -ne "$bare_rc" ]; then
    fail "TERM: status" "status $rc, the bare run's was $bare_rc" \
        "$dir/stdout" "$dir/stderr"
else
    pass "TERM: status $rc as bare"
fi
if [ "$early" -lt 100 ]; then
    fail "TERM: calls" "rank 0 had printed no count before the time limit's TERM (8 s)" "$dir/stdout" "$dir/stderr"
else
    check_counts "TERM" "$dir" $((early - 1)) $(($(last_count "$dir/stdout") + 101))
    check_merged "TERM: mpiwatch --merge, every rank, calls within [$((NP * (early - 1))), $((NP * ($(last_count "$dir/stdout") + 101)))]" \
        "$dir/cwd" "$NP" --calls MPI_Allreduce $((NP * (early - 1))) \
        $((NP * ($(last_count "$dir/stdout") + 101)))
fi

# The program's own SIGTERM handler (exit 7) still runs after the dump: a
# singleton (no launcher, whose SIGKILL would race with the handler), TERM
# from timeout after 3 s.
for mode in bare preload; do
    dir="$work/own-$mode"
    mkdir -p "$dir/cwd"
    if [ "$mode" = preload ]; then
        set -- env LD_PRELOAD="$LIBMPIWATCH" MPIWATCH_OUTDIR="$dir/cwd"
    else
        set -- env
    fi
    rc=0
    (cd "$dir/cwd" && timeout --preserve-status -k 10 -s TERM 3 "$@" "$work/forever" handler >"$dir/stdout" 2>"$dir/stderr" \
        </dev/null) || rc=$?
    echo "$rc" >"$dir/rc"
done
dir="$work/own-preload"
n=$(ls "$dir"/cwd/*-rank0-partial.json 2>/dev/null | wc -l)
if [ "$(rc_of "$work/own-bare")" -ne 7 ] || ! grep -q '^own handler' "$work/own-bare/stdout"; then
    fail "own TERM handler: bare" "status $(rc_of "$work/own-bare"), not 7 after 'own handler'" \
        "$work/own-bare/stdout" "$work/own-bare/stderr"
elif [ "$(rc_of "$dir")" -ne 7 ] || ! grep -q '^own handler' "$dir/stdout" || [ "$n" -ne 1 ]; then
    fail "own TERM handler" "status $(rc_of "$dir") (bare: 7), $(grep -c '^own handler' "$dir/stdout") handler lines, $n partial files" \
        "$dir/stdout" "$dir/stderr"
else
    pass "own TERM handler: called after the dump, status 7 as bare"
fi

# Without a handler of the program's, the TERM kills the singleton after
# the dump as it does bare (status 143: killed by signal 15).
for mode in bare preload; do
    dir="$work/dfl-$mode"
    mkdir -p "$dir/cwd"
    rc=0
    if [ "$mode" = preload ]; then
        set -- env LD_PRELOAD="$LIBMPIWATCH" MPIWATCH_OUTDIR="$dir/cwd"
    else
        set -- env
    fi
    (cd "$dir/cwd" && timeout --preserve-status -k 10 -s TERM 3 "$@" "$work/forever" >"$dir/stdout" \
        2>"$dir/stderr" </dev/null) || rc=$?
    echo "$rc" >"$dir/rc"
done
n=$(ls "$work"/dfl-preload/cwd/*-rank0-partial.json 2>/dev/null | wc -l)
if [ "$(rc_of "$work/dfl-preload")" -ne "$(rc_of "$work/dfl-bare")" ] || [ "$n" -ne 1 ]; then
    fail "default TERM action" "status $(rc_of "$work/dfl-preload"), bare $(rc_of "$work/dfl-bare"); $n partial files" \
        "$work/dfl-preload/stderr"
else
    pass "default TERM action: status $(rc_of "$work/dfl-preload") as bare, after the dump"
fi

# MPIWATCH_DUMP_AT=2 on a job of 6 s: copy the partial files while it runs.
dir="$work/at"
mkdir -p "$dir/seen"
run "$dir" "$NP" preload MPIWATCH_OUTDIR="$dir/cwd" MPIWATCH_DUMP_AT=2 -- "$work/forever" 6 &
for _ in $(seq 100); do
    sleep 0.1
    if [ "$(ls "$dir"/cwd/*-partial.json 2>/dev/null | wc -l)" -eq "$NP" ]; then
        cp -p "$dir"/cwd/*-partial.json "$dir/seen/" 2>/dev/null
        break
    fi
done
wait
seen=$(ls "$dir"/seen/*-partial.json 2>/dev/null | wc -l)
left=$(ls "$dir"/cwd/*-partial.* 2>/dev/null | wc -l)
report=$(reports "$dir/cwd" 'mpiwatch-forever-*.json')
if [ "$(rc_of "$dir")" -ne 0 ] || ! grep -q '^finished after' "$dir/stdout"; then
    fail "DUMP_AT: the job" "$(describe_rc "$(rc_of "$dir")"), or no 'finished after' line" \
        "$dir/stdout" "$dir/stderr"
elif [ "$seen" -ne "$NP" ]; then
    fail "DUMP_AT: during the run" "$seen partial files seen, not $NP" "$dir/stderr"
elif [ "$left" -ne 0 ]; then
    fail "DUMP_AT: after MPI_Finalize" "$left partial files left: $(ls "$dir"/cwd)"
elif [ "$(printf '%s\n' "$report" | grep -c .)" -ne 1 ] ||
    [ "$(json_get "$dir/cwd/$report" ranks)" != "$NP" ] ||
    ! "$PYTHON" "$top_srcdir/tests/lib/report_schema.py" "$dir/cwd/$report" >"$dir/schema" 2>&1; then
    fail "DUMP_AT: the report" "not one JSON report of $NP ranks of the schema: $report" \
        "$dir/schema" "$dir/stderr"
else
    pass "DUMP_AT: $NP partial files during the run, none after; the normal report"
fi
for f in "$dir"/seen/*-partial.json; do
    [ -f "$f" ] || continue
    if [ "$(json_get "$f" partial reason)" != MPIWATCH_DUMP_AT=2 ]; then
        fail "DUMP_AT: reason" "$(basename "$f"): $(json_get "$f" partial reason)"
        break
    fi
done

# MPIWATCH_DUMP_EVERY=0.5 on a job of 4 s: rank 0's file, copied twice
# during the run, is replaced by a later one with more calls; none is left.
dir="$work/every"
mkdir -p "$dir/seen"
run "$dir" "$NP" preload MPIWATCH_OUTDIR="$dir/cwd" MPIWATCH_DUMP_EVERY=0.5 -- "$work/forever" 4 &
for k in 1 2; do
    for _ in $(seq 50); do
        sleep 0.1
        f=$(ls "$dir"/cwd/*-rank0-partial.json 2>/dev/null)
        if [ -n "$f" ] && cp "$f" "$dir/seen/$k.json" 2>/dev/null; then
            break
        fi
    done
    sleep 1
done
wait
first=$(json_get "$dir/seen/1.json" functions MPI_Allreduce calls 2>/dev/null || echo none)
second=$(json_get "$dir/seen/2.json" functions MPI_Allreduce calls 2>/dev/null || echo none)
reason=$(json_get "$dir/seen/2.json" partial reason 2>/dev/null)
if [ "$first" = none ] || [ "$second" = none ] || [ "$second" -le "$first" ]; then
    fail "DUMP_EVERY" "rank 0's file during the run: calls $first, then $second" "$dir/stderr"
elif [ "$reason" != MPIWATCH_DUMP_EVERY=0.5 ]; then
    fail "DUMP_EVERY: reason" "$reason"
elif [ -n "$(ls "$dir"/cwd/*-partial.* 2>/dev/null)" ] || [ "$(rc_of "$dir")" -ne 0 ]; then
    fail "DUMP_EVERY: after MPI_Finalize" "$(describe_rc "$(rc_of "$dir")"); left: $(ls "$dir/cwd")"
else
    pass "DUMP_EVERY: rank 0's file replaced ($first, then $second calls), none left"
fi

# A bad signal name: one warning naming it, the job unchanged.
dir="$work/bad"
run "$dir" "$NP" preload MPIWATCH_OUTDIR="$dir/cwd" MPIWATCH_DUMP_SIGNALS=TERM,BOGUS,KILL \
    -- "$work/forever" 0.2
if [ "$(grep -c "'BOGUS'" "$dir/stderr")" -ne 1 ] || [ "$(grep -c "'KILL'" "$dir/stderr")" -ne 1 ]; then
    fail "DUMP_SIGNALS=TERM,BOGUS,KILL" "not one warning naming each bad entry" "$dir/stderr"
elif [ "$(rc_of "$dir")" -ne 0 ]; then
    fail "DUMP_SIGNALS=TERM,BOGUS,KILL" "$(describe_rc "$(rc_of "$dir")")" "$dir/stderr"
else
    pass "DUMP_SIGNALS=TERM,BOGUS,KILL: one warning for each bad entry"
fi

finish
