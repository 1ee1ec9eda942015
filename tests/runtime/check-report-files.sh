#!/usr/bin/env bash
# Report files, with pcontrol.c on 2 ranks:
# - a normal run writes exactly one mpiwatch-<program>-2r-<date>-<time>-<pid>
#   .json and .txt pair into MPIWATCH_OUTDIR (or the cwd when it is unset),
#   and leaves no temporary file (a name starting with '.');
# - with SLURM_JOB_ID=12345 in the ranks the names carry -job12345 before the
#   date, time and pid, and SLURM_STEP_ID=0 makes it -job12345.0; two runs of
#   one batch job into one folder leave two pairs of reports;
# - the text report has the sections "Time per rank" and "MPI functions by time";
# - an MPIWATCH_OUTDIR that does not exist, or lies under a regular file
#   (chmod does not stop root), gives a warning naming the folder at MPI_Init
#   and one saying where the report went (the current folder), and the job's
#   output and exit status are those of the bare run;
# - an unknown MPIWATCH_* variable (MPIWATCH_FORMAT) gets one warning naming
#   it and the closest known one.
name=report-files
. "$(dirname "$0")/../lib/harness.sh"

NP=2
build "$rt_dir/pcontrol.c" "$work/pcontrol-bare" plain
build "$rt_dir/pcontrol.c" "$work/pcontrol" linked

run "$work/bare" "$NP" bare -- "$work/pcontrol-bare"
bare_rc=$(rc_of "$work/bare")
if [ "$bare_rc" -ne 0 ]; then
    fail "bare pcontrol" "the program fails without mpiwatch: $(describe_rc "$bare_rc")" \
        "$work/bare/stdout" "$work/bare/stderr"
    finish
fi

# same_as_bare CASE DIR: the run in DIR exited and printed as the bare run did.
same_as_bare() {
    local rc
    rc=$(rc_of "$2")
    if [ "$rc" -ne "$bare_rc" ]; then
        fail "$1: status" "$(describe_rc "$rc"), the bare run's was $bare_rc" "$2/stdout" "$2/stderr"
        return 1
    fi
    if ! cmp -s "$2/stdout" "$work/bare/stdout"; then
        fail "$1: output" "the output differs from the bare run's" "$2/stdout" "$work/bare/stdout"
        return 1
    fi
    return 0
}

# named CASE OUTDIR REGEX: OUTDIR holds exactly two files, a .json and a .txt
# report with the same base name, which matches REGEX (an ERE, anchored); no
# file starting with '.'. Then checks the JSON's program and ranks and the
# text report's sections.
named() {
    local case=$1 out=$2 regex=$3 all json txt program
    all=$(cd "$out" && ls -A | sort)
    json=$(reports "$out" 'mpiwatch-*.json')
    txt=$(reports "$out" 'mpiwatch-*.txt')
    if [ -n "$(hidden_files "$out")" ]; then
        fail "$case: files" "temporary files are left: $(hidden_files "$out" | tr '\n' ' ')"
        return
    fi
    if [ "$(printf '%s\n' "$all" | grep -c .)" -ne 2 ] || [ -z "$json" ] || [ -z "$txt" ]; then
        fail "$case: files" "expected one .json and one .txt report, the folder holds: $(echo $all)"
        return
    fi
    if [ "${json%.json}" != "${txt%.txt}" ]; then
        fail "$case: files" "the two reports have different names: $json, $txt"
        return
    fi
    if ! printf '%s\n' "${json%.json}" | grep -Eq "^($regex)\$"; then
        fail "$case: names" "$json does not match $regex(.json|.txt)"
        return
    fi
    pass "$case: one .json and one .txt named $json"
    program=$(json_get "$out/$json" program)
    if [ "$program" != "$(basename "$4")" ] || [ "$(json_get "$out/$json" ranks)" != "$NP" ]; then
        fail "$case: JSON header" "program '$program' (expected $(basename "$4")), ranks $(json_get "$out/$json" ranks) (expected $NP)"
    else
        pass "$case: JSON program and ranks"
    fi
    local missing=""
    for section in "Time per rank" "MPI functions by time"; do
        grep -q "^$section" "$out/$txt" || missing="$missing '$section'"
    done
    if [ -n "$missing" ]; then
        fail "$case: text sections" "the text report lacks$missing" "$out/$txt"
    else
        pass "$case: text report has 'Time per rank' and 'MPI functions by time'"
    fi
}

stamp='[0-9]{8}-[0-9]{6}-[0-9]+'

# ---------------------------------------------------------------- normal runs
dir="$work/normal"
mkdir -p "$dir/out"
run "$dir" "$NP" linked MPIWATCH_OUTDIR="$dir/out" -- "$work/pcontrol"
if same_as_bare normal "$dir"; then
    named normal "$dir/out" "mpiwatch-pcontrol-${NP}r-$stamp" "$work/pcontrol"
    if grep -q 'mpiwatch:' "$dir/stderr"; then
        fail "normal: no warning" "mpiwatch printed on stderr" "$dir/stderr"
    else
        pass "normal: no warning"
    fi
fi

