#!/usr/bin/env bash
# The wait-state analysis (docs/wait-states.md): tests/trace/delays.c and
# delays.f90 on 4 ranks, traced (MPIWATCH_TRACE=1), 10 iterations in which
# one rank sleeps D ms (50, or MW_WAIT_DELAY_MS) before its call, then `mpiwatch --trace DIR --analyze
# --json --exe PROGRAM` (the programs linked without PIE, so that their
# sites are named file:line):
# - late sender, late receiver, wait at N x N, late broadcast, wait at
#   barrier, a late sender whose receiver polls an MPI_Irecv with MPI_Test
#   until it completes (waiting from the first poll), and a late receiver
#   whose sender waits in the MPI_Wait of an MPI_Issend, and a late sender
#   in a ring of send-receives (C: MPI_Sendrecv from MPI_ANY_SOURCE with a
#   status; Fortran: MPI_Sendrecv_replace from the previous rank, the status
#   ignored), in C and Fortran;
#   in C early reduce (rank 3 late to an MPI_Reduce to 0, whose root is
#   found from the bytes), a late sender whose receiver posts an
#   MPI_Irecv from MPI_ANY_SOURCE and waits in its MPI_Wait, and a late
#   sender on a communicator of the even ranks numbered backwards (its
#   ranks as world ranks; matched by its members and ordinal, with MPICH too,
#   whose ranks name it by different handles): the largest cause is the delaying rank, at the
#   file:line of its delayed call, after the line of its MPI call before, of
#   the pattern; its waiting within 10% of the waiting the program measured
#   on its own clock (CLOCK_MONOTONIC: entry and exit of each delayed call);
#   printed beside it: the issue's D x 10 x the ranks that wait, and the
#   two parts the machine adds to it (the delaying rank's oversleep x the
#   waiting ranks, and how much later the waiting ranks began their
#   iterations: they got the previous message or release late), which sum
#   to the program's measurement (docs/wait-states.md, "Accuracy");
# - the text form: the section's title and the cause's file:line;
# - balanced (no rank sleeps; an 8 MB MPI_Allreduce each iteration), on 4
#   ranks and on 2: the waiting's share of the MPI time is printed, by
#   pattern, and must stay under 50% (a wait state measured as the whole
#   call would make it about 75%: 3 of 4 ranks); on an oversubscribed machine the ranks do arrive apart, as the
#   previous MPI_Allreduce released them; the direct waiting (the late
#   ranks' extra work, docs/wait-states.md) must be under 5%, the issue's
#   bound; beside it, the waiting the program measured on its own clock (all
#   ranks waiting in each MPI_Allreduce for the last to enter), traced and in a
#   run without mpiwatch (printed: how much of the waiting is the machine's);
# - balanced-paced (the same, each iteration's call at the same moment of
#   CLOCK_MONOTONIC on every rank, as on a machine with a core per rank): the
#   Wait at N x N found is what the program measured on its own clock, and
#   the waiting is under 5% of the MPI time where the ranks did arrive
#   together (the program measured under 5%);
# - a position-independent build: the sites stay addresses and "sites" says
#   why; the largest cause is still the delaying rank's; the report at
#   MPI_Finalize names it file:line (each rank knows where it loaded what);
# - at MPI_Finalize (each case above, balanced too): the report's section
#   "waits" has the same largest cause, and the same totals and causes as
#   --analyze of the same trace (wait_check.py same), and the report passes
#   tests/lib/report_schema.py; the analysis's time is printed;
# - damaged: 150 copies of the late sender's files, one damaged in each
#   (bytes changed, cut, repeated): exit 0 or 1, never a crash, JSON that
#   parses;
# - bad input: no trace files (exit 1, named); --analyze without --trace,
#   --exe without --analyze, --analyze with --perfetto (exit 2).
name=wait-states
. "$(dirname "$0")/../lib/harness.sh"

