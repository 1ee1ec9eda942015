# The test scripts' library (tests/*/check-*.sh source it; bash). It reads
# the build tree's tests/lib/env.sh (written by configure: MPICC, MPIRUN,
# MPI_FLAVOR, PYTHON, the two trees, what was built), then tests/lib/tap.sh
# (pass, fail, skip, finish: TAP, one line per case) and tests/lib/launch.sh
# (mw_launch: mpirun for Open MPI and MPICH), and gives the helpers below.
#
# The build tree is top_builddir if set (make check sets it), else the
# current folder; so a script runs on its own from the build tree:
#   cd build-openmpi && ../tests/runtime/check-config.sh
#
# Before sourcing, a script may set
#   name            its short name (default: the script's name), for messages
#                   and its work directory
#   needs_library=no  when it does not run MPI programs with libmpiwatch (the
#                   generator's unit tests, the README's check): then neither
#                   the MPI nor the built library is required.
# After sourcing: work is a fresh directory, removed at exit unless a case
# failed (then it is kept and named). MW_TIMEOUT (default 120) limits each
# mpirun, in seconds.

set -u

mw_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
name=${name:-$(basename "$0" .sh)}
name=${name#check-}
if [ -z "${top_builddir:-}" ]; then
    top_builddir=$PWD
fi
if [ ! -f "$top_builddir/tests/lib/env.sh" ]; then
    echo "Bail out! $name: no tests/lib/env.sh in $top_builddir: run this script from a" \
         "configured build tree (cd build-openmpi && ../tests/.../$(basename "$0")), or set top_builddir"
    exit 99
fi
. "$top_builddir/tests/lib/env.sh"
# Both trees without "..": file names in reports and messages are compared.
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
. "$mw_lib_dir/tap.sh"
. "$mw_lib_dir/launch.sh"

if [ "${needs_library:-yes}" = yes ]; then
    case "$MPI_FLAVOR" in
        openmpi|mpich) ;;
        *) skip_all "$name: MPI_FLAVOR is '$MPI_FLAVOR', not openmpi or mpich" ;;
    esac
    if [ ! -f "$LIBMPIWATCH" ]; then
        bail_out "$name: $LIBMPIWATCH does not exist (build the library first: make)"
    fi
fi
export MW_TIMEOUT=${MW_TIMEOUT:-120}
# The client's --diff and --hatchet run the Python package of this source
# tree (python/), not an installed one; no bytecode is left in the tree.
export MW_PYTHONDIR="$top_srcdir/python" PYTHONDONTWRITEBYTECODE=1
rt_dir="$top_srcdir/tests/runtime"
libdir=$(dirname "$LIBMPIWATCH")

# The runs must not inherit a configuration, a preload or a batch job id from
# the caller: Open MPI's local ranks and MPICH's see mpirun's environment.
unset MPIWATCH_OUTDIR MPIWATCH_LEVEL MPIWATCH_TIMER MPIWATCH_FORMATS LD_PRELOAD \
    MPIWATCH_TRACE MPIWATCH_TRACE_DIR MPIWATCH_TRACE_BUFFER MPIWATCH_LABEL \
    MPIWATCH_REPORT_TIMING MPIWATCH_TRACE_RANKS MPIWATCH_TRACE_WINDOW MPIWATCH_TRACE_FUNCTIONS \
    MPIWATCH_TRACE_OTF2
unset MPIWATCH_MONITOR MPIWATCH_TRANSPORT MPIWATCH_BIND MPIWATCH_WAIT MPIWATCH_MONITOR_BUFFER \
    MPIWATCH_MONITOR_INTERVAL
unset SLURM_JOB_ID PBS_JOBID LSB_JOBID JOB_ID FLUX_JOB_ID

work=$(mktemp -d "${TMPDIR:-/tmp}/mpiwatch-$name.XXXXXX")
# keep_work: the EXIT trap's default (a script with its own trap calls it).
keep_work() {
    if [ "$failed" -eq 0 ]; then rm -rf "$work"; else echo "# work directory kept: $work"; fi
}
trap keep_work EXIT

# fortran_or_skip: skip the whole script when this build has no libmpiwatch_f.
fortran_or_skip() {
    if [ "$MW_HAVE_FORTRAN" != yes ] || [ ! -f "$LIBMPIWATCH_F" ]; then
        skip_all "$name: this build has no libmpiwatch_f (configure found no working MPI Fortran)"
    fi
}

# mpif_send_reaches_c: does this MPI's mpif.h MPI_SEND call the C MPI_Send
# (the layering configure measured, FORTRAN_LAYERING: MPICH)? Then its
# Fortran data-moving calls are handed over to the C wrappers
# (runtime/core/handoff.h).
mpif_send_reaches_c() {
    printf '%s\n' "$FORTRAN_LAYERING" | tr ';' '\n' | grep -Eq '^mpif:(.*,)?Send=MPI_X(,|$)'
}

# build SOURCE OUTPUT plain|linked: compile a test program, bare or linked
# with libmpiwatch (which then precedes the MPI libraries). A failure fails
# the script.
# need_client: $client is the build's mpiwatch client; a suite that needs
# it stops with an error (99) when it is not built.
need_client() {
    client="$top_builddir/mpiwatch"
    if [ ! -x "$client" ]; then
        echo "ERROR $name: the client $client is not built" >&2
        exit 99
    fi
}

# checked CASE COMMAND...: pass CASE when COMMAND succeeds, else fail with its output.
checked() {
    local case=$1 log
    shift
    log=$(mktemp "$work/log.XXXXXX")
    if "$@" >"$log" 2>&1; then
        pass "$case: $(tail -n 1 "$log")"
    else
        fail "$case" "$(head -n 5 "$log")" "$log"
    fi
}

