#!/usr/bin/env bash
# The tables of a report merged from partial profiles are a finalize
# report's (issue 31): regions.c on 4 ranks once to MPI_Finalize (the job
# report) and once returning from main without it ("no-finalize": a partial
# profile per rank, merged by `mpiwatch --merge`). The merged report's
# header has the run's command line and build-id, its regions the finalize
# report's ranks, entries and calls, its call sites the same sites (function,
# offset, file, line) with the same calls and ranks; the text report prints both
# tables. A damaged call site or region is named with its file and field.
name=partial-tables
. "$(dirname "$0")/../lib/harness.sh"

[ "$MW_HAVE_JANSSON" = yes ] ||
    skip_all "$name: mpiwatch --merge needs libjansson (libjansson-dev), not found by configure"
NP=4
export MW_TIMEOUT=${MW_ABORT_TIMEOUT:-60}
build "$rt_dir/regions.c" "$work/regions" linked

mkdir -p "$work/final/out" "$work/partial/out"
run "$work/final" "$NP" linked MPIWATCH_OUTDIR="$work/final/out" -- "$work/regions"
final=$(ls "$work"/final/out/mpiwatch-regions-"$NP"r-*.json 2>/dev/null | grep -v -- '-partial\.json$')
if [ "$(rc_of "$work/final")" -ne 0 ] || [ "$(printf '%s\n' "$final" | grep -c .)" -ne 1 ]; then
    fail "finalize report" "status $(rc_of "$work/final"), reports: ${final:-none}" "$work/final/stderr"
    finish
fi
pass "finalize report"

run "$work/partial" "$NP" linked MPIWATCH_OUTDIR="$work/partial/out" MPIWATCH_FORMATS=json,text \
    -- "$work/regions" no-finalize
check_merged "no-finalize: the merged report has every rank" "$work/partial/out" "$NP" \
    --reason "exit without MPI_Finalize" --calls MPI_Allreduce $((7 * NP)) $((7 * NP)) || finish
merged=$(ls "$work"/partial/out/mpiwatch-regions-"$NP"r-*-merged.json)

# compare WHAT: the merged report's WHAT (command, regions, sites) against the finalize report's.
compare() {
    "$PYTHON" - "$final" "$merged" "$1" "$work/regions" <<'PY'
import json, os, sys
final, merged = (json.load(open(p)) for p in sys.argv[1:3])
what, program = sys.argv[3], sys.argv[4]
def regions(d):
    return {k: (v["ranks"], v["entries"], v["calls"]) for k, v in d["regions"].items()}
def sites(d):  # MPI_Finalize's own site is in the finalize report only
    return {(s["function"], s["offset"], os.path.basename(s["file"]), s["line"], s["caller"]):
            (s["calls"], s["ranks"])
            for s in d.get("callsites", {}).get("sites", []) if s["function"] != "MPI_Finalize"}
if what == "command":
    got, want = (merged.get("command"), merged.get("build_id")), (f"{program} no-finalize", final["build_id"])
elif what == "regions":
    got, want = regions(merged), regions(final)
else:
    got, want = sites(merged), sites(final)
    if len(want) < 4:
        sys.exit(f"the finalize report has {len(want)} call sites: {want}")
if got != want:
    sys.exit(f"{what}: merged {got}, finalize report {want}")
print(f"{what}: {len(want) if isinstance(want, dict) else want} as in the finalize report")
PY
}
checked "merged header: command line and build-id" compare command
checked "merged regions" compare regions
checked "merged call sites" compare sites
text=${merged%.json}.txt
if grep -q '^Call sites by time' "$text" && grep -q '^MPI time by region' "$text" &&
        grep -q "^command: $work/regions no-finalize" "$text"; then
    pass "merged text report: command, call-site and region tables"
else
    fail "merged text report" "no command line, call-site or region table" "$text"
fi

# A damaged table is named with its file and field, and that file left out:
# rank 2's call site with an offset that is not hex, rank 3's region claiming
# two ranks.
bad="$work/bad"
mkdir -p "$bad"
cp "$work"/partial/out/*-partial.json "$bad"/
"$PYTHON" - "$bad" <<'PY'
import glob, json, sys
for rank, damage in ((2, "site"), (3, "region")):
    path = glob.glob(f"{sys.argv[1]}/*-rank{rank}-partial.json")[0]
    doc = json.load(open(path))
    if damage == "site":
        doc["callsites"]["sites"][0]["offset"] = "zz"
    else:
        doc["regions"]["setup"]["ranks"] = 2
    json.dump(doc, open(path, "w"))
PY
need_client
"$client" --merge "$bad" >"$work/bad.out" 2>&1
if grep -q -- '-rank2-partial.json: callsites.sites\[0\].offset: "zz" is not a hex offset' "$work/bad.out" &&
        grep -q -- '-rank3-partial.json: regions.setup: not one rank' "$work/bad.out" &&
        [ "$(json_get "$(ls "$bad"/*-merged.json)" merged missing)" = "[2, 3]" ]; then
    pass "damaged call site and region: named with file and field, those ranks left out"
else
    fail "damaged call site and region" "not named, or not left out" "$work/bad.out"
fi

finish
