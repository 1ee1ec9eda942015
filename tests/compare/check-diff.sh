#!/usr/bin/env bash
# mpiwatch --diff, --fail-if and --hatchet on real runs (docs/python.md), with
# tests/compare/diff_prog.c on 4 ranks, built -g from one path:
#
# - the reports' header: the program's build-id (the ELF note readelf shows),
#   1 node, the MPIWATCH_LABEL given; a label with a control character gets
#   one warning and no label;
# - "changed" (-DSCALE=4 -DREPEAT=2): --diff --json names exactly the
#   exchange site and MPI_Sendrecv (bytes x4) and the norm site and
#   MPI_Allreduce (calls x2) as the changes of calls and bytes, and they come
#   first; the text says so; the JSON is what mpiwatch.diff() gives in Python;
# - the same build run twice: no change of calls or bytes, every entry on
#   both sides (the time of each function on each side is printed: whether
#   it stays under the noise bounds depends on the machine's load, so it is
#   a note, not a verdict);
# - "moved" (a line inserted above every MPI call): every site is matched,
#   each of diff_prog.c's at its moved line, and nothing changed;
# - --fail-if through the client: 3 when crossed, 0 just below, on both
#   sides of a calls and a bytes threshold, 2 naming a bad expression;
# - --html: one page listing the changes, with no src or href, in which
#   headless Chromium draws both runs' viewer pages (iframes) without error;
# - --report R.json --hatchet OUT: a literal graph of the report's functions.
name=diff
. "$(dirname "$0")/../lib/harness.sh"
need_client

NP=4
src=$work/src bin=$work/bin
mkdir -p "$src" "$bin"
cp "$top_srcdir/tests/compare/diff_prog.c" "$src/diff_prog.c"
# compile OUT FLAGS...: from $src/diff_prog.c (one path, so file names match).
compile() {
    local out=$1
    shift
    if ! (cd "$src" && $MPICC -g -O0 "$@" -o "$bin/$out" diff_prog.c) >"$bin/$out.log" 2>&1; then
        fail "build $out" "$MPICC could not build diff_prog.c $*" "$bin/$out.log"
        finish
    fi
}
compile base
compile changed -DSCALE=4 -DREPEAT=2
awk '/^[ \t]*MPI_[A-Z][a-z_]*\(/ { print "    /* a line inserted above every MPI call */" } { print }' \
    "$top_srcdir/tests/compare/diff_prog.c" >"$src/diff_prog.c"
compile moved
json=
# report RUN: the JSON report of run RUN (in $work/RUN/out), else fails.
report() {
    local r
    r=$(reports "$work/$1/out" 'mpiwatch-*.json')
    if [ "$(rc_of "$work/$1")" -ne 0 ] || [ -z "$r" ]; then
        fail "$1: run" "failed or wrote no report ($(describe_rc "$(rc_of "$work/$1")"))" "$work/$1/stderr"
        finish
    fi
    json=$work/$1/out/$r
}
for r in base:base base2:base changed:changed moved:moved; do
    mkdir -p "$work/${r%%:*}/out"
    run "$work/${r%%:*}" "$NP" preload MPIWATCH_OUTDIR="$work/${r%%:*}/out" \
        MPIWATCH_LABEL="run ${r%%:*}" -- "$bin/${r#*:}"
done
report base; A=$json
report base2; A2=$json
report changed; B=$json
report moved; M=$json