# check_merged CASE DIR WORLD [merged_check.py options]: `mpiwatch --merge
# DIR` writes the job's report from the partial profiles in DIR: status 0,
# one merged JSON report of the report schema, and what merged_check.py is
# given to check (the ranks merged, calls); pass or fail CASE (skipped in a
# build without libjansson, which has no --merge).
check_merged() {
    local case=$1 dir=$2 world=$3 log report
    shift 3
    if [ "$MW_HAVE_JANSSON" != yes ]; then
        skip "$case" "mpiwatch --merge needs libjansson (libjansson-dev), not found by configure"
        return 0
    fi
    need_client
    log=$(mktemp "$work/merge.XXXXXX")
    if ! "$client" --merge "$dir" >"$log" 2>&1; then
        fail "$case" "mpiwatch --merge $dir failed" "$log"
        return 1
    fi
    report=$(ls "$dir"/mpiwatch-*-merged.json 2>/dev/null)
    if [ "$(printf '%s\n' "$report" | grep -c .)" -ne 1 ]; then
        fail "$case" "not one merged JSON report in $dir: $(ls -A "$dir" | tr '\n' ' ')" "$log"
        return 1
    fi
    for ext in txt html; do
        if [ "$ext" = html ] && [ "$MW_HAVE_CHARTJS" != yes ]; then
            continue
        fi
        if [ ! -s "${report%.json}.$ext" ]; then
            fail "$case" "no ${report%.json}.$ext beside the JSON report" "$log"
            return 1
        fi
    done
    if ! "$PYTHON" "$top_srcdir/tests/lib/report_schema.py" "$report" >>"$log" 2>&1 ||
            ! "$PYTHON" "$top_srcdir/tests/lib/merged_check.py" "$report" --world "$world" "$@" \
                >>"$log" 2>&1; then
        fail "$case" "the merged report is not as expected" "$log"
        return 1
    fi
    pass "$case"
}

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

# keep_copy FILE COPY [SECONDS]: in the background, copy FILE to COPY as
# soon as it appears (ranks publish a port file complete, by rename, and
# rank 0 removes it at MPI_Finalize); gives up after SECONDS (default 60;
# a loaded machine has taken longer to start 32 Open MPI ranks). Sets keep_pid.
keep_copy() {
    (for _ in $(seq $((${3:-60} * 10))); do
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

# launch_lost DIR: the run in DIR failed because Open MPI's launcher lost a
# process it had not started ("process rank N with PID 0 on node ...
# exiting improperly": 64 oversubscribed ranks on a loaded machine, with or
# without mpiwatch). Nothing of the program ran there: a case may run again.
# Open MPI wraps that text at a fixed width, so the words may be split over
# two lines ("rank 53 with PID 0 on" / "node vm").
launch_lost() {
    [ "$(rc_of "$1")" -ne 0 ] &&
        tr '\n' ' ' <"$1/stderr" 2>/dev/null | grep -q 'with PID 0 on *node'
}

# last_count FILE: the last "calls N" line in FILE (tests/runtime/forever.c
# prints them), or 0.
last_count() {
    { grep -o '^calls [0-9]*$' "$1" || echo "calls 0"; } | tail -n 1 | cut -d' ' -f2
}

# ranks_of PID NAME: the processes named NAME among PID's descendants.
ranks_of() {
    ps -eo pid=,ppid=,comm= | awk -v root="$1" -v prog="$2" '
        { parent[$1] = $2; comm[$1] = $3 }
        END {
            for (p in parent) {
                q = p
                while ((q in parent) && q != root && q > 1)
                    q = parent[q]
                if (q == root && comm[p] == prog)
                    print p
            }
        }'
}

rc_of() {
    cat "$1/rc"
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
    "$PYTHON" - "$@" <<'PY'
import json, sys
try:
    value = json.load(open(sys.argv[1], encoding="utf-8"))
    for key in sys.argv[2:]:
        value = value[key]
except Exception as err:
    print(f"cannot read {'/'.join(sys.argv[2:])} from {sys.argv[1]}: {err!r}")
    sys.exit(1)
print(value if isinstance(value, str) else json.dumps(value))
PY
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

# exec_tap COMMAND...: hand the script over to COMMAND, which reports its
# cases in TAP itself (tests/mpi/run-mpi-tests.sh and the like); the work
# directory, unused, is removed first.
exec_tap() {
    trap - EXIT
    rm -rf "$work"
    exec "$@"
}

# exec_built_tap PROGRAM: exec_tap a test program that make check builds
# into the build tree (a path below $top_builddir); an error when it is missing.
exec_built_tap() {
    if [ ! -x "$top_builddir/$1" ]; then
        echo "ERROR $name: $top_builddir/$1 is not built (make check builds it)" >&2
        exit 99
    fi
    exec_tap "$top_builddir/$1"
}

# browser: the headless browser configure found (CHROMIUM), else one on the
# PATH; nothing when there is none.
browser() {
    local c
    [ -z "${CHROMIUM:-}" ] || { echo "$CHROMIUM"; return; }
    for c in chromium chromium-browser google-chrome; do
        if command -v "$c" >/dev/null 2>&1; then echo "$c"; return; fi
    done
    return 0
}

# web_missing CLIENT: why CLIENT cannot serve the live page (its "built
# without ..." message), or nothing when it can. 192.0.2.1 (TEST-NET-1) is no
# address of this host: a build with the server fails to listen there at
# once; one without says what to install.
web_missing() {
    "$1" --web 192.0.2.1:0 --replay /dev/null 2>&1 | grep -E 'built without (libmicrohttpd|Chart.js)' || true
}
