#!/usr/bin/env bash
# The Fortran entry points' gates jump through slots that libmpiwatch points
# with its mode (runtime/core/mode.h): in the usual profiled case at the fast
# bodies in libmpiwatch, while profiling is off at the MPI's own entry point,
# with another clock at the profiled bodies in libmpiwatch_f. fast_path.f90
# makes 100 profiled MPI_COMM_RANK calls, 100 MPI_SENDRECV and 50
# MPI_COMM_RANK under MPI_PCONTROL(0), then 30 after MPI_PCONTROL(1);
# callgrind counts which body each reached (a singleton run, both libraries
# preloaded), and the report must count the profiled calls whichever body
# took them.
name=fortran-fast-path
. "$(dirname "$0")/../lib/harness.sh"
fortran_or_skip

if ! command -v valgrind >/dev/null 2>&1; then
    skip "fast path" "valgrind is not installed (tools/install-deps.sh installs it)"
    finish
fi
if ! $MPIFC -O2 -o "$work/fast_path" "$top_srcdir/tests/fortran/fast_path.f90" >"$work/build.log" 2>&1; then
    fail "build fast_path.f90" "$MPIFC could not build it" "$work/build.log"
    finish
fi

# calls_to FILE NAME: how many calls callgrind counted to function NAME.
calls_to() {
    "$PYTHON" - "$1" "$2" <<'PY'
import re, sys
names, total, target = {}, 0, None
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        # A name is given once, where its number first appears (fn= or cfn=).
        m = re.match(r"(c?)fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            if m.group(3):
                names[m.group(2)] = m.group(3)
            if m.group(1):
                target = names.get(m.group(2))
        elif line.startswith("calls=") and target == sys.argv[2]:
            total += int(line.split("=")[1].split()[0])
print(total)
PY
}

# check_case LABEL [VAR=VALUE...] -- FAST_RANK FAST_SENDRECV ON_RANK REPORTED_RANK:
# run fast_path.f90 under callgrind; compare what each body was called.
check_case() {
    local label=$1 dir=$work/$1
    shift
    local -a envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    mkdir -p "$dir"
    if ! (cd "$dir" && env ${envs[@]+"${envs[@]}"} MPIWATCH_OUTDIR="$dir" \
              LD_PRELOAD="$LIBMPIWATCH:$LIBMPIWATCH_F" \
              timeout "$MW_TIMEOUT" valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" \
              "$work/fast_path" >"$dir/stdout" 2>"$dir/stderr"); then
        fail "$label" "the run failed" "$dir/stderr"
        return
    fi
    if ! grep -q 'fast_path: done' "$dir/stdout"; then
        fail "$label" "the program did not finish" "$dir/stdout"
        return
    fi
    local fast_rank fast_sendrecv on_rank reported report
    fast_rank=$(calls_to "$dir/cg.out" mpiwatch_fortran_fast_mw_f_mpi_comm_rank)
    fast_sendrecv=$(calls_to "$dir/cg.out" mpiwatch_fortran_fast_mw_f_mpi_sendrecv)
    on_rank=$(calls_to "$dir/cg.out" mw_f_mpi_comm_rank_on)
    report=$(reports "$dir" 'mpiwatch-*.json')
    reported=none
    [ -n "$report" ] && reported=$(json_get "$dir/$report" functions MPI_Comm_rank calls)
    local got="fast MPI_COMM_RANK $fast_rank, fast MPI_SENDRECV $fast_sendrecv, profiled body MPI_COMM_RANK $on_rank, reported MPI_Comm_rank $reported"
    local want="fast MPI_COMM_RANK $1, fast MPI_SENDRECV $2, profiled body MPI_COMM_RANK $3, reported MPI_Comm_rank $4"
    if [ "$got" = "$want" ]; then
        pass "$label: $got"
    else
        fail "$label" "$got; expected $want" "$dir/stderr"
    fi
}

check_case profiled -- 130 100 0 130
check_case clock-gettime MPIWATCH_TIMER=clock_gettime -- 0 0 130 130
# MPI_PCONTROL(1) switches profiling on for the last 30.
check_case level-0 MPIWATCH_LEVEL=0 -- 30 0 0 30
finish
