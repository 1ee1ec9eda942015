#!/usr/bin/env bash
# run-fortran-tests.sh: end-to-end tests of mpiwatch with Fortran (and C++)
# MPI programs, in the style of tests/mpi/run-mpi-tests.sh.
#
# For each test program and rank count: build a plain binary with the MPI's
# compiler wrapper, one linked with the profiling libraries (shared), and,
# with --static, one linked with their static archives in the classic order
# (app.o -lmpiwatch_f -lmpiwatch, before the MPI's libraries); run the plain
# binary bare, the plain binary with LD_PRELOAD of every library (and
# LD_BIND_NOW=1), and the linked binaries, each in a fresh cwd and a fresh
# MPIWATCH_OUTDIR. Every profiled run must print exactly what the bare run
# printed and write one report whose counts check_report.py accepts; the bare
# run must write no report.
#
# A test NAME is the source NAME.f, NAME.f90, NAME.F90 or NAME.cpp in the
# source folder, with its expected counts in NAME.MPI.expect if there is
# one for this MPI (openmpi, mpich), else in NAME.expect; a line
# "mw-flags: FLAGS" in the source adds compiler flags.
#
# --twin FILE.c: the tests are Fortran twins of the C program FILE.c, which
# is built with --cc and run preloaded on the same rank counts; every profiled
# Fortran run must then report the same calls, bytes, sizes, rank pairs and
# call-site totals as the twin (compare_traffic.py beside FILE.c), and a test
# without its own NAME.expect uses FILE's.
#
# --passthrough NAME: NAME.f90 with NAME.c (compiled by --cc and exported
# with -rdynamic) is run as a plain program, linked and preloaded; it must
# print only lines ending in "ok" and end with "N checks, 0 failed".
#
# Prints one TAP line per case (ok N - CASE, not ok N - CASE: why) and the plan.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: run-fortran-tests.sh --mpi openmpi|mpich --compiler CMD --lib PATH [--lib PATH...]
                            --tests "NAME..." [--src DIR] [--nps "1 2 4"] [--static]
                            [--static-libs "FLAGS"] [--mpirun CMD]
                            [--passthrough NAME --cc CMD] [--twin FILE.c --cc CMD]
--lib names a profiling library (libmpiwatch_f.so, libmpiwatch.so), in link
order; --static also links their .a archives found beside them, followed by
--static-libs (their own dependencies, e.g. -lpthread). PYTHON (default
/usr/bin/python3) runs tests/mpi/check_report.py; MW_TIMEOUT (default 120)
limits each mpirun, in seconds. After a failure the work directory is kept.
EOF
}

die() {
    echo "run-fortran-tests.sh: error: $*" >&2
    exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
check_report=$here/../mpi/check_report.py
mpi=""
libs=()
src=$here
nps="1 2 4"
tests=""
static=0
static_libs=""
compiler_cmd=""
mpirun_cmd=""
passthrough=""
cc_cmd=""
twin=""
python=${PYTHON:-/usr/bin/python3}
run_timeout=${MW_TIMEOUT:-120}

while [ $# -gt 0 ]; do
    case "$1" in
        --mpi) [ $# -ge 2 ] || die "--mpi needs a value"; mpi=$2; shift 2 ;;
        --lib) [ $# -ge 2 ] || die "--lib needs a value"; libs+=("$2"); shift 2 ;;
        --src) [ $# -ge 2 ] || die "--src needs a value"; src=$2; shift 2 ;;
        --nps) [ $# -ge 2 ] || die "--nps needs a value"; nps=$2; shift 2 ;;
        --tests) [ $# -ge 2 ] || die "--tests needs a value"; tests=$2; shift 2 ;;
        --static) static=1; shift ;;
        --static-libs) [ $# -ge 2 ] || die "--static-libs needs a value"; static_libs=$2; shift 2 ;;
        --compiler) [ $# -ge 2 ] || die "--compiler needs a value"; compiler_cmd=$2; shift 2 ;;
        --mpirun) [ $# -ge 2 ] || die "--mpirun needs a value"; mpirun_cmd=$2; shift 2 ;;
        --passthrough) [ $# -ge 2 ] || die "--passthrough needs a value"; passthrough=$2; shift 2 ;;
        --cc) [ $# -ge 2 ] || die "--cc needs a value"; cc_cmd=$2; shift 2 ;;
        --twin) [ $# -ge 2 ] || die "--twin needs a value"; twin=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument: $1" ;;
    esac
done

case "$mpi" in
    openmpi|mpich) ;;
    "") usage >&2; die "--mpi is required" ;;
    *) die "--mpi must be openmpi or mpich, not '$mpi'" ;;
