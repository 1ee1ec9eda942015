#!/bin/bash
# What a Fortran MPI call costs through libmpiwatch_f, beside the C wrapper of
# the same call: callgrind instruction counts, all measured in one run, for
# overhead.c's loops (C) and their twins in overhead_f.f90 (use mpi), bare
# and with mpiwatch preloaded (both libraries for Fortran, the README's
# recipe), profiling on and off. The Fortran-parity issue's targets, from
# budgets.sh: a Fortran call at most BUDGET_FORTRAN_EXTRA (15) instructions
# above the C wrapper of the same call with profiling on, and at most
# BUDGET_OFF (5) above bare with profiling off.
set -euo pipefail

usage() {
    cat <<USAGE
usage: run-fortran-overhead.sh --mpi openmpi|mpich --libdir DIR [--iterations N] [--loops LIST] [--keep]

DIR holds the libmpiwatch.so and libmpiwatch_f.so built for that MPI (a
build tree's .libs). Each figure is (I(2N) - I(N)) / N, the instructions
callgrind counts inside the loop's procedure on a 1-rank (singleton) run,
so that start-up and MPI_Init cancel out. N defaults to 5000; LIST to
comm_rank,sendrecv_self,isend_irecv,send_recv,allreduce (overhead.c's loops
of those names; isend_irecv makes 3 calls per iteration, send_recv 5, the
others 1: the targets are per call, so times the calls per iteration).
USAGE
}
die() { echo "run-fortran-overhead.sh: $*" >&2; exit 2; }

MPI="" libdir="" N=5000 loops=comm_rank,sendrecv_self,isend_irecv,send_recv,allreduce keep=0
while [ $# -gt 0 ]; do
    case $1 in
        --mpi) MPI=${2:?--mpi needs a value}; shift 2 ;;
        --libdir) libdir=${2:?--libdir needs a value}; shift 2 ;;
        --iterations) N=${2:?--iterations needs a value}; shift 2 ;;
        --loops) loops=${2:?--loops needs a value}; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
case $MPI in openmpi|mpich) ;; *) die "--mpi must be openmpi or mpich" ;; esac
[[ $N =~ ^[1-9][0-9]*$ ]] || die "--iterations must be a positive whole number, not '$N'"
[ -r "$libdir/libmpiwatch.so" ] || die "no libmpiwatch.so in '$libdir'"
[ -r "$libdir/libmpiwatch_f.so" ] || die "no libmpiwatch_f.so in '$libdir' (configure found no Fortran compiler?)"
here=$(cd "$(dirname "$0")" && pwd)
DO_CALLGRIND=1
. "$here/common.sh"
. "$here/budgets.sh"
need_mpi_tools
MPIFC=mpifort.$MPI
command -v "$MPIFC" >/dev/null || die "$MPIFC not found in PATH"

TMP=$(mktemp -d)
if [ "$keep" -eq 1 ]; then echo "keeping $TMP" >&2; else trap 'rm -rf "$TMP"' EXIT; fi
# Copies: a rebuild of the tree during the run cannot mix two versions.
cp "$libdir/libmpiwatch.so" "$libdir/libmpiwatch_f.so" "$TMP/"
"$MPICC" -std=c11 -O2 -o "$TMP/overhead" "$here/overhead.c" || die "$MPICC could not build overhead.c"
(cd "$TMP" && "$MPIFC" -O2 -o overhead_f "$here/overhead_f.f90") || die "$MPIFC could not build overhead_f.f90"
PRELOAD_C=$TMP/libmpiwatch.so
PRELOAD_F=$TMP/libmpiwatch.so:$TMP/libmpiwatch_f.so

