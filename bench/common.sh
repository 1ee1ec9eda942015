# common.sh: what the benchmark scripts share. Sourced after the caller has
# defined die() and parsed MPI (openmpi or mpich) and DO_CALLGRIND (0 or 1).

# Set MPICC and MPIRUN for $MPI and check that they (and valgrind, when the
# instruction counts are wanted) are in PATH.
need_mpi_tools() {
    MPICC=mpicc.$MPI
    MPIRUN=mpirun.$MPI
    command -v "$MPICC" >/dev/null || die "$MPICC not found in PATH"
    command -v "$MPIRUN" >/dev/null || die "$MPIRUN not found in PATH"
    if [[ $DO_CALLGRIND -eq 1 ]]; then
        command -v valgrind >/dev/null || die "valgrind not found (install it, or pass --no-callgrind)"
    fi
}

# callgrind_total FILE: the instructions a callgrind output file counted
# (its "totals:" line, or "summary:" in older formats); nothing if neither.
callgrind_total() {
    local total
    total=$(sed -n 's/^totals: *\([0-9]*\).*/\1/p' "$1" | head -n1)
    [[ -z "$total" ]] && total=$(sed -n 's/^summary: *\([0-9]*\).*/\1/p' "$1" | head -n1)
    echo "$total"
}

# bench_workdir NAME: TMP, a new temporary folder mpiwatch-NAME.*, removed at
# exit unless KEEP is 1 (then named on stderr); as root, Open MPI may run.
bench_workdir() {
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/mpiwatch-$1.XXXXXX")
    trap 'if [[ ${KEEP:-0} -eq 1 ]]; then echo "# kept $TMP" >&2; else rm -rf "$TMP"; fi' EXIT
    if [[ $(id -u) -eq 0 ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
}
