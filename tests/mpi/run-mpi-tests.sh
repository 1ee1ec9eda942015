#!/usr/bin/env bash
# run-mpi-tests.sh: end-to-end tests of libmpiwatch with real MPI programs.
#
# For each test program and rank count: build a plain binary and one linked
# with libmpiwatch, run (a) the plain binary bare, (b) the plain binary with
# LD_PRELOAD=lib, (c) the linked binary, each in a fresh cwd and a fresh
# MPIWATCH_OUTDIR; (b) and (c) must print exactly what (a) printed and write
# one report that check_report.py accepts; (a) must write no report.
#
# Prints one PASS/FAIL line per case and ends with "N passed, M failed".
set -euo pipefail

usage() {
    cat <<'EOF'
usage: run-mpi-tests.sh --mpi openmpi|mpich --lib PATH/TO/libmpiwatch.so
                        [--nps "1 2 4"] [--tests "p2p collectives ..."]
                        [--mpicc CMD] [--mpirun CMD]
--mpicc and --mpirun default to mpicc.MPI and mpirun.MPI; PYTHON (default
/usr/bin/python3) runs check_report.py; MW_TIMEOUT (default 120) limits each
mpirun, in seconds. After a failure the work directory is kept.
EOF
}

die() {
    echo "run-mpi-tests.sh: error: $*" >&2
    exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
all_tests="p2p collectives onesided io comms datatypes pcontrol"
mpi=""
lib=""
nps="1 2 4"
tests="$all_tests"
mpicc_cmd=""
mpirun_cmd=""
python=${PYTHON:-/usr/bin/python3}
run_timeout=${MW_TIMEOUT:-120}

while [ $# -gt 0 ]; do
    case "$1" in
        --mpi) [ $# -ge 2 ] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
        --lib) [ $# -ge 2 ] || die "--lib needs a value"; lib=$2; shift 2 ;;
        --nps) [ $# -ge 2 ] || die "--nps needs a value"; nps=$2; shift 2 ;;
        --tests) [ $# -ge 2 ] || die "--tests needs a value"; tests=$2; shift 2 ;;
        --mpicc) [ $# -ge 2 ] || die "--mpicc needs a value"; mpicc_cmd=$2; shift 2 ;;
        --mpirun) [ $# -ge 2 ] || die "--mpirun needs a value"; mpirun_cmd=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

case "$mpi" in
    openmpi|mpich) ;;
    "") usage >&2; die "--mpi is required" ;;
    *) die "--mpi must be openmpi or mpich, not '$mpi'" ;;
esac
[ -n "$lib" ] || { usage >&2; die "--lib is required"; }
[ -f "$lib" ] || die "library not found: $lib"
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
libdir=$(dirname "$lib")
# The compiler and launcher commands may carry arguments (split on blanks).
read -r -a mpicc <<<"${mpicc_cmd:-mpicc.$mpi}"
read -r -a mpirun <<<"${mpirun_cmd:-mpirun.$mpi}"
[ ${#mpicc[@]} -gt 0 ] || die "--mpicc is empty"
[ ${#mpirun[@]} -gt 0 ] || die "--mpirun is empty"
command -v "${mpicc[0]}" >/dev/null || die "${mpicc[0]} not found"
command -v "${mpirun[0]}" >/dev/null || die "${mpirun[0]} not found"
command -v "$python" >/dev/null || die "$python not found (set PYTHON)"
for np in $nps; do
    case "$np" in
        ''|*[!0-9]*|0) die "--nps: '$np' is not a positive rank count" ;;
    esac
done
case "$run_timeout" in
    ''|*[!0-9]*) die "MW_TIMEOUT must be a number of seconds, not '$run_timeout'" ;;
esac
for t in $tests; do
    case " $all_tests " in
        *" $t "*) ;;
        *) die "--tests: unknown test '$t' (known: $all_tests)" ;;
    esac
done

# Link against the library by name when it has the usual name, else by path.
if [ "$(basename "$lib")" = libmpiwatch.so ]; then
    link_flags=(-L"$libdir" -lmpiwatch "-Wl,-rpath,$libdir")
else
    link_flags=("$lib" "-Wl,-rpath,$libdir")
fi