# count LANG VARIANT LOOP n: instructions inside the loop for n iterations.
count() {
    local lang=$1 variant=$2 loop=$3 n=$4 file=$TMP/cg.$1.$2.$3.$4
    local -a envs=() cmd
    if [ "$lang" = c ]; then
        cmd=("$TMP/overhead" --callgrind "$loop" --iterations "$n")
        [ "$variant" = bare ] || envs=(LD_PRELOAD="$PRELOAD_C")
    else
        cmd=("$TMP/overhead_f" "$loop" "$n")
        [ "$variant" = bare ] || envs=(LD_PRELOAD="$PRELOAD_F")
    fi
    [ "$variant" = off ] && envs+=(MPIWATCH_LEVEL=0)
    local fn=bench_loop_$loop
    [ "$lang" = f ] && fn=${fn}_f
    echo "# callgrind: $lang $variant $loop $n" >&2
    env ${envs[@]+"${envs[@]}"} MPIWATCH_OUTDIR="$TMP" valgrind --tool=callgrind \
        --toggle-collect="$fn" --callgrind-out-file="$file" "${cmd[@]}" >"$file.log" 2>&1 ||
        { tail -n 20 "$file.log" >&2; die "callgrind run ($lang, $variant, $loop) failed"; }
    local total
    total=$(callgrind_total "$file")
    [ -n "$total" ] && [ "$total" -gt 0 ] || die "callgrind counted nothing in $fn (see $file.log)"
    echo "$total"
}
per_call() { # LANG VARIANT LOOP
    local a b
    a=$(count "$1" "$2" "$3" "$N")
    b=$(count "$1" "$2" "$3" $((2 * N)))
    awk -v a="$a" -v b="$b" -v n="$N" 'BEGIN { printf "%.2f", (b - a) / n }'
}

echo "== instructions per iteration ($MPI; callgrind, 1 rank, (I($((2 * N))) - I($N)) / $N inside the loop) =="
printf '%-14s %5s %8s %8s %8s %8s %8s %9s %-14s %9s %-14s\n' loop calls C-bare C-on F-bare F-on F-off \
    "+F - +C" "(<=$BUDGET_FORTRAN_EXTRA/call)" "F-off" "(<=$BUDGET_OFF/call)"
IFS=, read -r -a LOOPS <<<"$loops"
verdict=0
for l in "${LOOPS[@]}"; do
    case $l in
        comm_rank|sendrecv_self|isend_irecv|send_recv|allreduce) calls=$(calls_per_iteration "$l" | wc -w) ;;
        *) die "--loops: '$l' is not comm_rank, sendrecv_self, isend_irecv, send_recv or allreduce" ;;
    esac
    cb=$(per_call c bare "$l"); con=$(per_call c on "$l")
    fb=$(per_call f bare "$l"); fon=$(per_call f on "$l"); foff=$(per_call f off "$l")
    awk -v l="$l" -v k="$calls" -v cb="$cb" -v con="$con" -v fb="$fb" -v fon="$fon" -v foff="$foff" \
        -v ton="$BUDGET_FORTRAN_EXTRA" -v toff="$BUDGET_OFF" 'BEGIN {
        d = (fon - fb) - (con - cb); o = foff - fb
        printf "%-14s %5d %8.2f %8.2f %8.2f %8.2f %8.2f %+9.2f %-14s %+9.2f %-14s\n", l, k, cb, con, fb, fon, foff,
            d, (d <= ton * k ? "PASS" : "ABOVE TARGET"), o, (o <= toff * k ? "PASS" : "ABOVE TARGET")
        exit (d <= ton * k && o <= toff * k) ? 0 : 1 }' || verdict=1
done
echo "   +C = C-on - C-bare: what the C wrapper adds; +F = F-on - F-bare: what the Fortran entry"
echo "   points add (the Fortran binding's own cost is in both F columns and cancels). Targets"
echo "   (the Fortran-parity issue, bench/budgets.sh): +F - +C at most $BUDGET_FORTRAN_EXTRA per call with"
echo "   profiling on, F-off - F-bare at most $BUDGET_OFF per call with profiling off."
if [ "$verdict" -eq 0 ]; then
    echo "verdict: PASS (every loop within both targets)"
else
    echo "verdict: ABOVE TARGET (see the loops marked so)"
fi
