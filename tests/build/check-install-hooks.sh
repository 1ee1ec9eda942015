#!/usr/bin/env bash
# Hooks from an install, in seconds (issue 17): make install into a staging
# folder, copy only the prefix, and with the source and build trees out of
# view (another folder, PATH to the copy's bin, the make variables unset)
# write a hook file that counts MPI_Send calls per tag, run
#   mpiwatch-gen --hooks FILE --build DIR
# and run a C program (and its Fortran twin, where libmpiwatch_f is built)
# with DIR's library: the counters are right, and the report is otherwise
# the one the installed library writes. Also: only the sources the hook
# changes are compiled; an error in the hook's C names the hook file and
# line; another MPI whose headers differ is refused; an install without the
# pieces is named. How long --build takes beside a full build of the
# libraries is bench/run-hooks-build.sh's to measure (a timed test would
# fail on a busy machine and doubles this test's time).
set -eu
. "$(dirname "$0")/../lib/harness.sh"
. "$top_srcdir/tests/lib/install.sh"
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

if ! mw_stage_install "$work"; then
    fail "make install DESTDIR=..." "" "$work/install.log"
    finish
fi
pass "make install, and the prefix copied to $prefix"
fortran=""
[ -f "$prefix/lib/libmpiwatch_f.so" ] && [ -n "${MPIFC:-}" ] && fortran=yes

# The user's side: a hook file and programs, in a folder of their own.
mkdir -p "$work/user" && cd "$work/user"
cp "$top_srcdir/tests/build/tags.j2" tags.j2
cat > broken.j2 <<'EOF'
{% macro after_MPI_Send(ctx) %}
int seen = {{ ctx.tag }};
seen += no_such_variable;
{% endmacro %}
EOF
$MPICC -o send_tags_c "$top_srcdir/tests/build/send_tags.c"
[ -z "$fortran" ] || $MPIFC -o send_tags_f "$top_srcdir/tests/build/send_tags.f90"


started=$(now)
if ! mw_installed_gen --hooks tags.j2 --build hooked >build.out 2>build.err; then
    fail "mpiwatch-gen --hooks tags.j2 --build hooked" "" build.err build.out
    finish
fi
pass "mpiwatch-gen --hooks tags.j2 --build hooked ($(seconds "$started" "$(now)") s)"
sed 's/^/# /' build.out
libs="hooked/lib/libmpiwatch.so"
[ -z "$fortran" ] || libs="$libs hooked/lib/libmpiwatch_f.so"
for lib in $libs; do
    if [ -f "$lib" ]; then pass "$lib built"; else fail "$lib built" "" build.err; finish; fi
done
if grep -q "LD_PRELOAD=$work/user/hooked/lib/libmpiwatch.so" build.out &&
   grep -q -- "-lmpiwatch" build.out; then
    pass "it says how to use the library (LD_PRELOAD, link flags)"
else
    fail "it says how to use the library" "" build.out
fi
compiled=$(sed -n 's/.* \([0-9]*\) of [0-9]* sources compiled (\([^)]*\)).*/\2/p' build.out)
case $compiled in
    *wrap_send.c*) case $compiled in
        *wrap_recv.c*|*wrap_collective.c*|*mw_functions.c*|*fortran_mpif.c*)
            fail "only what the hook changes is compiled: $compiled" "" ;;
        *) pass "only what the hook changes is compiled: $compiled" ;;
        esac ;;
    *) fail "wrap_send.c compiled again: $compiled" "" build.out ;;
esac

# run LIB-PRELOAD OUTDIR PROGRAM: the program on 2 ranks, its report in OUTDIR.
run() {
    mkdir -p "$2"
    mw_launch 2 LD_PRELOAD="$1" MPIWATCH_OUTDIR="$2" -- "./$3" >"$2/stdout" 2>"$2/stderr"
}
# Compares two JSON reports: the hooked one's counters are the expected ones,
# and the rest (calls and bytes of each function, call sites, rank pairs) is
# the same as the installed library's.
cat > compare.py <<'EOF'
import json, sys
hooked, plain = (json.load(open(p)) for p in sys.argv[1:3])
want = {"MPI_Send tag 5": 3, "MPI_Send tag 9": 1}
got = {k: v["sum"] for k, v in hooked.get("counters", {}).items()}
problems = [] if got == want else [f"counters {got}, expected {want}"]
if plain.get("counters"):
    problems.append(f"the installed library counted {plain['counters']}")