esac
[ ${#libs[@]} -gt 0 ] || { usage >&2; die "--lib is required"; }
[ -n "$tests" ] || [ -n "$passthrough" ] || { usage >&2; die "--tests is required"; }
[ -z "$passthrough" ] || [ -n "$cc_cmd" ] || die "--passthrough needs --cc"
[ -z "$twin" ] || [ -n "$cc_cmd" ] || die "--twin needs --cc"
[ -z "$twin" ] || [ -f "$twin" ] || die "--twin: no such file: $twin"
[ -n "$compiler_cmd" ] || { usage >&2; die "--compiler is required"; }
read -r -a compiler <<<"$compiler_cmd"
read -r -a mpirun <<<"${mpirun_cmd:-mpirun.$mpi}"
command -v "${compiler[0]}" >/dev/null || die "${compiler[0]} not found"
command -v "${mpirun[0]}" >/dev/null || die "${mpirun[0]} not found"
command -v "$python" >/dev/null || die "$python not found (set PYTHON)"
[ -f "$check_report" ] || die "$check_report not found"
for np in $nps; do
    case "$np" in
        ''|*[!0-9]*|0) die "--nps: '$np' is not a positive rank count" ;;
    esac
done
case "$run_timeout" in
    ''|*[!0-9]*) die "MW_TIMEOUT must be a number of seconds, not '$run_timeout'" ;;
esac