if [ "$mpi" = openmpi ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
passed=0
failed=0

# Runs must not inherit a report directory or a preload from the caller.
unset MPIWATCH_OUTDIR
unset LD_PRELOAD

work=$(mktemp -d "${TMPDIR:-/tmp}/mpiwatch-tests.XXXXXX")
trap 'if [ "$failed" -eq 0 ]; then rm -rf "$work"; fi' EXIT

# pass CASE-NAME
pass() {
    echo "PASS $1 ($mpi)"
    passed=$((passed + 1))
}

# fail CASE-NAME REASON [FILE-TO-SHOW...]: print the reason, then the files.
fail() {
    local name=$1 reason=$2
    shift 2
    echo "FAIL $name ($mpi): $reason"
    local f
    for f in "$@"; do
        if [ -s "$f" ]; then
            echo "    --- $(basename "$f") (last 40 lines)"
            tail -n 40 "$f" | sed 's/^/    /'
        fi
    done
    failed=$((failed + 1))
}

# reports_in DIR...: list the mpiwatch-*.json files in the directories.
reports_in() {
    local d
    for d in "$@"; do
        find "$d" -maxdepth 1 -name 'mpiwatch-*.json' -type f
    done
}

# run_case DIR NP BINARY MODE: run under mpirun in DIR/cwd with
# MPIWATCH_OUTDIR=DIR/out; MODE is bare, preload or linked. Leaves
# DIR/stdout, DIR/stderr and DIR/rc.
run_case() {
    local dir=$1 np=$2 bin=$3 mode=$4
    mkdir -p "$dir/cwd" "$dir/out"
    local -a cmd
    if [ "$mpi" = openmpi ]; then
        cmd=("${mpirun[@]}" --oversubscribe -np "$np" -x MPIWATCH_OUTDIR="$dir/out")
        # Open MPI 4.1's osc/rdma cannot create a window on a single process
        # (MPI_Win_create fails with MPI_ERR_WIN, open-mpi/ompi#10726).
        if [ "$np" -eq 1 ]; then
            cmd+=(--mca osc '^rdma')
        fi
        if [ "$mode" = preload ]; then
            cmd+=(-x LD_BIND_NOW=1 -x LD_PRELOAD="$lib")
        fi
    else
        cmd=("${mpirun[@]}" -n "$np" -genv MPIWATCH_OUTDIR "$dir/out")
        if [ "$mode" = preload ]; then
            cmd+=(-genv LD_BIND_NOW 1 -genv LD_PRELOAD "$lib")
        fi
    fi
    local rc=0
    (cd "$dir/cwd" && MPIWATCH_OUTDIR="$dir/out" \
        timeout -k 10 "$run_timeout" "${cmd[@]}" "$bin" \
        >"$dir/stdout" 2>"$dir/stderr" </dev/null) || rc=$?
    echo "$rc" >"$dir/rc"
}

# describe_rc RC: a short reason for a failed run.
describe_rc() {
    if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then
        echo "timed out after ${run_timeout}s"
    else
        echo "mpirun exited with status $1"
    fi
}

# check_bare NAME DIR: the bare run succeeded, printed something, wrote no report.
check_bare() {
    local name=$1 dir=$2 rc
    rc=$(cat "$dir/rc")
    if [ "$rc" -ne 0 ]; then
        fail "$name" "$(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
    elif [ ! -s "$dir/stdout" ]; then
        fail "$name" "printed nothing on stdout" "$dir/stderr"
    elif reports_in "$dir/out" "$dir/cwd" >"$dir/reports" && [ -s "$dir/reports" ]; then
        fail "$name" "a run without mpiwatch wrote a report" "$dir/reports"
    else
        pass "$name"
    fi
}

# check_profiled NAME DIR BARE-DIR NP EXPECT: the run succeeded, printed what
# the bare run printed, and wrote one report in its MPIWATCH_OUTDIR (none in
# its cwd) that matches the expectations.
check_profiled() {
    local name=$1 dir=$2 bare=$3 np=$4 expect=$5 rc
    rc=$(cat "$dir/rc")
    if [ "$rc" -ne 0 ]; then
        fail "$name" "$(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
        return
    fi
    if [ "$(cat "$bare/rc")" -ne 0 ] || [ ! -s "$bare/stdout" ]; then
        fail "$name" "no reference output: the bare run failed"
        return
    fi
    if ! cmp -s "$bare/stdout" "$dir/stdout"; then
        diff -u "$bare/stdout" "$dir/stdout" >"$dir/stdout.diff" || true
        fail "$name" "stdout differs from the bare run" "$dir/stdout.diff" "$dir/stderr"
        return
    fi
    local in_cwd
    in_cwd=$(reports_in "$dir/cwd")
    if [ -n "$in_cwd" ]; then
        fail "$name" "report written to the cwd instead of MPIWATCH_OUTDIR: $(basename "$in_cwd")"
        return
    fi
    if "$python" "$here/check_report.py" --expect "$expect" --np "$np" "$dir/out" \
        >"$dir/check" 2>&1; then
        pass "$name"
    else
        fail "$name" "report check failed" "$dir/check"
    fi
}

for t in $tests; do
    src=$here/$t.c
    expect=$here/$t.expect
    bins=$work/bin/$t
    mkdir -p "$bins"
    plain_ok=1
    linked_ok=1
    if ! "${mpicc[@]}" -std=c11 -Wall -Wextra -O2 -o "$bins/plain" "$src" \
        >"$bins/plain.log" 2>&1; then
        fail "$t compile plain" "${mpicc[*]} failed" "$bins/plain.log"
        plain_ok=0
    fi
    if ! "${mpicc[@]}" -std=c11 -Wall -Wextra -O2 -o "$bins/linked" "$src" "${link_flags[@]}" \
        >"$bins/linked.log" 2>&1; then
        fail "$t compile linked" "${mpicc[*]} failed" "$bins/linked.log"
        linked_ok=0
    fi
    for np in $nps; do
        base=$work/run/$t.np$np
        if [ "$plain_ok" -eq 1 ]; then
            run_case "$base/bare" "$np" "$bins/plain" bare
            check_bare "$t np=$np bare" "$base/bare"
            run_case "$base/preload" "$np" "$bins/plain" preload
            check_profiled "$t np=$np preload" "$base/preload" "$base/bare" "$np" "$expect"
        else
            fail "$t np=$np bare" "not built"
            fail "$t np=$np preload" "not built"
        fi
        if [ "$linked_ok" -eq 1 ]; then
            run_case "$base/linked" "$np" "$bins/linked" linked
            if [ "$plain_ok" -eq 1 ]; then
                check_profiled "$t np=$np linked" "$base/linked" "$base/bare" "$np" "$expect"
            else
                fail "$t np=$np linked" "no reference output: the plain binary was not built"
            fi
        else
            fail "$t np=$np linked" "not built"
        fi
    done
done

if [ "$failed" -ne 0 ]; then
    echo "work directory kept: $work"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
