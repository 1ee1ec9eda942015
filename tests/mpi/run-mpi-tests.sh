#!/usr/bin/env bash
# run-mpi-tests.sh: end-to-end tests of libmpiwatch with real MPI programs.
#
# For each test program and rank count: build a plain binary and one linked
# with libmpiwatch, run (a) the plain binary bare, (b) the plain binary with
# LD_PRELOAD=lib, (c) the linked binary, each in a fresh cwd and a fresh
# MPIWATCH_OUTDIR; (b) and (c) must print exactly what (a) printed and write
# one report that check_report.py accepts; (a) must write no report.
#
# Prints one TAP line per case (ok N - CASE, not ok N - CASE: why) and the plan.
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
all_tests="p2p collectives onesided io comms datatypes pcontrol reuse"
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
trap 'if [ "$failed" -eq 0 ]; then rm -rf "$work"; else echo "# work directory kept: $work"; fi' EXIT

preload=$lib
check_report=$here/check_report.py
# Open MPI 4.1's osc/rdma cannot create a window on a single process
# (MPI_Win_create fails with MPI_ERR_WIN, open-mpi/ompi#10726).
openmpi_np1_args=(--mca osc '^rdma')
. "$here/../lib/run-cases.sh"

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

finish
