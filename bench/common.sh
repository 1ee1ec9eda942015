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
