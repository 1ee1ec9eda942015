#!/usr/bin/env bash
# The timeline page (docs/wait-states.md, "The timeline"): tests/trace/delays.c
# late-sender on 4 ranks, traced (MPIWATCH_TRACE=1; rank 0 sleeps D ms, 20 or
# MW_WAIT_DELAY_MS, before each of its 10 sends), then
# `mpiwatch --trace DIR --html OUT --exe PROGRAM`, opened in headless
# Chromium over the DevTools protocol (tests/client/cdp_page.py), the drawn
# model read from window.mwTimeline (tests/trace/timeline_check.py):
# - the page loads nothing (no src or href, a Content-Security-Policy of
#   default-src 'none') and runs without a script error;
# - it draws 4 rows, one line per message --analyze --json matched, and the
#   waiting spans at the pixels of their times, in their ranks' rows, summing
#   by rank and by pattern to --analyze --json's rank_waiting and patterns;
#   its table has --analyze --json's causes;
# - a click on the table's first row zooms the view onto a wait state of
#   that cause; a wheel turn zooms around the pointer, a drag pans;
# - non-blocking (tests/trace/nonblocking.c: MPI_Irecv, one from
#   MPI_ANY_SOURCE, and MPI_Isend, completed by waits and tests): --analyze
#   --json matches all its messages, and the page draws a line for each;
# - --ranks 0-1: 2 rows, and the page says 2 ranks were left out;
#   --window 0:0.05: calls left out, said;
# - a trace in a folder whose name is markup (<img src=x onerror=...>): the
#   page shows the name as text, and no such element exists;
# - bad --ranks and --window values are usage errors naming them (status
#   2), write no page; --ranks naming no rank of the trace, or a window
#   holding no call: status 1, no page.
# - the HTML report written at MPI_Finalize (MPIWATCH_FORMATS=json,html):
#   its timeline draws 4 rows, the messages and the waiting spans where the
#   report's section says (by rank and pattern); a click on the section's
#   first row zooms onto that cause's wait state; no part file is left
#   beside it; with MPIWATCH_TIMELINE_RANKS=0-1 (and a bad
#   MPIWATCH_TIMELINE_WINDOW, warned once) it draws ranks 0 and 1 and says
#   2 ranks were left out; 4 ranks of 60,000 calls: at most 200,000 in the
#   page (and 99% of them), every rank cut at one time, the calls left out said;
# - the HTML report of the same run (mpiwatch --report R.json --html): its
#   section "Waiting, and what caused it" (the wait states found at
#   MPI_Finalize) lists rank 0's late send at delays.c:LINE first;
# Screenshots are kept beside this test's log: tests/trace/timeline-whole.png,
# timeline-click.png and timeline-report.png (the report's, after the click).
name=timeline
. "$(dirname "$0")/../lib/harness.sh"

NP=4
D=${MW_WAIT_DELAY_MS:-20}
check="$top_srcdir/tests/trace/timeline_check.py"
shots="$top_builddir/tests/trace"
cdp="$top_srcdir/tests/client/cdp_page.py"
need_client
chrome=$(browser)
[ -n "$chrome" ] || skip_all "$name: no Chromium (tools/install-deps.sh installs it)"
if ! $MPICC -g -O1 -no-pie -o "$work/delays" "$top_srcdir/tests/trace/delays.c" \
        >"$work/delays.log" 2>&1; then
    fail "build delays.c" "$MPICC could not build it without PIE" "$work/delays.log"
    finish
fi

dir="$work/late-sender"
run "$dir" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json,html -- "$work/delays" late-sender "$D"
if [ "$(rc_of "$dir")" -ne 0 ]; then
    fail "late sender: status" "$(describe_rc "$(rc_of "$dir")")" "$dir/stdout" "$dir/stderr"
    finish
fi
trace="$dir/cwd"
"$client" --trace "$trace" --analyze --json --exe "$work/delays" >"$work/analysis.json" \
    2>"$work/analysis.err" || fail "--analyze --json" "exit status not 0" "$work/analysis.err"

# page CASE OUT.html ARGS...: write the timeline; 1 (and a failure) if not.
page() {
    local case=$1 out=$2 t0 t1
    shift 2
    t0=$(date +%s.%N)
    if ! "$client" --trace "$trace" --html "$out" --exe "$work/delays" "$@" \
            >"$out.stdout" 2>"$out.stderr"; then
        fail "$case: --html" "exit status not 0" "$out.stderr"
        return 1
    fi
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >"$out.seconds"
}

