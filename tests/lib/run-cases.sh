# Shared by the end-to-end harnesses (tests/mpi/run-mpi-tests.sh,
# tests/fortran/run-fortran-tests.sh, which take their MPI from options and
# run on their own): running one case under mpirun (tests/lib/launch.sh) and
# judging it, each case reported in TAP (tests/lib/tap.sh). Source it after
# setting:
#   mpi                  openmpi or mpich
#   mpirun               the launcher command (an array)
#   run_timeout          seconds a run may take
#   preload              what LD_PRELOAD holds in the "preload" mode
#   python, check_report the interpreter and tests/mpi/check_report.py
#   openmpi_np1_args     extra Open MPI arguments for one-rank runs (an array, may be empty)

lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$lib_dir/tap.sh"
. "$lib_dir/launch.sh"
# mw_launch's view of the launcher options above.
MPIRUN="${mpirun[*]}"
MPI_FLAVOR=$mpi
MW_TIMEOUT=$run_timeout

# reports_in DIR...: list the mpiwatch-*.json files in the directories.
reports_in() {
    local d
    for d in "$@"; do
        find "$d" -maxdepth 1 -name 'mpiwatch-*.json' -type f
    done
}

# run_case DIR NP BINARY MODE: run under mpirun in DIR/cwd with
# MPIWATCH_OUTDIR=DIR/out; MODE is bare, preload (LD_PRELOAD=$preload) or
# one whose binary carries mpiwatch (linked, static). Leaves
# DIR/stdout, DIR/stderr and DIR/rc.
run_case() {
    local dir=$1 np=$2 bin=$3 mode=$4
    mkdir -p "$dir/cwd" "$dir/out"
    local -a envs=(MPIWATCH_OUTDIR="$dir/out")
    if [ "$mode" = preload ]; then
        envs+=(LD_BIND_NOW=1 LD_PRELOAD="$preload")
    fi
    local np1=""
    if [ "$mpi" = openmpi ] && [ "$np" -eq 1 ]; then
        np1="${openmpi_np1_args[*]}"
    fi
    local rc=0
    (cd "$dir/cwd" && MPIWATCH_OUTDIR="$dir/out" MW_MPIRUN_ARGS="$np1" \
        mw_launch "$np" "${envs[@]}" -- "$bin" \
        >"$dir/stdout" 2>"$dir/stderr" </dev/null) || rc=$?
    echo "$rc" >"$dir/rc"
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
    if "$python" "$check_report" --expect "$expect" --np "$np" "$dir/out" \
        >"$dir/check" 2>&1; then
        pass "$name"
    else
        fail "$name" "report check failed" "$dir/check" "$dir/stderr"
    fi
}
