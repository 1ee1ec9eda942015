#!/usr/bin/env bash
# Ranks started with different MPIWATCH_* values (mixed_env.c: the odd ranks
# set them before MPI_Init, as an MPMD launch could): the settings that make
# collective calls (lifecycle/settings_agreement.c) are turned off on every
# rank instead of hanging the job. 4 ranks, each case: status 0 within the
# time limit (a hang is 124), every rank's line, the job report written, one
# warning naming the variable; and the variable's feature is off (no trace
# file, no port file). Cases: MPIWATCH_TRACE=1 on odd ranks; the monitor
# (MPIWATCH_MONITOR=file:PORTS) on odd ranks; MPIWATCH_NODE_SIZE=2 on odd
# ranks with the monitor on all (publishing on stdout: it stays on, every
# rank with an endpoint of its own, no leaders).
name=mixed-env
. "$(dirname "$0")/../lib/harness.sh"

NP=4
export MW_TIMEOUT=${MW_MIXED_TIMEOUT:-60}
build "$rt_dir/mixed_env.c" "$work/mixed" plain

# mixed CASE VARIABLE "ODD RANKS' SETTINGS" [VAR=VALUE for all ranks...]
mixed() {
    local case=$1 variable=$2 odd=$3 dir="$work/$1" rc problems=""
    shift 3
    run "$dir" "$NP" preload MPIWATCH_OUTDIR="$dir/cwd" MPIWATCH_TRACE_DIR="$dir/cwd" "$@" \
        -- "$work/mixed" $odd
    rc=$(rc_of "$dir")
    [ "$rc" -eq 0 ] || problems="$problems $(describe_rc "$rc");"
    [ "$(grep -c '^rank [0-9]: sum right$' "$dir/stdout")" -eq "$NP" ] ||
        problems="$problems not every rank's line;"
    ls "$dir"/cwd/mpiwatch-mixed-"$NP"r-*.json >/dev/null 2>&1 || problems="$problems no job report;"
    [ "$(grep -c "$variable differs between the ranks" "$dir/stderr")" -eq 1 ] ||
        problems="$problems not one warning naming $variable;"
    if [ -n "$problems" ]; then
        fail "$case" "$problems" "$dir/stdout" "$dir/stderr"
        return 1
    fi
    pass "$case: status 0, every rank's line, the report, one warning: $(grep -o "$variable differs.*" "$dir/stderr")"
}

if mixed trace MPIWATCH_TRACE MPIWATCH_TRACE=1; then
    if ls "$work"/trace/cwd/*.trace.* >/dev/null 2>&1; then
        fail "trace: off on every rank" "trace files were written"
    else
        pass "trace: off on every rank (no trace file)"
    fi
fi
if mixed monitor MPIWATCH_MONITOR "MPIWATCH_MONITOR=file:$work/monitor/ports"; then
    [ -e "$work/monitor/ports" ] && fail "monitor: off on every rank" "a port file was written" \
        || pass "monitor: off on every rank (no port file)"
fi
if mixed node-size MPIWATCH_NODE_SIZE MPIWATCH_NODE_SIZE=2 MPIWATCH_MONITOR=stdout; then
    endpoints=$(grep -c '^mpiwatch-endpoint ' "$work/node-size/stdout")
    if [ "$endpoints" -ne "$NP" ] || grep -q '^mpiwatch-endpoint .* via ' "$work/node-size/stdout"; then
        fail "node-size: no leaders" "$endpoints endpoint lines, or ranks published as watched through a leader" \
            "$work/node-size/stdout"
    else
        pass "node-size: the monitor on without leaders ($NP endpoints of their own on stdout)"
    fi
fi
finish