# open_page CASE OUT.html UNTIL VALUE [ARGS]: the page in Chromium until UNTIL
# holds; VALUE's JSON in OUT.html.dom.value.json, the DOM in OUT.html.dom.
open_page() {
    local case=$1 html=$2 until=$3 value=$4
    shift 4
    if ! "$PYTHON" "$cdp" "$chrome" "file://$html" "$html.dom" --until "$until" --seconds 60 \
            --value "$value" "$@" >"$html.cdp.log" 2>&1; then
        fail "$case: Chromium" "the page did not get there: $until" "$html.cdp.log"
        return 1
    fi
    if [ -s "$html.dom.err" ] || grep -q 'data-mw-error=' "$html.dom"; then
        fail "$case: script" "the page hit a script error" "$html.dom.err"
        return 1
    fi
}

drawn='document.documentElement.getAttribute("data-mw-status") === "ok" || document.documentElement.hasAttribute("data-mw-error")'
model='({drawn: window.mwTimeline.drawn, data: window.mwTimeline.data})'
click='window.mwTimeline && (document.querySelector("#tl-waits tbody tr").click(), true)'
# a wheel turn, then a drag of 100 px to the right, at x = 600 in the canvas
gestures='(function () {
  var m = window.mwTimeline, c = document.getElementById("tl-canvas"), r = c.getBoundingClientRect();
  var at = { clientX: r.left + 600, clientY: r.top + 20, bubbles: true, cancelable: true, pointerId: 1 };
  var before = [m.view.start, m.view.end];
  c.dispatchEvent(new WheelEvent("wheel", Object.assign({ deltaY: -300 }, at)));
  var zoomed = [m.view.start, m.view.end];
  c.dispatchEvent(new PointerEvent("pointerdown", at));
  c.dispatchEvent(new PointerEvent("pointermove", Object.assign({}, at, { clientX: r.left + 700 })));
  c.dispatchEvent(new PointerEvent("pointerup", at));
  return { before: before, zoomed: zoomed, panned: [m.view.start, m.view.end], x: 600,
           width: m.drawn.width, left: m.drawn.left };
})()'

# ---------------------------------------------------------------- the whole trace
html="$work/timeline.html"
if page "whole" "$html"; then
    if grep -Eq '<[^>]+ (src|href)=' "$html" || grep -q 'url(' "$html" ||
            ! grep -q "default-src 'none'" "$html"; then
        fail "whole: self-contained" "the page refers to something outside it" "$html"
    else
        pass "whole: a self-contained page of $(wc -c <"$html") bytes in $(cat "$html.seconds") s"
    fi
    if open_page "whole" "$html" "$drawn" "$model" --screenshot "$shots/timeline-whole.png"; then
        log=$(mktemp "$work/log.XXXXXX")
        if "$PYTHON" "$check" drawn "$html.dom.value.json" "$work/analysis.json" 4 >"$log" 2>&1; then
            pass "whole: $(tail -n 1 "$log")"
        else
            fail "whole: drawn" "$(tail -n 1 "$log")" "$log"
        fi
        causes=$("$PYTHON" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["causes"]))' \
            "$work/analysis.json")
        rows=$(grep -o '<tr data-cause="[0-9]*"' "$html.dom" | wc -l)
        if [ "$causes" -gt 0 ] && [ "$rows" -eq "$causes" ] &&
                grep -q 'Waiting, and what caused it' "$html.dom"; then
            pass "whole: the table has --analyze --json's $causes causes"
        else
            fail "whole: table" "$rows rows, --analyze --json has $causes causes" "$html.dom"
        fi
    fi
    if open_page "gestures" "$html" "$drawn" "$gestures"; then
        log=$(mktemp "$work/log.XXXXXX")
        if "$PYTHON" "$check" gestures "$html.dom.value.json" >"$log" 2>&1; then
            pass "gestures: $(tail -n 1 "$log")"
        else
            fail "gestures" "$(tail -n 1 "$log")" "$log"
        fi
    fi
    if open_page "click" "$html" "$click" "$model" --screenshot "$shots/timeline-click.png"; then
        log=$(mktemp "$work/log.XXXXXX")
        if "$PYTHON" "$check" click "$html.dom.value.json" >"$log" 2>&1; then
            pass "click: $(tail -n 1 "$log")"
        else
            fail "click" "$(tail -n 1 "$log")" "$log"
        fi
    fi
fi