NP=4
D=${MW_WAIT_DELAY_MS:-50}
check="$top_srcdir/tests/trace/wait_check.py"
need_client
if ! $MPICC -g -O1 -no-pie -o "$work/delays" "$top_srcdir/tests/trace/delays.c" \
        >"$work/delays.log" 2>&1; then
    fail "build delays.c" "$MPICC could not build it without PIE" "$work/delays.log"
    finish
fi

# analysed CASE PROGRAM PATTERN FILE [PRELOAD]: run PROGRAM PATTERN D traced,
# analyse it, check the largest cause. Leaves $work/CASE.
analysed() {
    local case=$1 prog=$2 pattern=$3 file=$4 preload=${5:-$LIBMPIWATCH} dir="$work/$1" delay
    local key waiters=3 log
    run "$dir" "$NP" bare LD_BIND_NOW=1 LD_PRELOAD="$preload" MPIWATCH_TRACE=1 \
        MPIWATCH_FORMATS=json -- "$prog" "$pattern" "$D"
    if [ "$(rc_of "$dir")" -ne 0 ]; then
        fail "$case: status" "$(describe_rc "$(rc_of "$dir")")" "$dir/stdout" "$dir/stderr"
        return 1
    fi
    delay=$(grep '^delay ' "$dir/stdout")
    set -- $delay
    if [ "$#" -ne 7 ]; then
        fail "$case: output" "no line 'delay RANK SLEPT LINE PREV WAITED BEHIND'" "$dir/stdout"
        return 1
    fi
    if ! "$client" --trace "$dir/cwd" --analyze --json --exe "$prog" >"$dir/analysis.json" \
            2>"$dir/analysis.err"; then
        fail "$case: --analyze" "exit status not 0" "$dir/analysis.err"
        return 1
    fi
    case "$pattern" in
        late-sender*) key=late_sender waiters=1 ;;
        late-receiver*) key=late_receiver waiters=1 ;;
        nxn) key=wait_nxn ;;
        bcast) key=late_broadcast ;;
        barrier) key=wait_barrier ;;
        reduce) key=early_reduce waiters=1 ;;
    esac
    log=$(mktemp "$work/log.XXXXXX")
    if "$PYTHON" "$check" cause "$dir/analysis.json" "$key" "$2" "$file" "$4" "$5" "$3" "$6" \
            "$7" "$waiters" "$D" >"$log" 2>&1; then
        pass "$case: $(tail -n 1 "$log")"
    else
        fail "$case" "$(tail -n 1 "$log")" "$log" "$dir/analysis.json"
    fi
    at_finalize "$case" "$dir" "$key" "$2" "$file" "$4" "$5" "$3" "$6" "$7" "$waiters" "$D"
}

# at_finalize CASE DIR PATTERN RANK FILE LINE PREV SLEPT WAITED BEHIND WAITERS D: the
# report written at MPI_Finalize has the section, with the same largest
# cause and figures as --analyze of the same trace (DIR/analysis.json).
at_finalize() {
    local case=$1 dir=$2 report log
    shift 2
    report=$(ls "$dir"/cwd/mpiwatch-*.json 2>/dev/null | grep -v -- '-rank' | head -n 1)
    log=$(mktemp "$work/log.XXXXXX")
    if [ -z "$report" ]; then
        fail "$case at MPI_Finalize" "no JSON report in $dir/cwd" "$dir/stderr"
    elif "$PYTHON" "$top_srcdir/tests/lib/report_schema.py" "$report" >"$log" 2>&1 &&
            "$PYTHON" "$check" cause "$report" "$@" >>"$log" 2>&1 &&
            "$PYTHON" "$check" same "$report" "$dir/analysis.json" >>"$log" 2>&1; then
        pass "$case at MPI_Finalize: $(tail -n 1 "$log")"
    else
        fail "$case at MPI_Finalize" "$(tail -n 1 "$log")" "$log" "$report"
    fi
}

for p in late-sender late-sender-irecv late-sender-test late-sender-split late-sender-sendrecv \
        late-receiver late-receiver-issend nxn bcast barrier reduce; do
    analysed "C $p" "$work/delays" "$p" delays.c