# --- the header
want_id=$(readelf -n "$bin/base" 2>/dev/null | sed -n 's/.*Build ID: *//p')
got=$("$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(d.get("build_id"), d.get("nodes"), d.get("label"))' "$A")
if [ -n "$want_id" ] && [ "$got" = "$want_id 1 run base" ]; then
    pass "header: build-id $want_id (readelf's), 1 node, label 'run base'"
else
    fail "header" "expected '$want_id 1 run base' (build_id nodes label), got '$got'" "$A"
fi
if "$PYTHON" "$top_srcdir/tests/lib/report_schema.py" "$A" 2>"$work/schema.err"; then
    pass "header: the report passes the schema check with build_id, nodes and label"
else
    fail "header: schema" "report_schema.py rejects it" "$work/schema.err"
fi
if grep -q "^build-id: $want_id\$" "${A%.json}.txt" && grep -q '^label: run base$' "${A%.json}.txt"; then
    pass "header: the text report has the build-id and the label"
else
    fail "header: text" "no 'build-id: $want_id' or 'label: run base' line" "${A%.json}.txt"
fi
mkdir -p "$work/badlabel/out"
run "$work/badlabel" "$NP" preload MPIWATCH_OUTDIR="$work/badlabel/out" \
    MPIWATCH_LABEL="$(printf 'bad\tlabel')" -- "$bin/base"
warned=$(grep -c 'MPIWATCH_LABEL is not printable' "$work/badlabel/stderr" || true)
label=$("$PYTHON" -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["label"]))' \
    "$work/badlabel/out/$(reports "$work/badlabel/out" 'mpiwatch-*.json')" 2>&1)
if [ "$(rc_of "$work/badlabel")" = 0 ] && [ "$warned" = 1 ] && [ "$label" = "''" ]; then
    pass "a label with a tab: one warning, no label, the run unchanged"
else
    fail "bad label" "status $(rc_of "$work/badlabel"), $warned warnings, label $label" "$work/badlabel/stderr"
fi

# --- the changed run: exactly those changes, first, with their factors
"$client" --diff "$A" "$B" --json >"$work/changed.json" 2>"$work/changed.err"
"$client" --diff "$A" "$B" >"$work/changed.txt" 2>>"$work/changed.err"
got=$("$PYTHON" - "$work/changed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def name(e):
    return e["name"] if e["kind"] != "site" else "site:" + e["name"].split(" (")[-1].rstrip(")")
counted = [e for e in d["changes"] if set(e["metrics"]) & {"calls", "bytes", "present"}]
first = d["changes"][:len(counted)]
out = []
for e in counted:
    fs = " ".join(f"{m}x{e['factors'][m]:.2f}" for m in ("calls", "bytes") if m in e["metrics"])
    out.append(f"{e['kind']}:{name(e)}:{fs}")
print("first" if first == counted else "not-first", *sorted(out))
PY
)
want="first function:MPI_Allreduce:callsx2.00 bytesx2.00 function:MPI_Sendrecv:bytesx4.00 site:site:exchange:bytesx4.00 site:site:norm:callsx2.00 bytesx2.00"
if [ "$got" = "$want" ]; then
    pass "changed: exactly the exchange site and MPI_Sendrecv (bytes x4), the norm site and MPI_Allreduce (calls x2), first"
else
    fail "changed" "expected '$want', got '$got'" "$work/changed.json" "$work/changed.err"
fi
if PYTHONPATH=$MW_PYTHONDIR "$PYTHON" -c 'import json, sys, mpiwatch
sys.exit(json.load(open(sys.argv[3])) != json.loads(mpiwatch.diff(sys.argv[1], sys.argv[2]).json()))' \
        "$A" "$B" "$work/changed.json" 2>"$work/same-code.err"; then
    pass "changed: mpiwatch --diff --json prints what mpiwatch.diff(a, b) gives in Python"
else
    fail "changed: one comparison" "the command's JSON differs from mpiwatch.diff()'s" "$work/same-code.err"
fi
if grep -q "bytes .* (x4.00) \*" "$work/changed.txt" && grep -q "calls .* (x2.00) \*" "$work/changed.txt"; then
    pass "changed: the text names the factors x4.00 and x2.00"
else
    fail "changed: text" "no 'bytes ... (x4.00) *' or 'calls ... (x2.00) *'" "$work/changed.txt"
fi
sed -n '/^Largest changes/,/^$/p' "$work/changed.txt" | sed 's/^/# /' | head -n 20

