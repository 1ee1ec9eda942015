#!/usr/bin/env bash
# A stale handed word (runtime/core/handoff.h: a Fortran call handed to a
# binding that did not reach the C wrapper) never costs the calls after it:
# stale_word.c makes two Fortran MPI_SEND calls, then leaves a stale word
# before 10 MPI_Barrier, 10 MPI_Comm_rank and 10 MPI_Irecv/MPI_Isend; the
# report counts each once. Where the mpif.h binding reaches the C wrappers
# (the layering measured at configure time: MPICH), the second MPI_SEND was
# handed over, so the stale word is reported by one warning; elsewhere no
# entry point hands calls over, and nothing is printed.
name=fortran-stale-word
. "$(dirname "$0")/../lib/harness.sh"
fortran_or_skip

calls_file="$top_builddir/generated/fortran_calls.c"
targets=$(sed -n 's/^static void \*mw_fortran_targets_mpif\[\([0-9]*\)\].*/\1/p' "$calls_file")
if [ -z "$targets" ] || ! grep -q 'MW_F_HANDOFF(mpiwatch_fortran_handoff_mw_f_mpi_send,' "$calls_file"; then
    fail "stale word" "no mpif.h targets or no MPI_SEND hand-over stub in $calls_file"
    finish
fi
if ! $MPICC -DMW_TARGETS="$targets" -o "$work/stale_word" "$top_srcdir/tests/fortran/stale_word.c" \
        >"$work/build.log" 2>&1; then
    fail "build stale_word.c" "$MPICC could not build it" "$work/build.log"
    finish
fi
if mpif_send_reaches_c; then
    warnings=1
else
    warnings=0
fi
run "$work/pre" 1 bare -- env LD_BIND_NOW=1 LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" "$work/stale_word"
if [ "$(rc_of "$work/pre")" -ne 0 ] || ! grep -qx 'stale_word: done' "$work/pre/stdout"; then
    fail "stale word: run" "$(describe_rc "$(rc_of "$work/pre")")" "$work/pre/stdout" "$work/pre/stderr"
    finish
fi
report=$(reports "$work/pre/cwd" 'mpiwatch-*.json')
if [ -z "$report" ]; then
    fail "stale word: report" "no JSON report" "$work/pre/stderr"
    finish
fi
got=""
for f in MPI_Send MPI_Barrier MPI_Comm_rank MPI_Irecv MPI_Isend; do
    got="$got $f $(json_get "$work/pre/cwd/$report" functions "$f" calls)"
done
want=" MPI_Send 2 MPI_Barrier 10 MPI_Comm_rank 10 MPI_Irecv 12 MPI_Isend 10"
if [ "$got" = "$want" ]; then
    pass "stale word: counted after it:$got"
else
    fail "stale word: counts" "got$got; expected$want" "$work/pre/stderr"
fi
stale=$(grep -c 'did not reach its C wrapper' "$work/pre/stderr" || true)
others=$(grep 'mpiwatch: warning' "$work/pre/stderr" | grep -vc 'did not reach its C wrapper' || true)
if [ "$stale" = "$warnings" ] && [ "$others" = 0 ]; then
    pass "stale word: $stale warning(s) about it, as expected ($warnings), and no other"
else
    fail "stale word: warnings" "$stale about it (expected $warnings), $others others" "$work/pre/stderr"
fi
finish
