# Shared helpers for the tests/runtime scripts (bash). Source it after setting
# `name` (the script's short name, used in messages).
#
# Needs, as make check exports them: MPICC, MPIRUN, MPI_FLAVOR, top_srcdir,
# LIBMPIWATCH (the built libmpiwatch.so); PYTHON (default python3) for
# check_report.py; top_builddir where a script needs the generated sources.
# MW_TIMEOUT (default 60) limits each mpirun, in seconds.
#
# Each script prints "PASS <case> (<mpi>)", "FAIL <case> (<mpi>): <why>" or
# "SKIP <case> (<mpi>): <why>" lines and ends with "N passed, M failed";
# finish() exits 1 after a failure, 77 (automake's SKIP) when every case was
# skipped, else 0. After a failure the work directory is kept and named.

set -u

for var in MPICC MPIRUN MPI_FLAVOR top_srcdir LIBMPIWATCH; do
    if [ -z "${!var:-}" ]; then
        echo "ERROR $name: $var is not set (run through make check, or export it)" >&2
        exit 99
    fi
done
case "$MPI_FLAVOR" in
    openmpi|mpich) ;;
    *) echo "SKIP $name: MPI_FLAVOR is '$MPI_FLAVOR', not openmpi or mpich"; exit 77 ;;
esac
if [ ! -f "$LIBMPIWATCH" ]; then
    echo "ERROR $name: LIBMPIWATCH=$LIBMPIWATCH does not exist (build the library first)" >&2
    exit 99
fi
top_srcdir=$(cd "$top_srcdir" && pwd)
PYTHON=${PYTHON:-python3}
export MW_TIMEOUT=${MW_TIMEOUT:-60}
rt_dir="$top_srcdir/tests/runtime"
libdir=$(cd "$(dirname "$LIBMPIWATCH")" && pwd)
LIBMPIWATCH="$libdir/$(basename "$LIBMPIWATCH")"   # absolute: the ranks run elsewhere
. "$top_srcdir/tests/lib/launch.sh"

# The runs must not inherit a configuration, a preload or a batch job id from
# the caller: Open MPI's local ranks and MPICH's see mpirun's environment.
unset MPIWATCH_OUTDIR MPIWATCH_LEVEL MPIWATCH_TIMER MPIWATCH_FORMATS LD_PRELOAD
unset MPIWATCH_MONITOR MPIWATCH_TRANSPORT MPIWATCH_BIND MPIWATCH_WAIT MPIWATCH_MONITOR_BUFFER \
    MPIWATCH_MONITOR_INTERVAL
unset SLURM_JOB_ID PBS_JOBID LSB_JOBID JOB_ID FLUX_JOB_ID

passed=0
failed=0
skipped=0
work=$(mktemp -d "${TMPDIR:-/tmp}/mpiwatch-runtime-$name.XXXXXX")
trap 'if [ "$failed" -eq 0 ]; then rm -rf "$work"; else echo "(work directory kept: $work)"; fi' EXIT

pass() {
    echo "PASS $1 ($MPI_FLAVOR)"
    passed=$((passed + 1))
}

skip() {
    echo "SKIP $1 ($MPI_FLAVOR): $2"
    skipped=$((skipped + 1))
}

# fail CASE REASON [FILE...]: the reason, then the last lines of each file.
fail() {
    local case=$1 reason=$2 f
    shift 2
    echo "FAIL $case ($MPI_FLAVOR): $reason"
    for f in "$@"; do
        if [ -s "$f" ]; then
            echo "    --- $f (last 30 lines)"
            tail -n 30 "$f" | sed 's/^/    /'
        fi
    done
    failed=$((failed + 1))
}

finish() {
    echo "$passed passed, $failed failed"
    if [ "$failed" -gt 0 ]; then
        exit 1
    fi
    if [ "$passed" -eq 0 ] && [ "$skipped" -gt 0 ]; then
        exit 77
    fi
    exit 0
}