# --- the same build twice: nothing above noise
"$client" --diff "$A" "$A2" --json >"$work/same.json" 2>"$work/same.err"
got=$("$PYTHON" - "$work/same.json" 2>"$work/same.times" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["functions"]:
    t = e["change"].get("time") if e["change"] else None
    if t and e["a"]["time"]:
        print(f"# {e['name']}: time {e['a']['time'] * 1e3:.3f} -> {e['b']['time'] * 1e3:.3f} ms", file=sys.stderr)
print(f"# {len(d['changes'])} time changes above the noise bounds", file=sys.stderr)
print(sum(1 for e in d["changes"] if e["metrics"] != ["time"]),
      sum(e["side"] != "both" for e in d["functions"] + d["sites"]),
      sum(1 for e in d["functions"] + d["sites"] if e["change"] and
          (e["change"]["calls"]["delta"] or (e["change"]["bytes"] or {"delta": 0})["delta"])))
PY
)
sed 's/^# /# same build: /' "$work/same.times"
if [ "$got" = "0 0 0" ]; then
    pass "the same build twice: no change of calls or bytes, every entry on both sides"
else
    fail "same build" "expected '0 0 0' (changes not of time alone, one-sided entries, count changes), got '$got'" \
        "$work/same.json"
fi

# --- the build with moved lines: every site matched
"$client" --diff "$A" "$M" --json >"$work/moved.json" 2>"$work/moved.err"
got=$("$PYTHON" - "$work/moved.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ours = [e for e in d["sites"] if e["site"]["file"].endswith("diff_prog.c")]
print(len(d["sites"]), sum(e["side"] == "both" for e in d["sites"]),
      sum(1 for e in ours if e["moved"] and e["moved"]["b_line"] > e["moved"]["a_line"]), len(ours),
      sum(1 for e in d["changes"] if set(e["metrics"]) & {"calls", "bytes", "present"}))
PY
)
set -- $got
if [ "$#" = 5 ] && [ "$1" = "$2" ] && [ "$3" = "$4" ] && [ "$4" -ge 6 ] && [ "$5" = 0 ]; then
    pass "moved lines: all $1 sites matched, the $4 of diff_prog.c each at its moved line, no change of calls or bytes"
else
    fail "moved lines" "expected N N K K(>=6) 0 (sites, matched, moved, ours, changes), got '$got'" \
        "$work/moved.json"
fi

