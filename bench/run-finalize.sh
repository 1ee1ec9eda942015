#!/bin/bash
# What the report costs at MPI_Finalize: the same program, bare and under
# mpiwatch, in interleaved rounds of the same invocation; prints the median
# over rounds of the slowest rank's MPI_Finalize time for each, and the
# difference, and rank 0's own account of the report's phases
# (MPIWATCH_REPORT_TIMING) in the median round. The issue's target: under
# 50 ms more at 8 ranks.
set -euo pipefail

usage() {
    cat <<USAGE
usage: run-finalize.sh --mpi openmpi|mpich --lib PATH/libmpiwatch.so [--np N] [--rounds R]
                       [--sites] [--limit S]

Runs bench/finalize.c on N ranks (default 8, oversubscribed on small
machines) R times each (default 7), bare and with libmpiwatch preloaded
(reports written to a temporary folder), interleaved, and prints the median
of the slowest rank's MPI_Finalize time for both and the difference, then
rank 0's timing of the report's phases in the round of the median
(MPIWATCH_REPORT_TIMING=1: ms per phase, the bytes rank 0 received for the
call sites, the most the call-site merge held at once, its peak memory).
--sites adds 50 call sites per rank. --limit is each run's time limit in
seconds (default 900; 512 oversubscribed ranks need more).
USAGE
}

mpi="" lib="" np=8 rounds=7 limit=900 program_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
        --lib) lib=${2:?--lib needs a value}; shift 2 ;;
        --np) np=${2:?--np needs a value}; shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
        --sites) program_args=(sites); shift ;;
        --limit) limit=${2:?--limit needs a value}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run-finalize.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[[ $limit =~ ^[1-9][0-9]*$ ]] || { echo "run-finalize.sh: --limit wants seconds, got '$limit'" >&2; exit 2; }
case $mpi in openmpi|mpich) ;; *) echo "run-finalize.sh: --mpi must be openmpi or mpich" >&2; exit 2 ;; esac
[ -r "$lib" ] || { echo "run-finalize.sh: cannot read the library '$lib'" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$lib" "$work/libmpiwatch.so"
"mpicc.$mpi" -O2 -o "$work/finalize" "$here/finalize.c"

run() {   # run MODE: prints the slowest rank's finalize time in ms (and keeps
          # rank 0's timing line of an mpiwatch run beside it in $work/timing)
    local env=()
    if [ "$1" = mpiwatch ]; then
        rm -rf "$work/out"; mkdir "$work/out"
        env=(LD_PRELOAD="$work/libmpiwatch.so" MPIWATCH_OUTDIR="$work/out" MPIWATCH_REPORT_TIMING=1)
    fi
    local out args=()
    for e in "${env[@]}"; do
        if [ "$mpi" = openmpi ]; then args+=(-x "$e"); else args+=(-genv "${e%%=*}" "${e#*=}"); fi
    done
    local status=0
    if [ "$mpi" = openmpi ]; then
        out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout "$limit" \
              mpirun.openmpi --oversubscribe -np "$np" "${args[@]}" "$work/finalize" \
              "${program_args[@]}" 2>"$work/stderr") || status=$?
    else
        out=$(timeout "$limit" mpirun.mpich -n "$np" "${args[@]}" "$work/finalize" \
              "${program_args[@]}" 2>"$work/stderr") || status=$?
    fi
    if [ "$status" -ne 0 ]; then
        echo "run-finalize.sh: the $1 run on $np ranks failed (status $status; 124: its --limit of $limit s); its stderr ends:" >&2
        tail -n 20 "$work/stderr" >&2
        exit 1
    fi
    local ms
    ms=$(sed -n 's/.*finalize_ms=//p' <<<"$out" | sort -g | tail -n 1)
    if [ "$1" = mpiwatch ]; then
        printf '%s %s\n' "$ms" "$(grep -m 1 'report timing' "$work/stderr" | sed 's/.*(ms)://')" \
            >> "$work/timing"
    fi
    if [ "$1" = mpiwatch ] && ! ls "$work"/out/mpiwatch-*.json >/dev/null 2>&1; then
        echo "run-finalize.sh: the mpiwatch run wrote no report" >&2; exit 1
    fi
    echo "$ms"
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

: > "$work/bare"; : > "$work/mpiwatch"; : > "$work/timing"
for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then order="bare mpiwatch"; else order="mpiwatch bare"; fi
    for mode in $order; do run "$mode" >> "$work/$mode"; done
done
bare=$(median < "$work/bare")
mw=$(median < "$work/mpiwatch")
added=$(awk -v a="$mw" -v b="$bare" 'BEGIN {printf "%.1f", a - b}')
verdict=$(awk -v d="$added" 'BEGIN {print (d < 50) ? "PASS" : "ABOVE TARGET"}')
echo "== MPI_Finalize on $np ranks ($mpi), median of $rounds interleaved rounds, slowest rank =="
printf '%-10s %10s ms\n' bare "$bare" mpiwatch "$mw"
printf '%-10s %10s ms   (target < 50 ms: %s)\n' added "$added" "$verdict"
echo "rank 0's report phases in the median mpiwatch round (ms, bytes, kB):"
sort -g "$work/timing" | sed -n "$(( (rounds + 1) / 2 ))p" | cut -d' ' -f2- | tr ' ' '\n' | \
    sed -n 's/=/ /p' | awk '{printf "  %-22s %s\n", $1, $2}'
