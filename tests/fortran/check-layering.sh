#!/usr/bin/env bash
# Which layer each Fortran binding of this MPI calls (MPI_X or PMPI_X), as
# configure measured it, is (1) well formed and recorded in the Fortran
# coverage report, (2) what a fresh probe measures now, and (3) what the
# product itself shows: layering.f (mpif.h) and layering08.f90 (use mpi_f08)
# start and finish MPI through the C API and in between call MPI_COMM_RANK
# three times and MPI_SEND twice through Fortran. With the C library alone
# (libmpiwatch.so preloaded), the report must count exactly the Fortran calls
# whose binding calls MPI_X, and none of those that call PMPI_X; with the
# Fortran library too, all of them, exactly once, whatever the layering.
# Reports in TAP (tests/lib/tap.sh).
set -euo pipefail
. "$(dirname "$0")/../lib/harness.sh"
fortran_or_skip
python=$PYTHON
here="$top_srcdir/tests/fortran"
np=2
gen() { PYTHONPATH="$top_srcdir/generator" PYTHONDONTWRITEBYTECODE=1 "$python" "$@"; }

# layer BINDING FUNCTION: MPI_X, PMPI_X, none, absent or unknown.
layer() {
    gen -c 'import sys
from mpiwatch_gen.layering import parse_layering
calls = parse_layering(sys.argv[1])[sys.argv[2]]
print(calls if isinstance(calls, str) else calls[sys.argv[3]])' "$FORTRAN_LAYERING" "$1" "$2"
}

echo "recorded layering: $FORTRAN_LAYERING"
if gen -c 'import sys
from mpiwatch_gen.layering import parse_layering, describe
parse_layering(sys.argv[1]); print(describe(sys.argv[1]))' "$FORTRAN_LAYERING" >"$work/describe" 2>&1; then
    pass "the recorded layering is well formed: $(cat "$work/describe")"
else
    fail "the recorded layering is well formed" "it does not parse" "$work/describe"
fi

coverage="$top_builddir/generated/fortran-coverage.txt"
if grep -qxF "# Layering (measured): $FORTRAN_LAYERING" "$coverage"; then
    pass "the Fortran coverage report records it"
else
    fail "the Fortran coverage report records it" "$coverage says otherwise" "$coverage"
fi

fresh=$(gen -m mpiwatch_gen.layering --mpicc "$MPICC" --mpifc "$MPIFC" --print layering \
        2>"$work/probe.err" || true)
if [ "$fresh" = "$FORTRAN_LAYERING" ]; then
    pass "a fresh probe measures the same"
else
    fail "a fresh probe measures the same" "it measures '$fresh'" "$work/probe.err"
fi

# run_layering NAME NP PRELOAD DIR: run bin/NAME with PRELOAD (may be empty).
run_layering() {
    local name=$1 n=$2 pre=$3 dir=$4 rc=0
    mkdir -p "$dir/out"
    local -a envs=("MPIWATCH_OUTDIR=$dir/out")
    if [ -n "$pre" ]; then
        envs+=(LD_BIND_NOW=1 "LD_PRELOAD=$pre")
    fi
    (cd "$dir" && mw_launch "$n" "${envs[@]}" -- "$work/bin/$name" \
        >"$dir/stdout" 2>"$dir/stderr" </dev/null) || rc=$?
    echo "$rc" >"$dir/rc"
}

# expect_file FILE COMM_RANK SEND: an expect file for a layering run.
expect_file() {
    printf 'MPI_Init %s\nMPI_Finalize %s\nMPI_Comm_rank %s\nMPI_Send %s\n' \
        np np "$2" "$3" >"$1"
}

mkdir -p "$work/bin"
if ! $MPICC -c -o "$work/bin/layering_c.o" "$here/layering_c.c" >"$work/cc.log" 2>&1; then
    fail "compile layering_c.c" "$MPICC failed" "$work/cc.log"
fi
for binding in mpif f08; do
    case $binding in
        mpif) name=layering; src="$here/layering.f" ;;
        f08) name=layering08; src="$here/layering08.f90" ;;
    esac
    state=$(layer "$binding" Init)
    if [ "$state" = absent ]; then
        echo "the MPI has no use mpi_f08 module: $name is not run"
        continue
    fi
    if [ "$state" = unknown ]; then
        fail "$name" "configure could not measure this binding's layering"
        continue
    fi
    if ! $MPIFC -o "$work/bin/$name" "$src" "$work/bin/layering_c.o" >"$work/$name.log" 2>&1
    then
        fail "$name compile" "$MPIFC failed" "$work/$name.log"
        continue
    fi
    rank_layer=$(layer "$binding" Comm_rank)
    send_layer=$(layer "$binding" Send)
    ranks=0; sends=0
    [ "$rank_layer" = MPI_X ] && ranks="3*np"
    [ "$send_layer" = MPI_X ] && sends="2*np"
    expect_file "$work/$name.c-only.expect" "$ranks" "$sends"
    expect_file "$work/$name.both.expect" "3*np" "2*np"

    run_layering "$name" "$np" "" "$work/$name.bare"
    run_layering "$name" "$np" "$LIBMPIWATCH" "$work/$name.c-only"
    run_layering "$name" "$np" "$LIBMPIWATCH:$LIBMPIWATCH_F" "$work/$name.both"
    for variant in c-only both; do
        dir="$work/$name.$variant"
        case $variant in
            c-only) what="$name, C library only: MPI_COMM_RANK ($rank_layer) counted ${ranks}, MPI_SEND ($send_layer) ${sends}" ;;
            both) what="$name, with libmpiwatch_f: every Fortran call counted once" ;;
        esac
        if [ "$(cat "$dir/rc")" -ne 0 ] || [ "$(cat "$work/$name.bare/rc")" -ne 0 ]; then
            fail "$what" "a run failed" "$work/$name.bare/stderr" "$dir/stderr"
        elif ! cmp -s "$work/$name.bare/stdout" "$dir/stdout"; then
            fail "$what" "stdout differs from the bare run" "$dir/stdout"
        elif "$python" "$top_srcdir/tests/mpi/check_report.py" --expect \
                "$work/$name.$variant.expect" --np "$np" "$dir/out" >"$dir/check" 2>&1; then
            pass "$what"
        else
            fail "$what" "report check failed" "$dir/check"
        fi
    done
done

finish
