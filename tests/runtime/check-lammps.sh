#!/usr/bin/env bash
# A real application: Debian's LAMMPS (lmp, built with Open MPI) runs its
# in.melt example on 4 ranks with libmpiwatch preloaded. Its thermodynamic
# output is the bare run's; the call-site table names LAMMPS's C++ functions
# (demangled) and says which modules have no line information (Debian ships
# LAMMPS's debug symbols separately); every MPI_Send is in some site.
# Traced (MPIWATCH_TRACE=1): the thermo table is the bare run's, and the
# report has the wait states analysed at MPI_Finalize (docs/wait-states.md),
# the same as mpiwatch --trace DIR --analyze finds in the files; the
# analysis's time and MPI_Finalize's report phases are printed (the issue's
# "adds at most 1 s", a figure, not asserted).
name=lammps
. "$(dirname "$0")/../lib/harness.sh"

NP=4
lmp=$(command -v lmp || true)
melt=/usr/share/lammps/examples/melt/in.melt
if [ -z "$lmp" ] || [ ! -r "$melt" ]; then
    skip "LAMMPS in.melt" "Debian's lammps and lammps-examples are not installed (tools/install-deps.sh installs them)"
    finish
fi
if ! ldd "$lmp" | grep -q "$(case $MPI_FLAVOR in openmpi) echo libmpi.so.40 ;; *) echo libmpich ;; esac)"; then
    skip "LAMMPS in.melt" "$lmp is not built with $MPI_FLAVOR ($(ldd "$lmp" | grep -o 'libmpi[a-z]*\.so\.[0-9]*' | head -n 1))"
    finish
fi
need_client
echo "# $lmp ($(dpkg-query -W -f '${Version}' lammps 2>/dev/null || echo '?'))"

for mode in bare preload; do
    mkdir -p "$work/$mode/out" "$work/$mode/cwd"
    cp "$melt" "$work/$mode/cwd/"
    run "$work/$mode" "$NP" "$mode" MPIWATCH_OUTDIR="$work/$mode/out" -- "$lmp" -in in.melt
done
# The thermo table (Step Temp E_pair E_mol TotEng Press) is the result.
for mode in bare preload; do
    sed -n '/^ *Step /,/^Loop time/p' "$work/$mode/stdout" | grep -v '^Loop time' >"$work/$mode/thermo"
done
if [ "$(rc_of "$work/bare")" -ne 0 ] || [ ! -s "$work/bare/thermo" ]; then
    fail "LAMMPS bare run" "lmp failed or printed no thermo table ($(describe_rc "$(rc_of "$work/bare")"))" \
        "$work/bare/stdout" "$work/bare/stderr"
    finish
fi
if [ "$(rc_of "$work/preload")" -eq 0 ] && cmp -s "$work/bare/thermo" "$work/preload/thermo"; then
    pass "in.melt on $NP ranks: the thermo table is the bare run's ($(grep -c . "$work/bare/thermo") lines)"
else
    fail "in.melt profiled" "status $(rc_of "$work/preload") or a different thermo table" \
        "$work/preload/thermo" "$work/bare/thermo" "$work/preload/stderr"
fi

report=$(reports "$work/preload/out" 'mpiwatch-*.json')
if [ -z "$report" ]; then
    fail "in.melt report" "no JSON report" "$work/preload/stderr"
    finish
fi
json="$work/preload/out/$report" text="$work/preload/out/${report%.json}.txt"
got=$("$PYTHON" - "$json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
sites = [s for s in r["callsites"]["sites"] if s["function"] == "MPI_Send"]
named = sorted({s["caller"] for s in sites if s["caller"].startswith("LAMMPS_NS::CommBrick::")})
print(sum(s["calls"] for s in sites) + 0, r["functions"]["MPI_Send"]["calls"], len(named), *named)
PY
)
read -r in_sites all named rest <<<"$got"
if [ "${named:-0}" -ge 2 ]; then
    pass "the MPI_Send sites name LAMMPS functions: $rest"
else
    fail "LAMMPS functions" "expected MPI_Send sites in at least two LAMMPS_NS::CommBrick functions, got: $got" "$text"
fi
if [ -n "$in_sites" ] && [ "$in_sites" = "$all" ]; then
    pass "every MPI_Send ($all calls) is in a call site"
else
    fail "MPI_Send sites" "the sites hold $in_sites of $all calls" "$text"
fi
if grep -q '^  (no line information in: .*liblammps\.so' "$text"; then
    pass "the text report says which modules have no line information"
else
    fail "no line information" "no '(no line information in: ... liblammps.so...' line" "$text"
fi
if sed -n '/^Call sites by time/,/^$/p' "$text" | grep -q '^  MPI_Send  *LAMMPS_NS::CommBrick::[a-z_]*(.*liblammps\.so'; then
    pass "the text report lists MPI_Send sites as LAMMPS_NS::CommBrick::...()"
else
    fail "text call sites" "no MPI_Send site line naming LAMMPS_NS::CommBrick" "$text"
fi
# --- traced: the wait states at MPI_Finalize
dir="$work/traced"
mkdir -p "$dir/cwd"
cp "$melt" "$dir/cwd/"
run "$dir" "$NP" preload MPIWATCH_TRACE=1 MPIWATCH_FORMATS=json,text MPIWATCH_REPORT_TIMING=1 \
    -- "$lmp" -in in.melt
sed -n '/^ *Step /,/^Loop time/p' "$dir/stdout" | grep -v '^Loop time' >"$dir/thermo"
report=$(reports "$dir/cwd" 'mpiwatch-*.json')
if [ "$(rc_of "$dir")" -ne 0 ] || ! cmp -s "$work/bare/thermo" "$dir/thermo" || [ -z "$report" ]; then
    fail "in.melt traced" "status $(rc_of "$dir"), a different thermo table or no report" \
        "$dir/stderr" "$dir/thermo"
else
    log=$(mktemp "$work/log.XXXXXX")
    "$client" --trace "$dir/cwd" --analyze --json >"$dir/analysis.json" 2>"$log"
    if "$PYTHON" "$top_srcdir/tests/lib/report_schema.py" "$dir/cwd/$report" >"$log" 2>&1 &&
            "$PYTHON" "$top_srcdir/tests/trace/wait_check.py" same "$dir/cwd/$report" \
                "$dir/analysis.json" >>"$log" 2>&1; then
        pass "in.melt traced: the report's wait states at MPI_Finalize are --analyze's: $(tail -n 1 "$log")"
    else
        fail "in.melt wait states" "$(tail -n 1 "$log")" "$log" "$dir/cwd/$report"
    fi
    grep '^mpiwatch: report timing' "$dir/stderr" | sed 's/^/# /'
fi
finish
