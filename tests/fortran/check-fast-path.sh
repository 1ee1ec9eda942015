#!/usr/bin/env bash
# The Fortran entry points' gates jump through slots that libmpiwatch points
# with its mode (runtime/core/mode.h): in the usual profiled case at the fast
# bodies in libmpiwatch, while profiling is off at the MPI's own entry point,
# with another clock at the profiled bodies in libmpiwatch_f. fast_path.f90
# makes 100 profiled MPI_COMM_RANK calls, 100 MPI_SENDRECV and 50
# MPI_COMM_RANK under MPI_PCONTROL(0), then 30 after MPI_PCONTROL(1);
# callgrind counts which body each reached (a singleton run, both libraries
# preloaded), and the report must count the profiled calls whichever body
# took them. Where the MPI's mpif.h binding calls the C MPI_X (the layering
# measured at configure time says so: MPICH), MPI_SENDRECV's first call
# probes that and its 99 others are handed over to the C wrapper
# (runtime/core/handoff.h), which counts them from the Fortran call site:
# the report's MPI_Sendrecv site is the program's (caller MAIN__).
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

# sendrecv_site REPORT: the MPI_Sendrecv call sites, as "calls caller" each.
sendrecv_site() {
    "$PYTHON" - "$1" <<'PY'
import json, sys
sites = json.load(open(sys.argv[1], encoding="utf-8"))["callsites"]["sites"]
print(", ".join(f"{s['calls']} {s['caller']}" for s in sites if s["function"] == "MPI_Sendrecv") or "none")
PY
}

# The mpif.h binding of MPI_SEND calls the C MPI_Send: MPI_SENDRECV's
# then too, and is handed over.
if mpif_send_reaches_c; then
    handed=99
else
    handed=0
fi

# check_case LABEL [VAR=VALUE...] -- FAST_RANK FAST_SENDRECV HANDED ON_RANK REPORTED_RANK SITE:
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
    local fast_rank fast_sendrecv handed_sendrecv on_rank reported report site=none
    fast_rank=$(calls_to "$dir/cg.out" mpiwatch_fortran_fast_mw_f_mpi_comm_rank)
    fast_sendrecv=$(calls_to "$dir/cg.out" mpiwatch_fortran_fast_mw_f_mpi_sendrecv)
    handed_sendrecv=$(calls_to "$dir/cg.out" mpiwatch_fortran_handoff_mw_f_mpi_sendrecv)
    on_rank=$(calls_to "$dir/cg.out" mw_f_mpi_comm_rank_on)
    report=$(reports "$dir" 'mpiwatch-*.json')
    reported=none
    if [ -n "$report" ]; then
        reported=$(json_get "$dir/$report" functions MPI_Comm_rank calls)
        site=$(sendrecv_site "$dir/$report")
    fi
    local got="fast MPI_COMM_RANK $fast_rank, fast MPI_SENDRECV $fast_sendrecv, handed over $handed_sendrecv, profiled body MPI_COMM_RANK $on_rank, reported MPI_Comm_rank $reported, MPI_Sendrecv site $site"
    local want="fast MPI_COMM_RANK $1, fast MPI_SENDRECV $2, handed over $3, profiled body MPI_COMM_RANK $4, reported MPI_Comm_rank $5, MPI_Sendrecv site $6"
    if [ "$got" = "$want" ]; then
        pass "$label: $got"
    else
        fail "$label" "$got; expected $want" "$dir/stderr"
    fi
}

check_case profiled -- 130 $((100 - handed)) $handed 0 130 "100 MAIN__"
check_case clock-gettime MPIWATCH_TIMER=clock_gettime -- 0 0 0 130 130 "100 MAIN__"
# MPI_PCONTROL(1) switches profiling on for the last 30 (and the 100
# MPI_SENDRECV are not profiled: no site).
check_case level-0 MPIWATCH_LEVEL=0 -- 30 0 0 0 30 none
finish
