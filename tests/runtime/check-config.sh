#!/usr/bin/env bash
# Configuration: MPIWATCH_LEVEL, MPIWATCH_TIMER and MPIWATCH_FORMATS, and
# MPI_Pcontrol, with pcontrol.c linked with libmpiwatch on 2 ranks.
#
# - an invalid value (LEVEL=banana, TIMER=bogus, FORMATS=xml) gives exactly one
#   mpiwatch line on the job's stderr (rank 0's), naming the variable and the
#   value; the run succeeds and the report uses the default;
# - TIMER=clock_gettime and TIMER=tsc choose the report's "timer";
# - FORMATS=json, text and none write only those reports;
# - LEVEL=0 counts nothing before MPI_Pcontrol(1); MPI_Pcontrol(0)/(1) mid-run
#   leave exactly the calls made while profiling was on (an MPI_Pcontrol is
#   counted when profiling is on as it is entered: templates/wrapper/pcontrol.c.j2).
# Every run must print what the bare program prints and exit 0.
name=config
. "$(dirname "$0")/../lib/harness.sh"

NP=2
build "$rt_dir/pcontrol.c" "$work/pcontrol-bare" plain
build "$rt_dir/pcontrol.c" "$work/pcontrol" linked

for mode in level toggle; do
    run "$work/bare-$mode" "$NP" bare -- "$work/pcontrol-bare" "$mode"
    rc=$(rc_of "$work/bare-$mode")
    if [ "$rc" -ne 0 ]; then
        fail "bare pcontrol $mode" "the program fails without mpiwatch: $(describe_rc "$rc")" \
            "$work/bare-$mode/stdout" "$work/bare-$mode/stderr"
        finish
    fi
done

# cfg CASE MODE [VAR=VALUE ...]: run pcontrol MODE linked, reports into
# $work/CASE/out; succeeds (0) if the run exited 0 and printed what the bare
# run printed, else fails CASE and returns 1.
cfg() {
    local case=$1 mode=$2 dir="$work/$1"
    shift 2
    mkdir -p "$dir/out"
    run "$dir" "$NP" linked MPIWATCH_OUTDIR="$dir/out" "$@" -- "$work/pcontrol" "$mode"
    local rc
    rc=$(rc_of "$dir")
    if [ "$rc" -ne 0 ]; then
        fail "$case" "the run failed: $(describe_rc "$rc")" "$dir/stdout" "$dir/stderr"
        return 1
    fi
    if ! cmp -s "$dir/stdout" "$work/bare-$mode/stdout"; then
        fail "$case" "the output differs from the bare run's" "$dir/stdout" "$work/bare-$mode/stdout"
        return 1
    fi
    return 0
}

# one_warning CASE VAR VALUE: the job's stderr has exactly one mpiwatch line,
# and it names VAR and 'VALUE'.
one_warning() {
    local case=$1 var=$2 value=$3 err="$work/$1/stderr" lines
    lines=$(grep -c 'mpiwatch:' "$err" || true)
    if [ "$lines" -ne 1 ]; then
        fail "$case: one warning" "$lines mpiwatch lines on stderr, expected 1 (rank 0's)" "$err"
    elif ! grep 'mpiwatch:' "$err" | grep -q -- "$var" || ! grep 'mpiwatch:' "$err" | grep -q -- "'$value'"; then
        fail "$case: one warning" "the warning does not name $var and '$value'" "$err"
    else
        pass "$case: one warning"
    fi
}

# no_warning CASE: no mpiwatch line on the job's stderr.
no_warning() {
    if grep -q 'mpiwatch:' "$work/$1/stderr"; then
        fail "$1: no warning" "mpiwatch printed on stderr" "$work/$1/stderr"
    else
        pass "$1: no warning"
    fi
}

# json_is CASE KEY... = VALUE: the single JSON report's value at KEY... is VALUE.
json_is() {
    local case=$1 file got
    shift
    local keys=()
    while [ "$1" != "=" ]; do keys+=("$1"); shift; done
    local want=$2
    file=$(reports "$work/$case/out" 'mpiwatch-*.json')
    if [ "$(printf '%s\n' "$file" | grep -c .)" -ne 1 ]; then
        fail "$case: ${keys[*]}" "expected one JSON report, found: ${file:-none}"
        return
    fi
    if ! got=$(json_get "$work/$case/out/$file" "${keys[@]}"); then
        fail "$case: ${keys[*]}" "$got"
    elif [ "$got" = "$want" ]; then
        pass "$case: ${keys[*]} is $want"
    else
        fail "$case: ${keys[*]}" "the report has '$got', expected '$want'"
    fi
}