# ---------------------------------------------------------------- non-blocking
# tests/trace/nonblocking.c: a ring of MPI_Irecv (one from MPI_ANY_SOURCE)
# and MPI_Isend completed by MPI_Waitall, MPI_Waitany, MPI_Test and
# MPI_Wait, 20 steps of 2 messages a rank: all 160 matched, each drawn.
nb="$work/nonblocking"
if ! $MPICC -g -O1 -o "$nb" "$top_srcdir/tests/trace/nonblocking.c" >"$nb.log" 2>&1; then
    fail "build nonblocking.c" "$MPICC could not build it" "$nb.log"
else
    run "$nb.run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json -- "$nb"
    html="$work/nonblocking.html"
    log=$(mktemp "$work/log.XXXXXX")
    if [ "$(rc_of "$nb.run")" -ne 0 ]; then
        fail "non-blocking: status" "$(describe_rc "$(rc_of "$nb.run")")" "$nb.run/stderr"
    elif ! "$client" --trace "$nb.run/cwd" --analyze --json >"$nb.json" 2>"$log" ||
            ! "$PYTHON" -c 'import json, sys
a = json.load(open(sys.argv[1]))
print(a["messages"], "messages,", a["unmatched"], "unmatched,", a["unordered_receivers"], "unordered")
sys.exit(not (a["messages"] == 20 * 2 * int(sys.argv[2]) and a["unmatched"] == 0
              and a["unordered_receivers"] == 0))' "$nb.json" "$NP" >"$log" 2>&1; then
        fail "non-blocking: matched" "$(tail -n 1 "$log") (want $((40 * NP)), 0, 0)" "$log"
    elif ! "$client" --trace "$nb.run/cwd" --html "$html" >"$html.stdout" 2>"$html.stderr"; then
        fail "non-blocking: --html" "exit status not 0" "$html.stderr"
    elif open_page "non-blocking" "$html" "$drawn" "$model"; then
        if "$PYTHON" "$check" drawn "$html.dom.value.json" "$nb.json" "$NP" >"$log" 2>&1; then
            pass "non-blocking: $(tail -n 1 "$log")"
        else
            fail "non-blocking: drawn" "$(tail -n 1 "$log")" "$log"
        fi
    fi
fi

# ---------------------------------------------------------------- --ranks 0-1
html="$work/ranks.html"
if page "--ranks 0-1" "$html" --ranks 0-1 && open_page "--ranks 0-1" "$html" "$drawn" "$model"; then
    log=$(mktemp "$work/log.XXXXXX")
    if "$PYTHON" "$check" ranks "$html.dom.value.json" 0,1 >"$log" 2>&1 &&
            grep -q 'Left out of this page: 2 ranks (--ranks)' "$html.dom"; then
        pass "--ranks 0-1: $(tail -n 1 "$log"), and the page says 2 ranks were left out"
    else
        fail "--ranks 0-1" "$(tail -n 1 "$log"), or no 'Left out of this page: 2 ranks'" "$log" "$html.dom"
    fi
fi

# ---------------------------------------------------------------- --window
html="$work/window.html"
if page "--window 0:0.05" "$html" --window 0:0.05 && open_page "--window" "$html" "$drawn" "$model"; then
    said=$(grep -o 'Left out of this page: [0-9]* calls' "$html.dom")
    if [ -n "$said" ]; then
        pass "--window 0:0.05: '$said'"
    else
        fail "--window 0:0.05" "the page does not say which calls it left out" "$html.dom"
    fi
fi

