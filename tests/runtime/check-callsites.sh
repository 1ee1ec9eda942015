#!/usr/bin/env bash
# Call sites (docs/report-format.md): a program built -g as a PIE, with
# MPI_Send called from two functions in two source files and from a shared
# library, run on 4 ranks with ASLR: each of the three sites is in the report
# once, with its file, line and function, and its calls and bytes summed
# over the ranks exactly; the text report lists them. In C (preloaded and
# linked) and in Fortran (use mpi; both libraries preloaded). With
# MPIWATCH_CALLSITE_DEPTH=2, one site called from two places is two sites.
name=callsites
. "$(dirname "$0")/../lib/harness.sh"

NP=4
src="$rt_dir"
if ! $MPICC -g -O1 -fPIC -shared -o "$work/libcsite.so" "$src/callsites_lib.c" >"$work/lib.log" 2>&1 ||
   ! $MPICC -g -O1 -fPIE -pie -o "$work/callsites" "$src/callsites_main.c" "$src/callsites_util.c" \
        -L"$work" -lcsite "-Wl,-rpath,$work" >"$work/build.log" 2>&1; then
    fail "build" "$MPICC could not build the call-site program" "$work/lib.log" "$work/build.log"
    finish
fi
echo "# ASLR (kernel.randomize_va_space): $(cat /proc/sys/kernel/randomize_va_space 2>/dev/null || echo '?')"

# expect FILE FUNCTION TAG CALLS BYTES: the JSON report has one MPI_Send
# site at FILE's line marked "SITE TAG", in FUNCTION, with these sums (the
# same for the C and the Fortran programs).
expect() {
    local file=$1 function=$2 tag=$3 calls=$4 bytes=$5 ranges=$6 line got
    line=$(grep -n "SITE $tag\( \*/\)\?\$" "$src/$file" | cut -d: -f1)
    got=$("$PYTHON" - "$json" "$file" "$line" <<'PY'
import json, sys
report, file, line = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
hits = [s for s in report["callsites"]["sites"]
        if s["function"] == "MPI_Send" and s["file"].endswith("/" + file) and s["line"] == line]
# A Fortran subroutine's symbol carries the compiler's trailing underscore.
print(len(hits), *(f"{h['caller'].rstrip('_')} {h['calls']} {h['bytes_sent']} {h['ranks']}"
                   f" {json.dumps(h['size_ranges'], separators=(',', ':'))}" for h in hits))
PY
)
    if [ "$got" = "1 $function $calls $bytes $NP $ranges" ]; then
        pass "$mode: $file:$line ($function): once, $calls calls, $bytes bytes over $NP ranks, sizes $ranges"
    else
        fail "$mode: $file:$line ($function)" "expected '1 $function $calls $bytes $NP $ranges' (sites, caller, calls, bytes, ranks, size ranges), got '$got'" "$text"
    fi
}

# run_reports MODE: the run in $work/MODE succeeded and wrote its report:
# sets json and text to its two files; else fails MODE and returns 1.
run_reports() {
    local report
    report=$(reports "$work/$1/out" 'mpiwatch-*.json')
    if [ "$(rc_of "$work/$1")" -ne 0 ] || [ -z "$report" ]; then
        fail "$1: run" "failed or wrote no report ($(describe_rc "$(rc_of "$work/$1")"))" \
            "$work/$1/stderr"
        return 1
    fi
    json="$work/$1/out/$report"
    text="$work/$1/out/${report%.json}.txt"
}

# check_run MODE EXT: check the report of the run in $work/MODE, whose
# sources are callsites_*.EXT.
check_run() {
    local mode=$1 ext=$2 sends
    run_reports "$mode" || return
    expect "callsites_main.$ext" main_send main_send $((5 * NP)) $((5 * NP * 8 * 8)) '[[64,128]]'
    expect "callsites_util.$ext" util_send util_send $((7 * NP)) $((7 * NP * 16 * 8)) '[[128,256]]'
    expect "callsites_lib.$ext" lib_send lib_send $((6 * NP)) $((6 * NP * 32 * 8)) '[[256,512]]'
    if [ "$ext" = c ]; then
        sends=$(grep -A8 '^Message sizes by call site' "$text" | grep -c \
            -e '^  MPI_Send .*callsites_main\.c:[0-9]* (main_send) .* 64 B  \[64 B, 128 B)$' \
            -e '^  MPI_Send .*callsites_util\.c:[0-9]* (util_send) .* 128 B  \[128 B, 256 B)$' \
            -e '^  MPI_Send .*callsites_lib\.c:[0-9]* (lib_send) .* 256 B  \[256 B, 512 B)$' || true)
        if [ "$sends" = 3 ]; then
            pass "$mode: the text report's message sizes by call site: mean and range of each"
        else
            fail "$mode: message sizes by call site" "expected 3 lines, found $sends" "$text"
        fi
    fi
    sends=$(sed -n '/^Call sites by time/,/^$/p' "$text" |
        grep -c "^  MPI_Send .*callsites_[a-z]*\.$ext:[0-9]* (" || true)
    if [ "$sends" = 3 ]; then
        pass "$mode: the text report lists the three MPI_Send sites with file:line (function)"
    else
        fail "$mode: text report" "expected 3 MPI_Send site lines, found $sends" "$text"
    fi
}