# files_are CASE EXTENSIONS: the report directory holds exactly one report
# per listed extension ("json txt", "json", "txt" or ""), and nothing else.
files_are() {
    local case=$1 want=$2 out="$work/$1/out" got ext names
    names=$(cd "$out" && ls -A)
    got=""
    for ext in json txt html; do
        if [ "$(reports "$out" "mpiwatch-*.$ext" | grep -c .)" -eq 1 ]; then
            got="$got $ext"
        fi
    done
    got=${got# }
    local count
    count=$(printf '%s' "$names" | grep -c . || true)
    if [ "$got" = "$want" ] && [ "$count" -eq "$(echo $want | wc -w)" ]; then
        pass "$case: reports written: ${want:-none}"
    else
        fail "$case: reports written" "expected ${want:-no report}, the directory holds: $(echo $names)"
    fi
}

# ---------------------------------------------------------------- invalid values
if cfg level-banana level MPIWATCH_LEVEL=banana; then
    one_warning level-banana MPIWATCH_LEVEL banana
    files_are level-banana "json txt"
    json_is level-banana config level = 1
    check_counts "level-banana: counts as with level 1" "$rt_dir/level.expect" "$NP" "$work/level-banana/out"
fi
if cfg timer-bogus level MPIWATCH_TIMER=bogus; then
    one_warning timer-bogus MPIWATCH_TIMER bogus
    files_are timer-bogus "json txt"
    json_is timer-bogus config timer = auto
    check_counts "timer-bogus: counts" "$rt_dir/level.expect" "$NP" "$work/timer-bogus/out"
fi
if cfg formats-xml level MPIWATCH_FORMATS=xml; then
    one_warning formats-xml MPIWATCH_FORMATS xml
    files_are formats-xml "json txt"
fi
if cfg formats-json-xml level MPIWATCH_FORMATS=json,xml; then
    one_warning formats-json-xml MPIWATCH_FORMATS json,xml
    files_are formats-json-xml "json txt"
fi
for depth in 0 9 two; do
    if cfg "callsite-depth-$depth" level MPIWATCH_CALLSITE_DEPTH="$depth"; then
        one_warning "callsite-depth-$depth" MPIWATCH_CALLSITE_DEPTH "$depth"
        json_is "callsite-depth-$depth" config callsite_depth = 1
        check_counts "callsite-depth-$depth: counts" "$rt_dir/level.expect" "$NP" \
            "$work/callsite-depth-$depth/out"
    fi
done
if cfg callsite-depth-3 level MPIWATCH_CALLSITE_DEPTH=3; then
    no_warning callsite-depth-3
    json_is callsite-depth-3 config callsite_depth = 3
    check_counts "callsite-depth-3: counts as at depth 1" "$rt_dir/level.expect" "$NP" \
        "$work/callsite-depth-3/out"
fi

# ---------------------------------------------------------------- timer
if cfg timer-clock_gettime level MPIWATCH_TIMER=clock_gettime; then
    no_warning timer-clock_gettime
    json_is timer-clock_gettime timer = "clock_gettime(CLOCK_MONOTONIC)"
    json_is timer-clock_gettime config timer = clock_gettime
fi
case "$(uname -m)" in
    x86_64|i?86)
        if cfg timer-tsc level MPIWATCH_TIMER=tsc; then
            no_warning timer-tsc
            file=$(reports "$work/timer-tsc/out" 'mpiwatch-*.json' | head -n 1)
            timer=$(json_get "$work/timer-tsc/out/$file" timer)
            case "$timer" in
                tsc*) pass "timer-tsc: timer starts with tsc ($timer)" ;;
                *) fail "timer-tsc: timer" "the report's timer is '$timer', expected 'tsc...'" ;;
            esac
        fi ;;
    *) skip "timer-tsc" "no TSC on $(uname -m)" ;;
esac

# ---------------------------------------------------------------- formats
for formats in json:json text:txt none: text,json:"json txt" html,text:"txt html"; do
    value=${formats%%:*} want=${formats#*:}
    if cfg "formats-$value" level MPIWATCH_FORMATS="$value"; then
        no_warning "formats-$value"
        files_are "formats-$value" "$want"
    fi
done

# ---------------------------------------------------------------- level and Pcontrol
if cfg level-1 level MPIWATCH_LEVEL=1; then
    check_counts "level-1: every call counted" "$rt_dir/level.expect" "$NP" "$work/level-1/out"
fi
if cfg level-0 level MPIWATCH_LEVEL=0; then
    no_warning level-0
    json_is level-0 config level = 0
    check_counts "level-0: only the calls after MPI_Pcontrol(1)" "$rt_dir/level0.expect" "$NP" \
        "$work/level-0/out"
fi
if cfg toggle toggle; then
    check_counts "toggle: only the calls made while on" "$rt_dir/toggle.expect" "$NP" "$work/toggle/out"
fi
if cfg toggle-level-0 toggle MPIWATCH_LEVEL=0; then
    check_counts "toggle-level-0: only the calls made while on" "$rt_dir/toggle0.expect" "$NP" \
        "$work/toggle-level-0/out"
fi

finish
