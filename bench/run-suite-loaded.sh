#!/bin/bash
# The whole test suite on a busy machine: runs .ci/run (tools/test-all.sh)
# in a fresh clone of this checkout while another MPI job keeps every core
# busy (bench/spin.c on NP ranks, NP = 2 x cores by default), and prints the
# suite's closing lines, its wall time and the load average it ran under.
set -euo pipefail

usage() {
    cat <<USAGE
usage: run-suite-loaded.sh [--np N] [--mpi openmpi|mpich] [--keep]

Clones this checkout (its committed HEAD) into a temporary folder, starts
bench/spin.c on N ranks (default: twice the cores) with mpirun.MPI (default
mpich, whose waiting ranks spin too), runs 'bash .ci/run' in the clone, stops
the spinning job, and prints the suite's last lines, its wall time and the
load average sampled every 30 s. The clone is removed unless --keep (it holds
the build trees and their test-suite.log files).
USAGE
}

np=$((2 * $(nproc))) mpi=mpich keep=0
while [ $# -gt 0 ]; do
    case $1 in
        --np) np=${2:?--np needs a value}; shift 2 ;;
        --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
        --keep) keep=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run-suite-loaded.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
case $mpi in openmpi|mpich) ;; *) echo "run-suite-loaded.sh: --mpi must be openmpi or mpich" >&2; exit 2 ;; esac
case $np in ''|*[!0-9]*|0) echo "run-suite-loaded.sh: --np must be a number of ranks above 0" >&2; exit 2 ;; esac
command -v "mpicc.$mpi" >/dev/null || { echo "run-suite-loaded.sh: mpicc.$mpi not found (tools/install-deps.sh)" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
stop=$work/stop
cleanup() {
    touch "$stop"
    [ -z "${spid:-}" ] || wait "$spid" 2>/dev/null || true
    [ -z "${lpid:-}" ] || kill "$lpid" 2>/dev/null || true
    if [ "$keep" -eq 0 ]; then rm -rf "$work"; else echo "kept: $work"; fi
}
trap cleanup EXIT
git -C "$here/.." clone -q . "$work/clone"
"mpicc.$mpi" -O1 -o "$work/spin" "$here/spin.c"
if [ "$mpi" = openmpi ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun.openmpi --oversubscribe -np "$np" "$work/spin" "$stop" 10800 >"$work/spin.log" 2>&1 &
else
    mpirun.mpich -n "$np" "$work/spin" "$stop" 10800 >"$work/spin.log" 2>&1 &
fi
spid=$!
(while :; do echo "$(date +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; sleep 30; done >"$work/load.log") &
lpid=$!
echo "run-suite-loaded.sh: $np ranks of spin ($mpi) keep the cores busy; .ci/run in $work/clone"
start=$(date +%s)
rc=0
(cd "$work/clone" && CI=true bash .ci/run) >"$work/ci.log" 2>&1 </dev/null || rc=$?
took=$(( $(date +%s) - start ))
touch "$stop"
sed -n '/^=== time per suite/,/^  total:/p' "$work/ci.log" | sed -n '1,12p;13,${/^  total:/p}'
grep -E '^(FAIL|ERROR)|^  \[.*\] (FAIL|ERROR)|^=== (suites done|make distcheck)' "$work/ci.log" || true
tail -n 3 "$work/ci.log"
awk '{ n++; s += $2; if ($2 > m) m = $2; if (n == 1 || $2 < lo) lo = $2 }
     END { printf "load average (1 min) over the run: %.1f to %.1f, mean %.1f\n", lo, m, s / n }' "$work/load.log"
echo "run-suite-loaded.sh: .ci/run exited $rc after $took s ($((took / 60)) min) under load"
exit "$rc"
