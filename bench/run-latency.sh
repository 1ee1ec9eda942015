#!/bin/bash
# How soon things happen: the latency targets that the test suite measures
# but never asserts (a loaded machine would miss them; see tests/lib/tap.sh,
# figure). Runs the suites that measure them against a build, collects
# their "# figure:" lines and judges each against its target.
set -euo pipefail

usage() {
    cat <<USAGE
usage: run-latency.sh --builddir DIR [--suite SUITE]... [--rounds R]

Runs, from the configured build DIR (its own MPI), the test suites that
measure latency figures (default: all of them), R times each (default 1),
and prints for each figure its median over the rounds, its target and
whether it meets it:

  tests/client/check-client.sh       the stuck summary (target 3 s), the
                                     deadlock cycle (1.5 s), stalled ranks
                                     lost (10 s), client side only
  tests/monitor/check-monitor-tcp.sh the slowest rank's HELLO under a
                                     flood of 50 hostile connections (2 s);
                                     a sleeping client: RSS growth (the 5 MiB of output cap and event ring)
  tests/client/check-web-live.sh     /api/state's median answer with 64
                                     ranks attached (50 ms)
  tests/client/check-web-report.sh   a 1,024-rank HTML report loaded and
                                     drawn in Chromium (3 s)
  tests/runtime/check-time-share.sh  the MPI share of a job built to have
                                     about 8%

Run it on a quiet machine: a busy one inflates every figure (which is why
the suite does not assert them).
USAGE
}

die() { echo "run-latency.sh: $*" >&2; exit 2; }

builddir="" rounds=1 suites=()
while [ $# -gt 0 ]; do
    case $1 in
        --builddir) builddir=${2:?--builddir needs a value}; shift 2 ;;
        --suite) suites+=("${2:?--suite needs a value}"); shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1' (see --help)" ;;
    esac
done
[ -n "$builddir" ] || die "give the build with --builddir DIR (a configured and built tree)"
[ -f "$builddir/tests/lib/env.sh" ] || die "'$builddir' is not a configured build (no tests/lib/env.sh)"
case $rounds in ''|*[!0-9]*|0) die "--rounds must be a whole number above 0, not '$rounds'" ;; esac
builddir=$(cd "$builddir" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
[ "${#suites[@]}" -gt 0 ] || suites=(tests/client/check-client.sh tests/monitor/check-monitor-tcp.sh
    tests/client/check-web-live.sh tests/client/check-web-report.sh tests/runtime/check-time-share.sh)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for s in "${suites[@]}"; do
    [ -f "$top/$s" ] || die "no suite '$s' in $top"
    for r in $(seq "$rounds"); do
        echo "run-latency.sh: $s, round $r of $rounds" >&2
        (cd "$builddir" && top_builddir=$builddir MAKE=make bash "$top/$s") >"$work/out" 2>&1 || true
        grep '^# figure: ' "$work/out" >>"$work/figures" || true
        if grep -q '^not ok' "$work/out"; then
            echo "run-latency.sh: $s failed a case (its figures are still shown):" >&2
            grep '^not ok' "$work/out" >&2
        fi
    done
done
[ -s "$work/figures" ] || die "the suites printed no figure"

# "# figure: NAME VALUE UNIT (target T)": T is <X, <=X or A..B.
awk '
    { name = $3; val[name] = val[name] " " $4; unit[name] = $5
      t = $0; sub(/.*\(target /, "", t); sub(/\)$/, "", t); target[name] = t
      if (!(name in seen)) { seen[name] = 1; order[++n] = name } }
    function median(list,    a, k, i, j, x) {
        k = split(list, a, " ")
        for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
        return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
    }
    function meets(v, t,    lo, hi) {
        if (v == "none") return "NOT MEASURED"
        if (t ~ /^<=/) return v + 0 <= substr(t, 3) + 0 ? "meets" : "MISSES"
        if (t ~ /^</) return v + 0 < substr(t, 2) + 0 ? "meets" : "MISSES"
        if (t ~ /\.\./) { split(t, lo, /\.\./); return v + 0 >= lo[1] + 0 && v + 0 <= lo[2] + 0 ? "meets" : "MISSES" }
        return "?"
    }
    END {
        printf "%-40s %12s %-4s %10s  %s\n", "figure", "median", "unit", "target", "verdict"
        for (i = 1; i <= n; i++) {
            name = order[i]; v = val[name] ~ /none/ ? "none" : median(val[name])
            printf "%-40s %12s %-4s %10s  %s\n", name, v, unit[name], target[name], meets(v, target[name])
        }
    }' "$work/figures"