done

# --- the text form, of the late sender's trace
"$client" --trace "$work/C late-sender/cwd" --analyze --exe "$work/delays" >"$work/text.out" \
    2>&1
line=$(awk '/^delay /{print $4}' "$work/C late-sender/stdout")
if grep -q '^Waiting, and what caused it$' "$work/text.out" &&
        grep -Eq "^ +[0-9.]+ +[0-9.]+% +[0-9.]+ +0 +Late Sender +delays\.c:$line \(MPI_Send\)" \
            "$work/text.out"; then
    pass "text: the section, rank 0's delays.c:$line first"
else
    fail "text" "no section, or not rank 0's delays.c:$line first" "$work/text.out"
fi

# own_share DIR: the waiting share delays.c measured itself ("balanced WAITED MPI").
own_share() {
    awk '/^balanced /{ printf "%.1f%% (%.6f of %.6f s)", 100 * $2 / $3, $2, $3; found = 1 }
         END { if (!found) printf "not printed" }' "$1/stdout"
}

# --- balanced, on 4 ranks (2 per core here) and on 2 (none oversubscribed)
for np in "$NP" 2; do
    dir="$work/balanced-$np"
    run "$dir" "$np" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/delays" balanced 0
    log=$(mktemp "$work/log.XXXXXX")
    if [ "$(rc_of "$dir")" -ne 0 ]; then
        fail "balanced, $np ranks: status" "$(describe_rc "$(rc_of "$dir")")" "$dir/stderr"
    elif "$client" --trace "$dir/cwd" --analyze --json >"$dir/analysis.json" 2>"$log" &&
            "$PYTHON" "$check" share "$dir/analysis.json" 50 >"$log" 2>&1; then
        pass "balanced, $np ranks: $(tail -n 1 "$log"); by the program's own clock $(own_share "$dir")"
        # the same program without mpiwatch: how much of that waiting is the machine's
        run "$dir-bare" "$np" bare -- "$work/delays" balanced 0
        note "balanced, $np ranks, without mpiwatch: waiting by the program's own clock $(own_share "$dir-bare")"
        report=$(ls "$dir"/cwd/mpiwatch-*.json | grep -v -- '-rank' | head -n 1)
        if "$PYTHON" "$check" same "$report" "$dir/analysis.json" >"$log" 2>&1; then
            pass "balanced, $np ranks, at MPI_Finalize: $(tail -n 1 "$log")"
        else
            fail "balanced, $np ranks, at MPI_Finalize" "$(tail -n 1 "$log")" "$log"
        fi
        if "$PYTHON" "$check" direct "$report" 5 >"$log" 2>&1; then
            pass "balanced, $np ranks, direct: $(tail -n 1 "$log")"
        else
            fail "balanced, $np ranks, direct" "$(tail -n 1 "$log")" "$log"
        fi
    else
        fail "balanced, $np ranks" "$(tail -n 1 "$log")" "$log"
    fi
done

# --- balanced-paced: every rank's MPI_Allreduce at the same moments of
# CLOCK_MONOTONIC, as on a machine with a core per rank
dir="$work/balanced-paced"
run "$dir" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/delays" balanced-paced 0
log=$(mktemp "$work/log.XXXXXX")
set -- $(awk '/^balanced /{ print $2, $3 }' "$dir/stdout")
if [ "$(rc_of "$dir")" -ne 0 ]; then
    fail "balanced-paced: status" "$(describe_rc "$(rc_of "$dir")")" "$dir/stderr"
elif [ "$#" -ne 2 ]; then
    fail "balanced-paced: output" "no line 'balanced WAITED MPI'" "$dir/stdout"
elif "$client" --trace "$dir/cwd" --analyze --json >"$dir/analysis.json" 2>"$log" &&
        "$PYTHON" "$check" paced "$dir/analysis.json" "$1" "$2" >"$log" 2>&1; then
    pass "balanced-paced, $NP ranks: $(tail -n 1 "$log")"
