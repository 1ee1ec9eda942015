#!/usr/bin/env bash
# A correct program must never hang under mpiwatch: distgraph.c (distributed
# graph topologies with reorder on and off, where Open MPI's treematch
# component creates communicators) on 4 ranks, libmpiwatch preloaded, run
# MW_DISTGRAPH_RUNS times in a row (default 50 on Open MPI, 10 on MPICH:
# the hang was Open MPI's, and MPICH's 4 ranks spin on 2 cores, 4 s a run),
# each under a 60 s limit;
# every run must end with status 0 and the program's own last line. A
# report is written each time (communicator creation and free are profiled).
# With the private communicator made in MPI_Init, as it was, about a third of
# the runs hung on Open MPI 4.1.4 (all ranks in ompi_comm_nextcid); it is now
# made at MPI_Finalize (core/state.h, mw_private_comm).
name=distgraph
. "$(dirname "$0")/../lib/harness.sh"

NP=4 RUNS=10
[ "$MPI_FLAVOR" = openmpi ] && RUNS=50
RUNS=${MW_DISTGRAPH_RUNS:-$RUNS}
build "$rt_dir/distgraph.c" "$work/distgraph" plain
export MW_TIMEOUT=${MW_DISTGRAPH_TIMEOUT:-60}
ok=0
for i in $(seq 1 "$RUNS"); do
    dir="$work/run$i"
    mkdir -p "$dir/out"
    run "$dir" "$NP" preload MPIWATCH_OUTDIR="$dir/out" -- "$work/distgraph"
    if [ "$(rc_of "$dir")" -ne 0 ] || ! grep -q "^distgraph: done on $NP ranks$" "$dir/stdout"; then
        fail "distgraph run $i of $RUNS" "$(describe_rc "$(rc_of "$dir")") after $ok good runs" \
            "$dir/stdout" "$dir/stderr"
        finish
    fi
    if [ -z "$(reports "$dir/out" 'mpiwatch-*.json')" ]; then
        fail "distgraph run $i of $RUNS: report" "no report" "$dir/stderr"
        finish
    fi
    ok=$((ok + 1))
    rm -rf "$dir"
done
pass "distgraph: $RUNS runs in a row on $NP ranks, each finished with its report"
finish