# --- --fail-if through the client
site_line=$(grep -n 'MPI_Sendrecv(out' "$top_srcdir/tests/compare/diff_prog.c" | cut -d: -f1)
site_file=$("$PYTHON" -c 'import json, sys
print([s["file"] for s in json.load(open(sys.argv[1]))["callsites"]["sites"] if s["function"] == "MPI_Sendrecv"][0])' "$A")
# gate EXPECTED-STATUS EXPR...: mpiwatch --diff A B --fail-if EXPR... exits so.
gate() {
    local want=$1 rc=0
    shift
    local args=()
    for e in "$@"; do args+=(--fail-if "$e"); done
    "$client" --diff "$A" "$B" "${args[@]}" >"$work/gate.out" 2>"$work/gate.err" || rc=$?
    if [ "$rc" = "$want" ]; then
        pass "--fail-if $*: status $want$(grep -m1 'fail-if' "$work/gate.err" | sed 's/^/ (/; s/$/)/')"
    else
        fail "--fail-if $*" "status $rc, expected $want" "$work/gate.err"
    fi
}
gate 3 'function:MPI_Allreduce.calls>+99%'
gate 0 'function:MPI_Allreduce.calls>+101%'
gate 3 'function_calls>1.99x'
gate 0 'function_calls>2.01x'
gate 3 "site:$site_file:$site_line.bytes>3.99x"
gate 0 "site:$site_file:$site_line.bytes>4.01x"
gate 0 'function:MPI_Bcast.calls>+0%' 'function:MPI_Bcast.calls<-0%'
gate 2 'mpi_time>+10%' 'function:MPI_Allreduce.calls>+2O%'
if grep -q "'function:MPI_Allreduce.calls>+2O%'" "$work/gate.err"; then
    pass "--fail-if: the bad expression is named"
else
    fail "--fail-if: bad expression" "not named" "$work/gate.err"
fi

# usage: a report missing, an option without --diff, an unreadable file
statuses=""
for args in "--diff $A" "--fail-if mpi_time>+10% $A $B" "--diff $A $work/none.json"; do
    rc=0
    # shellcheck disable=SC2086  # the arguments are split on purpose
    "$client" $args >/dev/null 2>>"$work/usage.err" || rc=$?
    statuses="$statuses $rc"
done
if [ "$statuses" = " 2 2 1" ] && grep -q "none.json" "$work/usage.err"; then
    pass "usage: --diff with one report 2, --fail-if without --diff 2, a missing report 1 (named)"
else
    fail "usage" "statuses$statuses, expected 2 2 1" "$work/usage.err"
fi

# --- --html: the changes and both runs' pages, side by side, in Chromium
chrome=$(browser)
if "$client" --report /dev/null --html "$work/probe.html" 2>&1 | grep -q 'built without Chart.js'; then
    skip "--html" "this build has no HTML report (no Chart.js)"
else
    rc=0
    "$client" --diff "$A" "$B" --html "$work/diff.html" -q >/dev/null 2>"$work/html.err" || rc=$?
    links=$(grep -c -E ' (src|href)="' "$work/diff.html" || true)
    n=$(grep -o 'data-mw-diff-changes="[0-9]*"' "$work/diff.html" | grep -o '[0-9]*')
    if [ "$rc" = 0 ] && [ "$links" = 0 ] && [ "${n:-0}" -ge 4 ]; then
        pass "--html: one page, $n changes listed (4 of calls or bytes), loading nothing (no src or href)"
    else
        fail "--html" "status $rc, $links src/href attributes, ${n:-no} changes (4 or more expected)" "$work/html.err"
    fi
    if [ -z "$chrome" ]; then
        skip "--html in Chromium" "no headless browser (Debian: chromium)"
    elif timeout -k 5 120 "$PYTHON" "$top_srcdir/tests/client/cdp_page.py" "$chrome" "file://$work/diff.html" \
            "$work/diff.dom" --seconds 60 --until "[...document.querySelectorAll('iframe')].filter(f =>
            f.contentDocument && f.contentDocument.documentElement.getAttribute('data-mw-status') === 'ok'
            ).length === 2" >"$work/cdp.log" 2>&1 && [ ! -s "$work/diff.dom.err" ]; then
        pass "--html in Chromium: both runs' viewer pages drew without a script error"
    else
        fail "--html in Chromium" "the two viewer pages did not both reach data-mw-status=ok" \
            "$work/cdp.log" "$work/diff.dom.err"
    fi
fi

# --- Hatchet
rc=0
"$client" --report "$A" --hatchet "$work/hatchet.json" -q 2>"$work/hatchet.err" || rc=$?
got=$("$PYTHON" - "$work/hatchet.json" "$A" <<'PY' 2>&1
import json, sys
lit, rep = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
root = lit[0]
fns = sorted(c["frame"]["name"] for c in root["children"] if c["frame"]["type"] == "function")
ok = fns == sorted(rep["functions"]) and root["frame"]["type"] == "job" and \
    root["frame"]["build_id"] == rep["build_id"] and all(set(c["metrics"]) == set(root["metrics"]) for c in root["children"])
print("ok" if ok else f"bad: {fns}")
PY
)
if [ "$rc" = 0 ] && [ "$got" = ok ]; then
    pass "--hatchet: a literal graph with the report's functions under the job, with its build-id"
else
    fail "--hatchet" "status $rc: $got" "$work/hatchet.err"
fi
finish