else
    fail "balanced-paced, $NP ranks" "$(tail -n 1 "$log")" "$log"
fi

# --- a position-independent program: addresses, and why
if $MPICC -g -O1 -fPIE -pie -o "$work/delays-pie" "$top_srcdir/tests/trace/delays.c" \
        >"$work/pie.log" 2>&1; then
    dir="$work/pie"
    run "$dir" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$work/delays-pie" nxn "$D"
    "$client" --trace "$dir/cwd" --analyze --json --exe "$work/delays-pie" \
        >"$dir/analysis.json" 2>&1
    if "$PYTHON" - "$dir/analysis.json" <<'PY'
import json, re, sys
a = json.load(open(sys.argv[1]))
c = a["causes"][0]
sys.exit(not (c["rank"] == 2 and re.fullmatch("0x[0-9a-f]+", c["site"])
              and "position-independent" in a["sites"]))
PY
    then
        pass "PIE: rank 2 first, its site an address, and \"sites\" says why"
    else
        fail "PIE" "not rank 2 first with an address and the reason" "$dir/analysis.json"
    fi
    # at MPI_Finalize each rank names its sites by module and offset: file:line
    line=$(awk '/^delay /{print $4}' "$dir/stdout")
    report=$(ls "$dir"/cwd/mpiwatch-*.json | grep -v -- '-rank' | head -n 1)
    if "$PYTHON" - "$report" "delays.c:$line" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["waits"]["causes"][0]
sys.exit(not (c["rank"] == 2 and c["site"] == sys.argv[2]))
PY
    then
        pass "PIE at MPI_Finalize: rank 2 first, at delays.c:$line"
    else
        fail "PIE at MPI_Finalize" "not rank 2 first at delays.c:$line" "$report"
    fi
else
    skip "PIE" "$MPICC cannot link with -pie"
fi

# --- Fortran
if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
    skip "Fortran" "this build has no libmpiwatch_f"
elif ! $MPIFC -cpp -g -O1 -no-pie -o "$work/fdelays" "$top_srcdir/tests/trace/delays.f90" \
        >"$work/fdelays.log" 2>&1; then
    fail "build delays.f90" "$MPIFC could not build it" "$work/fdelays.log"
else
    for p in late-sender late-sender-test late-sender-sendrecv late-receiver late-receiver-issend \
            nxn bcast barrier; do
        analysed "Fortran $p" "$work/fdelays" "$p" delays.f90 "$LIBMPIWATCH:$LIBMPIWATCH_F"
    done
fi

# --- damaged files: 150 copies of the late sender's run, one file damaged in each
log=$(mktemp "$work/log.XXXXXX")
if "$PYTHON" "$check" damaged "$client" 150 "$work/C late-sender/cwd"/*.trace.* >"$log" 2>&1; then
    pass "damaged: $(tail -n 1 "$log")"
else
    fail "damaged" "$(tail -n 1 "$log")" "$log"
fi

# --- bad input
# refused CASE WANT-RC PATTERN ARGS...: the client exits WANT-RC saying PATTERN.
refused() {
    local case=$1 want=$2 pat=$3 rc=0
    shift 3
    timeout 30 "$client" "$@" >"$work/refused.out" 2>&1 </dev/null || rc=$?
    if [ "$rc" -eq "$want" ] && grep -q -- "$pat" "$work/refused.out"; then
        pass "$case: exit $want, \"$pat\""
    else
        fail "$case" "exit $rc (want $want), or no \"$pat\"" "$work/refused.out"
    fi
}
mkdir -p "$work/empty"
refused "no trace files" 1 "no trace files" --trace "$work/empty" --analyze
refused "--analyze alone" 2 "--analyze goes with --trace DIR" --analyze
refused "--exe alone" 2 "--exe goes with --trace DIR --analyze" --trace "$work/empty" --perfetto x \
    --exe "$work/delays"
refused "--analyze and --perfetto" 2 "give one of --analyze, --html, and --perfetto or --otf2" --trace "$work/empty" \
    --analyze --perfetto x
finish