def shape(report):
    return ({name: (f["calls"], f["bytes_sent"], f["bytes_recv"])
             for name, f in report["functions"].items()},
            sorted(k for k in report if k != "counters"),
            sorted((s["function"], s["line"], s["calls"]) for s in report["callsites"]["sites"]),
            report["pairs"])
if shape(hooked) != shape(plain):
    problems.append(f"reports differ: {shape(hooked)} != {shape(plain)}")
print("\n".join(problems) or "same")
sys.exit(1 if problems else 0)
EOF
langs=c
[ -z "$fortran" ] || langs="c f"
for lang in $langs; do
    preload_hooked="$work/user/hooked/lib/libmpiwatch.so"
    preload_plain="$prefix/lib/libmpiwatch.so"
    if [ "$lang" = f ]; then
        preload_hooked="$preload_hooked:$work/user/hooked/lib/libmpiwatch_f.so"
        preload_plain="$preload_plain:$prefix/lib/libmpiwatch_f.so"
    fi
    if run "$preload_hooked" "$work/user/run-$lang-hooked" "send_tags_$lang" &&
       run "$preload_plain" "$work/user/run-$lang-plain" "send_tags_$lang" &&
       grep -q "^last 3" "run-$lang-hooked/stdout"; then
        pass "send_tags ($lang) runs with the built and the installed library"
    else
        fail "send_tags ($lang) runs" "" "run-$lang-hooked/stderr" "run-$lang-plain/stderr"
        continue
    fi
    if "$PYTHON" compare.py run-"$lang"-hooked/mpiwatch-*.json run-"$lang"-plain/mpiwatch-*.json \
            >"compare-$lang.out" 2>&1; then
        pass "send_tags ($lang): counters MPI_Send tag 5 = 3, tag 9 = 1; the report otherwise unchanged"
    else
        fail "send_tags ($lang): the hooked report" "" "compare-$lang.out"
    fi
    if grep -q '^  MPI_Send tag 5  *3  *1 ' "run-$lang-hooked"/mpiwatch-*.txt &&
       grep -q '^  MPI_Send tag 9  *1  *1 ' "run-$lang-hooked"/mpiwatch-*.txt; then
        pass "send_tags ($lang): the text report's Counters"
    else
        fail "send_tags ($lang): the text report's Counters" "" "run-$lang-hooked"/mpiwatch-*.txt
    fi
done

# An error in the hook's C code names the hook file and line.
if mw_installed_gen --hooks broken.j2 --build broken -q >broken.out 2>&1; then
    fail "a hook with a C error is refused" "" broken.out
elif grep -q "^broken.j2:3:[0-9]*: error: .no_such_variable. undeclared" broken.out &&
     grep -q "error: the hook code does not compile" broken.out; then
    pass "a C error in the hook names broken.j2:3"
else
    fail "a C error in the hook names broken.j2:3" "" broken.out
fi

# Another MPI whose headers differ is refused, naming both.
case $MPI_FLAVOR in openmpi) other=mpicc.mpich ;; *) other=mpicc.openmpi ;; esac
if command -v "$other" >/dev/null 2>&1; then
    if mw_installed_gen --mpicc "$other" --hooks tags.j2 --build other -q >other.out 2>&1; then
        fail "--mpicc $other (another MPI) is refused" "" other.out
    elif grep -q "does not match the one the installed runtime was built for" other.out &&
         grep -q "declarations differ" other.out; then
        pass "--mpicc $other (another MPI) is refused: $(grep -c '^  ' other.out) differences shown"
    else
        fail "--mpicc $other is refused with a clear error" "" other.out
    fi
else
    echo "# $other not installed: the other-MPI check is skipped"
fi
# The same MPI named by another path is accepted.
if mw_installed_gen --mpicc "$(command -v "${MPICC%% *}")" --build again -q >again.out 2>&1 &&
   [ -f again/lib/libmpiwatch.so ]; then
    pass "--mpicc $(command -v "${MPICC%% *}") (the same MPI, no hooks) builds"
else
    fail "--mpicc with the install's own MPI builds" "" again.out
fi

# An install without the pieces --build needs says which.
mv "$prefix/lib/mpiwatch/build.conf" "$work/build.conf"
if mw_installed_gen --hooks tags.j2 --build lacking -q >lacking.out 2>&1; then
    fail "an install without build.conf is refused" "" lacking.out
elif grep -q "lacks what --build needs.*build.conf" lacking.out; then
    pass "an install without lib/mpiwatch/build.conf: the error names it"
else
    fail "an install without build.conf: a clear error" "" lacking.out
fi
mv "$work/build.conf" "$prefix/lib/mpiwatch/build.conf"

finish
