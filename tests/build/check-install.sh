#!/usr/bin/env bash
# The installed mpiwatch, as a user on a cluster sees it (make install into
# a staging folder, DESTDIR, standing for a prefix the loader does not know):
# man pages for mpiwatch(1), mpiwatch-gen(1) and mpiwatch(7) are found with
# MANPATH; the guides are under share/doc/mpiwatch; pkg-config gives flags
# for libmpiwatch and libmpiwatch_f that carry an rpath, so a program linked
# with them starts without LD_LIBRARY_PATH and writes its report; the
# client's --help points at the installed guide; the Python package is in
# site-packages, and the installed client's --diff finds it.
set -eu
. "$(dirname "$0")/../lib/harness.sh"
if ! ${MAKE:-make} -C "$top_builddir" install DESTDIR="$work/dest" >"$work/install.log" 2>&1; then
    fail "make install DESTDIR=..." "" "$work/install.log"
    finish
fi
pass "make install into a staging folder"
pc=$(find "$work/dest" -name mpiwatch.pc | head -n 1)
prefix=$(cd "$(dirname "$pc")/../.." && pwd)
export PKG_CONFIG_PATH="$(dirname "$pc")"

for page in "1 mpiwatch" "1 mpiwatch-gen" "7 mpiwatch"; do
    if MANPATH="$prefix/share/man" man -w $page >"$work/man.out" 2>&1 &&
       MANPATH="$prefix/share/man" man -P cat $page >"$work/man.txt" 2>/dev/null &&
       grep -q "SEE ALSO" "$work/man.txt"; then
        pass "man $page works from the prefix (MANPATH)"
    else
        fail "man $page" "" "$work/man.out"
    fi
done
missing=""
for doc in README.md client.md hooks.md protocol.md report-format.md fortran.md spec.md python.md; do
    [ -f "$prefix/share/doc/mpiwatch/$doc" ] || missing="$missing $doc"
done
if [ -z "$missing" ]; then pass "the guides are in share/doc/mpiwatch"
else fail "share/doc/mpiwatch lacks:$missing" ""; fi
if "$prefix/bin/mpiwatch" --help | grep -q "/share/doc/mpiwatch/client.md"; then
    pass "mpiwatch --help points at the installed guide"
else
    fail "mpiwatch --help names share/doc/mpiwatch/client.md" ""
fi

# The Python package: in the prefix's site-packages, imported by python3 with
# it on PYTHONPATH, and run by the installed client without MW_PYTHONDIR
# (found beside the client, though the prefix was staged elsewhere).
pkg=$(find "$work/dest" -path '*-packages/mpiwatch/cli.py' | head -n 1)
"$PYTHON" "$top_srcdir/tests/client/synth-report.py" 4 >"$work/r4.json"
if [ -n "$pkg" ] && env -u MW_PYTHONDIR PYTHONPATH="${pkg%/mpiwatch/cli.py}" "$PYTHON" -c \
        'import mpiwatch, sys; sys.exit(len(mpiwatch.load(sys.argv[1], use_pandas=False).functions) != 13)' \
        "$work/r4.json" 2>"$work/py.err" &&
   env -u MW_PYTHONDIR -u PYTHONPATH "$prefix/bin/mpiwatch" --diff "$work/r4.json" "$work/r4.json" \
        >"$work/diff.out" 2>>"$work/py.err" && grep -q "No change above noise" "$work/diff.out"; then
    pkg=${pkg#"$work"/dest}
    pass "the Python package is in ${pkg%/cli.py}/; python3 loads a report with it; the installed mpiwatch --diff runs it"
else
    fail "the installed Python package" "not installed, not importable, or mpiwatch --diff failed" "$work/py.err"
fi

libs=$(pkg-config --define-prefix --libs mpiwatch 2>"$work/pc.err") || { fail "pkg-config --libs mpiwatch" "" "$work/pc.err"; finish; }
case $libs in *-Wl,-rpath,"$prefix"/*) pass "pkg-config --libs mpiwatch: $libs" ;;
              *) fail "pkg-config --libs mpiwatch has no rpath into the prefix: $libs" "" ;; esac
if [ -f "$top_builddir/.libs/libmpiwatch_f.so" ]; then
    if flibs=$(pkg-config --define-prefix --libs mpiwatch-fortran 2>"$work/pcf.err"); then
        case $flibs in *-lmpiwatch_f*-lmpiwatch*) pass "pkg-config --libs mpiwatch-fortran: $flibs" ;;
                       *) fail "pkg-config --libs mpiwatch-fortran: $flibs" "" ;; esac
    else
        fail "pkg-config --libs mpiwatch-fortran" "" "$work/pcf.err"
    fi
fi
if ! $MPICC -o "$work/ring" "$top_srcdir/examples/ring.c" $(pkg-config --define-prefix --cflags mpiwatch) \
        $libs >"$work/build.log" 2>&1; then
    fail "a program builds with pkg-config's flags" "" "$work/build.log"
    finish
fi
mkdir -p "$work/run"
if (cd "$work/run" && env -u LD_LIBRARY_PATH sh -c '. "$1"; mw_launch 2 MPIWATCH_OUTDIR="$2" -- "$3"' \
        sh "$top_srcdir/tests/lib/launch.sh" "$work/run" "$work/ring") >"$work/run.log" 2>&1 &&
   ls "$work/run"/mpiwatch-ring-2r-*.json >/dev/null 2>&1 &&
   ldd "$work/ring" | grep -q "$prefix/lib/libmpiwatch.so"; then
    pass "a program linked from the prefix starts without LD_LIBRARY_PATH and writes its report"
else
    fail "a program linked from the prefix starts and reports" "" "$work/run.log"
fi
finish