# ---------------------------------------------------------------- a hostile name
hostile="$work/<img src=x onerror=\"document.title='owned'\">"
mkdir -p "$hostile" && cp "$trace"/*.trace.* "$hostile"/
html="$work/hostile.html"
if "$client" --trace "$hostile" --html "$html" >"$html.stdout" 2>"$html.stderr" &&
        open_page "hostile name" "$html" "$drawn" "$model"; then
    if grep -q '<img' "$html.dom" || grep -q '<title>owned' "$html.dom" ||
            ! grep -q '&lt;img src=x' "$html.dom"; then
        fail "hostile name" "the folder's name became markup, or is not shown" "$html.dom"
    else
        pass "hostile name: a folder named <img src=x onerror=...> is shown as text, no element"
    fi
else
    fail "hostile name" "no page" "$html.stderr"
fi

# ---------------------------------------------------------------- the HTML report's section
report=$(ls "$dir"/cwd/mpiwatch-*.json | grep -v -- '-rank' | head -n 1)
line=$(awk '/^delay /{print $4}' "$dir/stdout")
first='Array.from(document.querySelectorAll("#mw-waits tbody tr:first-child td")).map(function (td) { return td.textContent; })'
if ! "$client" --report "$report" --html "$work/report.html" >"$work/report.log" 2>&1; then
    fail "report page" "mpiwatch --report --html failed" "$work/report.log"
elif open_page "report page" "$work/report.html" "$drawn" "$first" &&
        "$PYTHON" - "$work/report.html.dom.value.json" "delays.c:$line" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))
print(row)
sys.exit(not (len(row) == 9 and row[3] == "0" and row[4] == "late_sender"
              and row[5].startswith(sys.argv[2] + " ")))
PY
then
    pass "report page: its section lists rank 0's late_sender at delays.c:$line first"
else
    fail "report page" "the section's first row is not rank 0's late send at delays.c:$line" \
        "$work/report.html.dom.value.json"
fi

# ---------------------------------------------------------------- the timeline in the HTML report
# The report's section "Waiting, and what caused it" (its JSON) is what the
# timeline's spans must sum to: the analysis at MPI_Finalize, not the client's.
waits_of() {   # waits_of REPORT.json OUT.json: the report's section
    "$PYTHON" -c 'import json, sys
r = json.load(open(sys.argv[1]))
w = r["waits"]
w["ranks"] = r["ranks"]
json.dump(w, open(sys.argv[2], "w"))' "$1" "$2"
}
report_click='window.mwTimeline && (document.querySelector("#mw-waits tbody tr").click(), true)'
page_html=$(ls "$dir"/cwd/mpiwatch-*.html 2>/dev/null | head -n 1)
if [ -z "$page_html" ]; then
    fail "report timeline" "no HTML report written at MPI_Finalize" "$dir/stderr"
elif ! waits_of "$report" "$work/report-waits.json" 2>"$work/report-waits.err"; then
    fail "report timeline" "the JSON report has no section of wait states" "$work/report-waits.err"
else
    left=$(ls -A "$dir/cwd" | grep -c '^\.mpiwatch-timeline' || true)
    if open_page "report timeline" "$page_html" "$drawn" "$model"; then
        log=$(mktemp "$work/log.XXXXXX")
        if "$PYTHON" "$check" drawn "$page_html.dom.value.json" "$work/report-waits.json" 4 \
                >"$log" 2>&1 && [ "$left" -eq 0 ]; then
            pass "report timeline: $(tail -n 1 "$log"); no part file left"
        else
            fail "report timeline: drawn" "$(tail -n 1 "$log"); part files left: $left" "$log"
        fi
    fi
    if open_page "report timeline: click" "$page_html" "$report_click" "$model" \
            --screenshot "$shots/timeline-report.png"; then
        log=$(mktemp "$work/log.XXXXXX")
        if "$PYTHON" "$check" click "$page_html.dom.value.json" >"$log" 2>&1; then
            pass "report timeline: click: $(tail -n 1 "$log")"
        else
            fail "report timeline: click" "$(tail -n 1 "$log")" "$log"
        fi
    fi
fi
part="$work/report-part"
run "$part" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=html MPIWATCH_TIMELINE_RANKS=0-1 \
    MPIWATCH_TIMELINE_WINDOW=soon -- "$work/delays" late-sender 5
part_html=$(ls "$part"/cwd/mpiwatch-*.html 2>/dev/null | head -n 1)
warned=$(grep -c "MPIWATCH_TIMELINE_WINDOW='soon'" "$part/stderr" || true)
if [ "$(rc_of "$part")" -ne 0 ] || [ -z "$part_html" ]; then
    fail "report timeline: MPIWATCH_TIMELINE_RANKS" "$(describe_rc "$(rc_of "$part")"), or no page" \
        "$part/stderr"
elif open_page "report timeline: MPIWATCH_TIMELINE_RANKS" "$part_html" "$drawn" "$model"; then
    log=$(mktemp "$work/log.XXXXXX")
    if "$PYTHON" "$check" ranks "$part_html.dom.value.json" 0,1 >"$log" 2>&1 &&
            grep -q 'Left out of this page: 2 ranks (MPIWATCH_TIMELINE_RANKS)' "$part_html.dom" &&
            [ "$warned" -eq 1 ]; then
        pass "report timeline: MPIWATCH_TIMELINE_RANKS=0-1: $(tail -n 1 "$log"), 2 ranks said left out; MPIWATCH_TIMELINE_WINDOW=soon warned once"
    else
        fail "report timeline: MPIWATCH_TIMELINE_RANKS" "$(tail -n 1 "$log"), or no 'Left out of this page: 2 ranks', or warned $warned times" "$log" "$part/stderr"
    fi
fi

# At most MW_TIMELINE_PAGE_CALLS (200,000) calls in the report's page: 4 ranks
# of 60,000 MPI_Comm_rank calls each (bench/trace_bounds.c), the page's data
# read from the page: every rank cut at one time, what was left out said.
many="$work/many"
if ! $MPICC -O1 -o "$many" "$top_srcdir/bench/trace_bounds.c" >"$many.log" 2>&1; then
    fail "build trace_bounds.c" "$MPICC could not build it" "$many.log"
else
    run "$many.run" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=html -- "$many" 60000 0
    many_html=$(ls "$many.run"/cwd/mpiwatch-*.html 2>/dev/null | head -n 1)
    log=$(mktemp "$work/log.XXXXXX")
    if [ "$(rc_of "$many.run")" -ne 0 ] || [ -z "$many_html" ]; then
        fail "report timeline: 240,000 calls" "$(describe_rc "$(rc_of "$many.run")"), or no page" \
            "$many.run/stderr"
    elif "$PYTHON" - "$many_html" "$NP" >"$log" 2>&1 <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
data = re.search(r'<script id="mw-data" type="application/json">(.*?)</script>', page, re.S)
t = json.loads(data.group(1))["timeline"]
lo, end = t["left_out"], t["window"][1]
shown = [len(r["calls"]) // 3 for r in t["rows"]]
entries = [r["calls"][i] for r in t["rows"] for i in range(1, len(r["calls"]), 3)]
print(f"{sum(shown)} calls shown {shown}, {lo['calls']} left out, cut at {end:.6f} s")
sys.exit(not (len(shown) == int(sys.argv[2]) and sum(shown) <= lo["limit"] == 200000
              and lo["limited"] is True and lo["calls"] > 0
              and sum(shown) + lo["calls"] >= 4 * 60000 and max(entries) < end
              and sum(shown) >= 0.99 * lo["limit"]))
PY
    then
        pass "report timeline: 240,000 calls: $(tail -n 1 "$log")"
    else
        fail "report timeline: 240,000 calls" "$(tail -n 1 "$log")" "$log"
    fi
fi

# ---------------------------------------------------------------- bad values
usage() {   # usage MESSAGE STATUS ARGS...: the client says MESSAGE, exits STATUS, writes no page
    local msg=$1 want=$2 rc=0 out
    shift 2
    rm -f "$work/bad.html"
    out=$("$client" --trace "$trace" --html "$work/bad.html" "$@" 2>&1) || rc=$?
    if [ "$rc" -eq "$want" ] && [[ "$out" == *"$msg"* ]] && [ ! -e "$work/bad.html" ]; then
        return 0
    fi
    echo "$*: status $rc, said: $out (expected status $want and: $msg; no page)"
    return 1
}
bad=0
usage "--window 2:1: give START:END" 2 --window 2:1 >>"$work/bad.log" || bad=1
usage "--window abc: give START:END" 2 --window abc >>"$work/bad.log" || bad=1
usage "--window 1:x: give START:END" 2 --window 1:x >>"$work/bad.log" || bad=1
usage "--ranks 3-1: give ranks and ranges" 2 --ranks 3-1 >>"$work/bad.log" || bad=1
usage "--ranks 0,,1: give ranks and ranges" 2 --ranks 0,,1 >>"$work/bad.log" || bad=1
usage "the trace has ranks 0 to 3, none of them chosen" 1 --ranks 7-9 >>"$work/bad.log" || bad=1
usage "no call of the chosen ranks is between 100 and 200 s" 1 --window 100:200 >>"$work/bad.log" || bad=1
out=$("$client" --ranks 0 --trace "$trace" --analyze 2>&1) && bad=1
[[ "$out" == *"--ranks and --window go with --trace DIR --html"* ]] || { echo "--ranks with --analyze: $out" >>"$work/bad.log"; bad=1; }
if [ "$bad" -eq 0 ]; then
    pass "bad values: --window 2:1, abc, 1:x and --ranks 3-1, 0,,1 are usage errors naming them; --ranks 7-9 of 4 ranks and --window 100:200 past the end: status 1, no page; --ranks with --analyze: usage error"
else
    fail "bad values" "see below" "$work/bad.log"
fi

finish
