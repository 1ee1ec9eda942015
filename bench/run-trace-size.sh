#!/usr/bin/env bash
# run-trace-size.sh: the trace's bytes per MPI call, in the per-rank files and
# in the OTF2 archive, on LAMMPS in.melt and examples/halo.f90 (issue 29,
# "Size": at most 16 and 40 bytes a call).
#
# See bench/README.md. Exit status: 0 when the benchmark ran (whatever the
# verdicts), non-zero on an error (bad arguments, a run failing).
set -euo pipefail

PROG=$(basename "$0")
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CHECK="$TOP/tests/trace/trace_check.py"
TARGET_FILES=16
TARGET_OTF2=40

usage() {
    cat <<EOF
usage: $PROG --mpi openmpi|mpich --lib PATH/libmpiwatch.so --client PATH/mpiwatch [options]

Runs, with MPIWATCH_TRACE=1 on NP ranks, LAMMPS's in.melt (/usr/bin/lmp,
/usr/share/lammps/examples/melt/in.melt; skipped when missing or not built
with this MPI) and examples/halo.f90 (with libmpiwatch_f.so from beside
--lib), converts each run's files with \`mpiwatch --trace DIR --otf2 OUT\`,
and prints the bytes per MPI call (the JSON report's calls, all ranks): of
the per-rank files, with and without their headers, and of the OTF2 archive
(every file under OUT, and its event files alone), against the targets
($TARGET_FILES and $TARGET_OTF2 bytes a call).

options:
  --mpi openmpi|mpich   which MPI (uses mpirun.MPI and mpif90.MPI)
  --lib PATH            the libmpiwatch.so to preload
  --client PATH         the mpiwatch client (built with OTF2 for the archive)
  --np N                ranks (default 4)
  --keep                keep the temporary directory
  -h, --help            this text
EOF
}

die() {
    echo "$PROG: error: $*" >&2
    exit 1
}

MPI="" LIB="" CLIENT="" NP=4 KEEP=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h | --help) usage; exit 0 ;;
        --mpi | --lib | --client | --np)
            [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"
            case $1 in
                --mpi) MPI=$2 ;;
                --lib) LIB=$2 ;;
                --client) CLIENT=$2 ;;
                --np) [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--np wants a count, got '$2'"; NP=$2 ;;
            esac
            shift 2 ;;
        --keep) KEEP=1; shift ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "$MPI" == openmpi || "$MPI" == mpich ]] || die "--mpi wants openmpi or mpich (see --help)"
[[ -f "$LIB" ]] || die "--lib: no library at '$LIB'"
[[ -x "$CLIENT" ]] || die "--client: no program at '$CLIENT'"
LIB=$(cd "$(dirname "$LIB")" && pwd)/$(basename "$LIB")
LIB_F=$(dirname "$LIB")/libmpiwatch_f.so
DO_CALLGRIND=0
. "$HERE/common.sh"
need_mpi_tools
PYTHON=${PYTHON:-python3}

bench_workdir trace-size
unset LD_PRELOAD MPIWATCH_TRACE 2>/dev/null || true

# traced NAME PRELOAD PROGRAM ARGS...: one traced run in $TMP/NAME; its
# per-rank files and report there, the OTF2 archive in $TMP/NAME/otf2.
traced() {
    local name=$1 preload=$2 dir=$TMP/$1 rc=0
    shift 2
    mkdir -p "$dir"
    local -a cmd=("$MPIRUN")
    local -a envs=(LD_PRELOAD="$preload" MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json MPIWATCH_OUTDIR="$dir")
    local e
    if [[ $MPI == openmpi ]]; then
        cmd+=(--oversubscribe -np "$NP")
        for e in "${envs[@]}"; do cmd+=(-x "$e"); done
    else
        cmd+=(-n "$NP")
        for e in "${envs[@]}"; do cmd+=(-genv "${e%%=*}" "${e#*=}"); done
    fi
    (cd "$dir" && "${cmd[@]}" "$@" >stdout 2>stderr </dev/null) || rc=$?
    [[ $rc -eq 0 ]] || { tail -n 5 "$dir/stderr" >&2; die "the traced $name run failed (status $rc)"; }
    "$CLIENT" --trace "$dir" --otf2 "$dir/otf2" >"$dir/otf2.log" 2>&1 ||
        echo "$name: the OTF2 conversion failed: $(head -n 2 "$dir/otf2.log")" >&2
}

# sizes NAME: the figures of one run.
sizes() {
    local name=$1 dir=$TMP/$1 report calls
    report=$(ls "$dir"/mpiwatch-*.json | head -n 1)
    calls=$("$PYTHON" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(sum(f["calls"] for f in r["functions"].values()))' "$report")
    local -a files=("$dir"/*.trace.*)
    local bytes otf2 events
    bytes=$(cat "${files[@]}" | wc -c)
    echo "$name: $calls MPI calls on $NP ranks"
    awk -v c="$calls" -v b="$bytes" -v t="$TARGET_FILES" 'BEGIN {
        printf "  per-rank files: %d bytes, %.1f bytes a call (target <= %d: %s)\n",
            b, b / c, t, b / c <= t ? "met" : "MISSED" }'
    echo "  per-rank files, decoded: $("$PYTHON" "$CHECK" sizes "${files[@]}" | tail -n 1)"
    if [[ -d "$dir/otf2" ]]; then
        otf2=$(find "$dir/otf2" -type f -exec cat {} + | wc -c)
        events=$(find "$dir/otf2" -type f -name '*.evt' -exec cat {} + | wc -c)
        awk -v c="$calls" -v b="$otf2" -v e="$events" -v t="$TARGET_OTF2" 'BEGIN {
            printf "  OTF2 archive: %d bytes, %.1f bytes a call (target <= %d: %s); event files %.1f\n",
                b, b / c, t, b / c <= t ? "met" : "MISSED", e / c }'
    else
        echo "  OTF2 archive: none (see $dir/otf2.log)"
    fi
}

echo "# mpiwatch trace size: bytes per MPI call; mpi: $MPI; library: $LIB"
lmp=$(command -v lmp || true)
melt=/usr/share/lammps/examples/melt/in.melt
want=$([[ $MPI == openmpi ]] && echo libmpi.so.40 || echo libmpich)
if [[ -n "$lmp" && -r "$melt" ]] && [[ $(ldd "$lmp") == *"$want"* ]]; then
    mkdir -p "$TMP/lammps"
    cp "$melt" "$TMP/lammps/"
    traced lammps "$LIB" "$lmp" -in in.melt
    sizes lammps
else
    echo "lammps: skipped (no $melt, no lmp, or lmp not built with $MPI)"
fi
if [[ -f "$LIB_F" ]] && command -v "mpif90.$MPI" >/dev/null; then
    "mpif90.$MPI" -O2 -o "$TMP/halo.exe" "$TOP/examples/halo.f90" >"$TMP/halo.log" 2>&1 ||
        die "building examples/halo.f90 failed (see $TMP/halo.log)"
    traced halo "$LIB:$LIB_F" "$TMP/halo.exe"
    sizes halo
else
    echo "halo: skipped (no $LIB_F or no mpif90.$MPI)"
fi