# MPIWATCH_OUTDIR unset: the current directory.
dir="$work/cwd"
run "$dir" "$NP" linked -- "$work/pcontrol"
if same_as_bare cwd "$dir"; then
    named "no MPIWATCH_OUTDIR" "$dir/cwd" "mpiwatch-pcontrol-${NP}r-$stamp" "$work/pcontrol"
fi

# Preloaded: the report is named after the program it was preloaded into.
dir="$work/preload"
mkdir -p "$dir/out"
run "$dir" "$NP" preload MPIWATCH_OUTDIR="$dir/out" -- "$work/pcontrol-bare"
if same_as_bare preload "$dir"; then
    named preload "$dir/out" "mpiwatch-pcontrol-bare-${NP}r-$stamp" "$work/pcontrol-bare"
fi

# A batch job's id goes before the date, time and pid (given to the ranks
# only: mpirun itself must not think it runs under Slurm).
dir="$work/slurm"
mkdir -p "$dir/out"
run "$dir" "$NP" linked MPIWATCH_OUTDIR="$dir/out" SLURM_JOB_ID=12345 -- "$work/pcontrol"
if same_as_bare "SLURM_JOB_ID" "$dir"; then
    named "SLURM_JOB_ID=12345" "$dir/out" "mpiwatch-pcontrol-${NP}r-job12345-$stamp" "$work/pcontrol"
fi

# Two job steps of one batch job into one folder: every run keeps its report.
dir="$work/slurm-steps"
mkdir -p "$dir/out"
for step in 1 2; do
    run "$dir/$step" "$NP" linked MPIWATCH_OUTDIR="$dir/out" SLURM_JOB_ID=12345 SLURM_STEP_ID=0 \
        -- "$work/pcontrol"
done
reps=$(reports "$dir/out" 'mpiwatch-pcontrol-*' | grep -cE "^mpiwatch-pcontrol-${NP}r-job12345\.0-$stamp\.(json|txt)\$" || true)
if [ "$reps" -eq 4 ] && [ -z "$(hidden_files "$dir/out")" ]; then
    pass "two runs with SLURM_JOB_ID=12345 SLURM_STEP_ID=0: two pairs of reports named -job12345.0-<date>-<time>-<pid>"
else
    fail "two runs of one batch job" "expected 4 reports, found: $(ls -A "$dir/out" | tr '\n' ' ')"
fi

# A misspelled variable is named, with the one meant.
dir="$work/misspelled"
mkdir -p "$dir/out"
run "$dir" "$NP" linked MPIWATCH_OUTDIR="$dir/out" MPIWATCH_FORMAT=json -- "$work/pcontrol"
if same_as_bare "MPIWATCH_FORMAT" "$dir"; then
    if [ "$(grep -c 'mpiwatch:' "$dir/stderr")" -eq 1 ] &&
       grep 'mpiwatch:' "$dir/stderr" | grep -q 'MPIWATCH_FORMAT is not .*MPIWATCH_FORMATS'; then
        pass "MPIWATCH_FORMAT=json: one warning naming it and MPIWATCH_FORMATS"
    else
        fail "MPIWATCH_FORMAT=json" "expected one warning naming MPIWATCH_FORMAT and MPIWATCH_FORMATS" "$dir/stderr"
    fi
fi

# ---------------------------------------------------------------- unusable folders
# bad_outdir CASE OUTDIR: the run warns, naming OUTDIR, at MPI_Init (before
# the program's output ends) and at the end says where the report went: the
# current folder; otherwise it behaves as the bare run; nothing is created at
# OUTDIR.
bad_outdir() {
    local case=$1 outdir=$2 dir="$work/${1// /-}"
    run "$dir" "$NP" linked MPIWATCH_OUTDIR="$outdir" -- "$work/pcontrol"
    same_as_bare "$case" "$dir" || return
    pass "$case: output and status as without mpiwatch"
    if grep 'mpiwatch:' "$dir/stderr" | grep -F -- "$outdir" | grep -q 'will be written to the current folder'; then
        pass "$case: the warning at MPI_Init names $outdir"
    else
        fail "$case: warning" "no mpiwatch warning on stderr names $outdir at MPI_Init" "$dir/stderr"
    fi
    if grep 'mpiwatch:' "$dir/stderr" | grep -q "it is in \./mpiwatch-pcontrol-"; then
        pass "$case: the warning at the end says where the report went"
    else
        fail "$case: warning" "no warning says where the report went" "$dir/stderr"
    fi
    if [ -e "$outdir" ]; then
        fail "$case: nothing created" "$outdir exists after the run"
    else
        pass "$case: nothing created at $outdir"
    fi
    named "$case" "$dir/cwd" "mpiwatch-pcontrol-${NP}r-$stamp" "$work/pcontrol"
}

echo "not a folder" >"$work/file.txt"
bad_outdir "outdir under a file" "$work/file.txt/sub"
if [ "$(cat "$work/file.txt")" != "not a folder" ]; then
    fail "outdir under a file: file untouched" "$work/file.txt was changed"
fi
bad_outdir "outdir missing" "$work/no-such-folder/reports"

finish