# build SOURCE OUTPUT plain|linked: compile a test program, bare or linked
# with libmpiwatch (which then precedes the MPI libraries). A failure fails
# the script.
build() {
    local src=$1 out=$2 mode=$3 rc=0
    if [ "$mode" = linked ]; then
        $MPICC -o "$out" "$src" -L"$libdir" -lmpiwatch "-Wl,-rpath,$libdir" -lpthread \
            >"$out.log" 2>&1 || rc=$?
    else
        $MPICC -o "$out" "$src" -lpthread >"$out.log" 2>&1 || rc=$?
    fi
    if [ "$rc" -ne 0 ]; then
        fail "build $(basename "$out")" "$MPICC could not build $(basename "$src") ($mode)" "$out.log"
        finish
    fi
}

# keep_copy FILE COPY: in the background, copy FILE to COPY as soon as it
# appears (ranks publish a port file complete, by rename, and rank 0 removes
# it at MPI_Finalize); gives up after 60 s. Sets keep_pid.
keep_copy() {
    (for _ in $(seq 600); do
         if [ -s "$1" ]; then cp -p "$1" "$2" 2>/dev/null && exit 0; fi
         sleep 0.1
     done) &
    keep_pid=$!
}

# run DIR NP MODE [VAR=VALUE ...] -- PROGRAM [ARGS...]: run in DIR/cwd
# (created) under the time limit; MODE is bare, linked (the program is linked
# with libmpiwatch) or preload (LD_PRELOAD of LIBMPIWATCH). The variables go
# to every rank. Leaves DIR/stdout, DIR/stderr and DIR/rc.
run() {
    local dir=$1 np=$2 mode=$3 rc=0
    shift 3
    mkdir -p "$dir/cwd"
    if [ "$mode" = preload ]; then
        set -- LD_BIND_NOW=1 LD_PRELOAD="$LIBMPIWATCH" "$@"
    fi
    (cd "$dir/cwd" && mw_launch "$np" "$@" >"$dir/stdout" 2>"$dir/stderr" </dev/null) || rc=$?
    echo "$rc" >"$dir/rc"
    return 0
}

rc_of() {
    cat "$1/rc"
}

# describe_rc RC: the status in words (124 is the time limit).
describe_rc() {
    if [ "$1" -eq 124 ]; then
        echo "timed out after ${MW_TIMEOUT}s (status 124)"
    else
        echo "status $1"
    fi
}

# same_output CASE DIR BAREDIR: passes CASE if the run in DIR ended with status 0
# and printed what the bare run in BAREDIR printed; else fails it and returns 1.
same_output() {
    local rc
    rc=$(rc_of "$2")
    if [ "$rc" -ne 0 ]; then
        fail "$1: status" "$(describe_rc "$rc")" "$2/stdout" "$2/stderr"
        return 1
    elif ! cmp -s "$2/stdout" "$3/stdout"; then
        fail "$1: output" "the output differs from the bare run's" "$2/stdout" "$3/stdout"
        return 1
    fi
    pass "$1: status 0, the bare run's output"
}

# reports DIR [PATTERN]: the names of the report files in DIR, one a line.
reports() {
    (cd "$1" && find . -maxdepth 1 -type f -name "${2:-mpiwatch-*}" | sed 's|^\./||' | sort)
}

# hidden_files DIR: the names of files starting with '.' in DIR (leftover
# temporary reports).
hidden_files() {
    (cd "$1" && find . -maxdepth 1 -type f -name '.*' | sed 's|^\./||' | sort)
}

# json_get FILE KEY...: the value at the path of keys in a JSON report
# (printed as JSON), or an error message and status 1.
json_get() {
    "$PYTHON" - "$@" <<'EOF'
import json, sys
try:
    value = json.load(open(sys.argv[1], encoding="utf-8"))
    for key in sys.argv[2:]:
        value = value[key]
except Exception as err:
    print(f"cannot read {'/'.join(sys.argv[2:])} from {sys.argv[1]}: {err!r}")
    sys.exit(1)
print(value if isinstance(value, str) else json.dumps(value))
EOF
}

# check_counts CASE EXPECT NP OUTDIR: check the single JSON report in OUTDIR
# against an expect file with tests/mpi/check_report.py; pass or fail CASE.
check_counts() {
    local case=$1 expect=$2 np=$3 out=$4 log
    log=$(mktemp "$work/check.XXXXXX")
    if "$PYTHON" "$top_srcdir/tests/mpi/check_report.py" --expect "$expect" --np "$np" "$out" \
            >"$log" 2>&1; then
        pass "$case"
    else
        fail "$case" "the report's counts do not match $(basename "$expect")" "$log"
    fi
}