mode=C-preload
mkdir -p "$work/$mode/out"
run "$work/$mode" "$NP" preload MPIWATCH_OUTDIR="$work/$mode/out" -- "$work/callsites"
check_run "$mode" c

mode=C-linked
mkdir -p "$work/$mode/out"
if $MPICC -g -O1 -fPIE -pie -o "$work/callsites-linked" "$src/callsites_main.c" \
        "$src/callsites_util.c" -L"$work" -lcsite "-Wl,-rpath,$work" -L"$libdir" -lmpiwatch \
        "-Wl,-rpath,$libdir" >"$work/build-linked.log" 2>&1; then
    run "$work/$mode" "$NP" linked MPIWATCH_OUTDIR="$work/$mode/out" -- "$work/callsites-linked"
    check_run "$mode" c
else
    fail "$mode: build" "could not link with libmpiwatch" "$work/build-linked.log"
fi

# MPIWATCH_CALLSITE_DEPTH=2: the library's one send site becomes two, one
# per line of main that calls the library, each with its share of calls.
mode=C-depth2
mkdir -p "$work/$mode/out"
run "$work/$mode" "$NP" preload MPIWATCH_OUTDIR="$work/$mode/out" MPIWATCH_CALLSITE_DEPTH=2 \
    -- "$work/callsites"
if run_reports "$mode"; then
    site=$(grep -n "SITE lib_send" "$src/callsites_lib.c" | cut -d: -f1)
    first=$(grep -n "CALLER lib_first" "$src/callsites_main.c" | cut -d: -f1)
    second=$(grep -n "CALLER lib_second" "$src/callsites_main.c" | cut -d: -f1)
    got=$("$PYTHON" - "$json" "$site" <<'PY'
import json, sys
report, line = json.load(open(sys.argv[1])), int(sys.argv[2])
hits = sorted((s["stack"][0]["line"], s["stack"][0]["caller"], s["calls"], s["bytes_sent"])
              for s in report["callsites"]["sites"]
              if s["function"] == "MPI_Send" and s["file"].endswith("/callsites_lib.c")
              and s["line"] == line and len(s.get("stack", [])) == 1)
print(" ".join(f"{l}:{c}:{n}:{b}" for l, c, n, b in hits))
PY
)
    want="$first:main:$((3 * NP)):$((3 * NP * 32 * 8)) $second:main:$((3 * NP)):$((3 * NP * 32 * 8))"
    if [ "$got" = "$want" ]; then
        pass "$mode: callsites_lib.c:$site is two sites, called from main at lines $first and $second, $((3 * NP)) calls each"
    else
        fail "$mode: two stacks" "expected '$want' (caller line:function:calls:bytes), got '$got'" "$json"
    fi
    if grep -q "^  MPI_Send .*callsites_lib\.c:$site (lib_send) < main (callsites_main\.c:$first)" "$text"; then
        pass "$mode: the text report shows the stack as 'site < caller (file:line)'"
    else
        fail "$mode: text stack" "no 'callsites_lib.c:$site (lib_send) < main (callsites_main.c:$first)' line" "$text"
    fi
fi

mode=Fortran-preload
if [ -z "${MPIFC:-}" ] || ! command -v "${MPIFC%% *}" >/dev/null 2>&1; then
    skip "$mode" "no MPI Fortran compiler (MPIFC)"
elif [ ! -e "$libdir/libmpiwatch_f.so" ]; then
    skip "$mode" "libmpiwatch_f.so was not built"
elif ! (cd "$work" && $MPIFC -g -O1 -fPIC -shared -o "$work/libfsite.so" "$src/callsites_lib.f90") \
        >"$work/flib.log" 2>&1 ||
     ! (cd "$work" && $MPIFC -g -O1 -fPIE -pie -o "$work/fcallsites" "$src/callsites_main.f90" \
        "$src/callsites_util.f90" -L"$work" -lfsite "-Wl,-rpath,$work") >"$work/fbuild.log" 2>&1; then
    fail "$mode: build" "$MPIFC could not build the Fortran call-site program" "$work/flib.log" \
        "$work/fbuild.log"
else
    mkdir -p "$work/$mode/out"
    run "$work/$mode" "$NP" bare MPIWATCH_OUTDIR="$work/$mode/out" LD_BIND_NOW=1 \
        LD_PRELOAD="$LIBMPIWATCH:$libdir/libmpiwatch_f.so" -- "$work/fcallsites"
    check_run "$mode" f90
fi
finish