# The libraries: absolute paths, the preload list, and the link flags.
preload=""
link_flags=()
static_flags=(-Wl,-Bstatic)
for i in "${!libs[@]}"; do
    lib=${libs[$i]}
    [ -f "$lib" ] || die "library not found: $lib"
    lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")
    libs[$i]=$lib
    preload="${preload:+$preload:}$lib"
    name=$(basename "$lib" .so)
    name=${name#lib}
    link_flags+=(-L"$(dirname "$lib")" -l"$name" "-Wl,-rpath,$(dirname "$lib")")
    if [ "$static" -eq 1 ]; then
        [ -f "$(dirname "$lib")/lib$name.a" ] || die "--static: no lib$name.a beside $lib"
        static_flags+=(-L"$(dirname "$lib")" -l"$name")
    fi
done
static_flags+=(-Wl,-Bdynamic)
read -r -a extra_static <<<"$static_libs"
static_flags+=("${extra_static[@]}")

# source_of NAME: the test's source file.
source_of() {
    local ext
    for ext in f f90 F90 cpp; do
        if [ -f "$src/$1.$ext" ]; then
            echo "$src/$1.$ext"
            return
        fi
    done
    die "no source for test '$1' in $src (NAME.f, .f90, .F90 or .cpp)"
}

if [ "$mpi" = openmpi ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
passed=0
failed=0
unset MPIWATCH_OUTDIR
unset LD_PRELOAD

work=$(mktemp -d "${TMPDIR:-/tmp}/mpiwatch-ftests.XXXXXX")
trap 'if [ "$failed" -eq 0 ]; then rm -rf "$work"; else echo "# work directory kept: $work"; fi' EXIT

# Open MPI 4.1's osc/rdma cannot create a window on a single process
# (MPI_Win_create fails with MPI_ERR_WIN, open-mpi/ompi#10726).
openmpi_np1_args=(--mca osc '^rdma')
. "$here/../lib/run-cases.sh"

# build NAME KIND OUTPUT FLAGS...: compile the test's source; KIND names the case.
build() {
    local t=$1 kind=$2 out=$3
    shift 3
    local source flags
    source=$(source_of "$t")
    flags=$(sed -n 's/.*mw-flags: *//p' "$source" | head -n 1)
    # shellcheck disable=SC2086  # the flags are words
    if "${compiler[@]}" $flags -O2 -o "$out" "$source" "$@" >"$out.log" 2>&1; then
        return 0
    fi
    fail "$t compile $kind" "${compiler[*]} failed" "$out.log"
    return 1
}

# The C twin: built once, run preloaded on each rank count.
twin_dir=$work/twin
if [ -n "$twin" ]; then
    read -r -a cc <<<"$cc_cmd"
    mkdir -p "$twin_dir"
    if ! "${cc[@]}" -O2 -o "$twin_dir/plain" "$twin" >"$twin_dir/build.log" 2>&1; then
        fail "C twin compile" "${cc[*]} failed" "$twin_dir/build.log"
    fi
    for np in $nps; do
        if [ -x "$twin_dir/plain" ]; then
            run_case "$twin_dir/np$np" "$np" "$twin_dir/plain" preload
            if [ "$(cat "$twin_dir/np$np/rc")" -ne 0 ]; then
                fail "C twin np=$np" "$(describe_rc "$(cat "$twin_dir/np$np/rc")")" \
                    "$twin_dir/np$np/stderr"
            fi
        fi
    done
fi

# same_as_twin NAME DIR NP: the run's report against the twin's.
same_as_twin() {
    local name=$1 dir=$2 np=$3 ref got
    ref=$(reports_in "$twin_dir/np$np/out" 2>/dev/null | head -n 1)
    got=$(reports_in "$dir/out" | head -n 1)
    if [ -z "$ref" ]; then
        fail "$name" "the C twin wrote no report"
    elif "$python" "$(dirname "$twin")/compare_traffic.py" "$ref" "$got" >"$dir/twin" 2>&1; then
        pass "$name"
    else
        fail "$name" "its report differs from the C twin's" "$dir/twin"
    fi
}

modes="preload linked"
if [ "$static" -eq 1 ]; then
    modes="$modes static"
fi
for t in $tests; do
    expect=$src/$t.$mpi.expect
    [ -f "$expect" ] || expect=$src/$t.expect
    [ -f "$expect" ] || [ -z "$twin" ] || expect=${twin%.c}.expect
    [ -f "$expect" ] || die "no $expect"
    bins=$work/bin/$t
    mkdir -p "$bins"
    declare -A built=()
    build "$t" plain "$bins/plain" && built[plain]=1
    build "$t" linked "$bins/linked" "${link_flags[@]}" && built[linked]=1
    if [ "$static" -eq 1 ]; then
        build "$t" static "$bins/static" "${static_flags[@]}" && built[static]=1
    fi
    built[preload]=${built[plain]:-}
    for np in $nps; do
        base=$work/run/$t.np$np
        if [ -n "${built[plain]:-}" ]; then
            run_case "$base/bare" "$np" "$bins/plain" bare
            check_bare "$t np=$np bare" "$base/bare"
        else
            fail "$t np=$np bare" "not built"
        fi
        for mode in $modes; do
            if [ -z "${built[$mode]:-}" ]; then
                fail "$t np=$np $mode" "not built"
                continue
            fi
            bin=$bins/$mode
            if [ "$mode" = preload ]; then
                bin=$bins/plain
            fi
            run_case "$base/$mode" "$np" "$bin" "$mode"
            before=$failed
            check_profiled "$t np=$np $mode" "$base/$mode" "$base/bare" "$np" "$expect"
            if [ -n "$twin" ] && [ "$failed" -eq "$before" ]; then
                same_as_twin "$t np=$np $mode: same traffic as C" "$base/$mode" "$np"
            fi
        done
    done
    unset built
done

# run_passthrough NAME MODE BINARY: a plain program, no launcher.
run_passthrough() {
    local t=$1 mode=$2 bin=$3 dir=$work/run/$1.$2 rc=0
    mkdir -p "$dir"
    if [ "$mode" = preload ]; then
        (cd "$dir" && LD_BIND_NOW=1 LD_PRELOAD="$preload" timeout -k 10 "$run_timeout" "$bin" \
            >"$dir/stdout" 2>"$dir/stderr" </dev/null) || rc=$?
    else
        (cd "$dir" && timeout -k 10 "$run_timeout" "$bin" >"$dir/stdout" 2>"$dir/stderr" \
            </dev/null) || rc=$?
    fi
    local summary bad
    summary=$(tail -n 1 "$dir/stdout")
    bad=$(sed '$d' "$dir/stdout" | grep -cv ' ok$' || true)
    if [ "$rc" -ne 0 ]; then
        fail "$t $mode" "exited with status $rc" "$dir/stdout" "$dir/stderr"
    elif ! echo "$summary" | grep -Eq '^[1-9][0-9]* checks, 0 failed$' || [ "$bad" -ne 0 ]; then
        fail "$t $mode" "a value did not reach the MPI as passed" "$dir/stdout" "$dir/stderr"
    elif [ "$(sed '$d' "$dir/stdout" | wc -l)" -ne "${summary%% *}" ]; then
        fail "$t $mode" "the number of checks does not match the report" "$dir/stdout"
    else
        pass "$t $mode: $summary"
    fi
}

if [ -n "$passthrough" ]; then
    t=$passthrough
    bins=$work/bin/$t
    mkdir -p "$bins"
    read -r -a cc <<<"$cc_cmd"
    if ! "${cc[@]}" -c -o "$bins/$t.o" "$src/$t.c" >"$bins/cc.log" 2>&1; then
        fail "$t compile" "${cc[*]} failed" "$bins/cc.log"
    else
        if build "$t" linked "$bins/linked" "$bins/$t.o" -rdynamic "${link_flags[@]}"; then
            run_passthrough "$t" linked "$bins/linked"
        fi
        if build "$t" plain "$bins/plain" "$bins/$t.o" -rdynamic; then
            run_passthrough "$t" preload "$bins/plain"
        fi
    fi
fi

finish
