#!/usr/bin/env bash
# mpiwatch built for the MPI 5.0 standard ABI (docs/abi.md), with the MPI
# Forum's stub library (../shared/mpi-abi-stubs beside the source tree or the
# repository it was cloned from, or MPIWATCH_ABI_STUBS=DIR): configure (which says why libmpiwatch_f is not
# built), make without a warning, make install, every PMPI_ function of
# libmpi_abi wrapped or explained and exactly the wrapped ones exported, a C
# and a C++ program linked with -lmpiwatch, and the generator's tests on the
# real header. The stubs abort when called, so nothing is run. Small for CI:
# C only, make -j2; its time is printed.
set -eu
needs_library=no
. "$(dirname "$0")/../lib/harness.sh"
# ../shared beside the source tree; for a clone in a folder of its own (CI
# clones into a temporary one), beside the repository it was cloned from.
stubs_near() { [ -f "$1/shared/mpi-abi-stubs/mpi.h" ] && [ -f "$1/shared/mpi-abi-stubs/Makefile" ]; }
if [ -z "${MPIWATCH_ABI_STUBS:-}" ]; then
    near=$(dirname "$top_srcdir")
    origin=$(git -C "$top_srcdir" config --get remote.origin.url 2>/dev/null || true)
    if ! stubs_near "$near" && [ -d "$origin" ] && stubs_near "$(dirname "$origin")"; then
        near=$(dirname "$origin")
    fi
    MPIWATCH_ABI_STUBS=$near/shared/mpi-abi-stubs
fi
stubs=$MPIWATCH_ABI_STUBS
if [ ! -f "$stubs/mpi.h" ] || [ ! -f "$stubs/Makefile" ]; then
    skip_all "no MPI ABI stubs at $stubs (set MPIWATCH_ABI_STUBS to the mpi-abi-stubs folder)"
fi
started=$(date +%s)
# Builds of their own: not make check's jobserver or command-line variables.
unset MAKEFLAGS MFLAGS MAKELEVEL
abi="$work/abi"
# The copy tests see may be read-only: build a copy.
cp -R "$stubs" "$work/stubs-src"
if ! ${MAKE:-make} -C "$work/stubs-src" install PREFIX="$abi" >"$work/stubs.log" 2>&1; then
    fail "the ABI stubs build (make install PREFIX=...)" "" "$work/stubs.log"
    finish
fi
pass "the ABI stubs build: $abi/bin/mpicc, $abi/lib/libmpi_abi.so"

# Without LD_LIBRARY_PATH the generator must say what the loader misses.
mkdir -p "$work/gen"
if env -u LD_LIBRARY_PATH PYTHONPATH="$top_srcdir/generator" PYTHONDONTWRITEBYTECODE=1 \
        "$PYTHON" -m mpiwatch_gen --mpicc "$abi/bin/mpicc" --spec "$top_srcdir/spec/mpi-4.1.json" \
        --out "$work/gen" >"$work/gen.log" 2>&1; then
    fail "the generator names the library the loader cannot find" "it succeeded" "$work/gen.log"
elif grep -q "cannot load libmpi_abi.so.1.*LD_LIBRARY_PATH=$abi/lib" "$work/gen.log"; then
    pass "the generator names the library the loader cannot find, and the fix"
else
    fail "the generator names the library the loader cannot find" "" "$work/gen.log"
fi

export LD_LIBRARY_PATH="$abi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
build="$work/build"
prefix="$work/prefix"
mkdir -p "$build"
# Without the live page's server: a smaller build, the same library.
if ! (cd "$build" && "$top_srcdir/configure" MPICC="$abi/bin/mpicc" --prefix="$prefix" \
        --without-microhttpd >"$work/configure.log" 2>&1); then
    fail "configure MPICC=.../mpicc (the ABI)" "" "$work/configure.log"
    finish
fi
pass "configure MPICC=.../mpicc (the ABI)"
if grep -q "libmpiwatch_f is not built: the MPI's mpi.h has no Fortran interoperability (no MPI_Fint" \
        "$work/configure.log"; then
    pass "configure says libmpiwatch_f is not built because mpi.h has no Fortran interop"
else
    fail "configure says why libmpiwatch_f is not built" "" "$work/configure.log"
fi
if ! ${MAKE:-make} -C "$build" -j2 >"$work/make.log" 2>&1; then
    fail "make" "" "$work/make.log"
    finish
fi
warnings=$(grep -c "warning:" "$work/make.log" || true)
if [ "$warnings" -eq 0 ]; then
    pass "make: no warning"
else
    grep "warning:" "$work/make.log" >"$work/warnings" || true
    fail "make: no warning" "$warnings warnings" "$work/warnings"
fi
if grep -q "^#define MW_MPI_FORTRAN 0$" "$build/generated/mw_mpi_interop.h" &&
   grep -q "PMPI_Comm_toint(comm)" "$build/generated/mw_mpi_interop.h"; then
    pass "the runtime reads handles through MPI_X_toint/fromint, without Fortran interop"
else
    fail "generated/mw_mpi_interop.h follows the ABI header" "" "$build/generated/mw_mpi_interop.h"
fi
if ! ${MAKE:-make} -C "$build" install >"$work/install.log" 2>&1; then
    fail "make install" "" "$work/install.log"
    finish
fi
pass "make install"

# The coverage: every function libmpi_abi defines is wrapped or explained.
coverage="$prefix/share/mpiwatch/coverage.txt"
[ -f "$coverage" ] || coverage="$build/generated/coverage.txt"
awk '!/^#/ { print $1 }' "$coverage" | sort >"$work/listed"
nm -D --defined-only "$abi/lib/libmpi_abi.so" | awk '$3 ~ /^PMPI_/ { print substr($3, 2) }' \
    | sort >"$work/defined"
comm -23 "$work/defined" "$work/listed" >"$work/unlisted"
if [ ! -s "$work/unlisted" ]; then
    pass "every PMPI_ function of libmpi_abi is in the coverage report ($(wc -l <"$work/defined"))"
else
    fail "every PMPI_ function of libmpi_abi is in the coverage report" "not listed:" "$work/unlisted"
fi
awk '!/^#/ && $2 == "wrapped" { print $1 }' "$coverage" | sort >"$work/wrapped"
nm -D --defined-only "$prefix/lib/libmpiwatch.so" | awk '($2 == "T" || $2 == "W") && $3 ~ /^MPIX?_/ { print $3 }' \
    | sort >"$work/exported"
if cmp -s "$work/wrapped" "$work/exported"; then
    pass "libmpiwatch exports exactly the wrapped functions ($(wc -l <"$work/wrapped"))"
else
    diff "$work/wrapped" "$work/exported" | head -20 >"$work/diff" || true
    fail "libmpiwatch exports exactly the wrapped functions" "< wrapped, > exported" "$work/diff"
fi
for name in MPI_Abi_get_version MPI_Comm_toint MPI_Type_fromint; do
    if grep -Eq "^$name +wrapped +not in the spec \(MPI 4\.1; the header is MPI 5\.0\)$" "$coverage"; then
        pass "$name (MPI 5.0, not in the 4.1 spec) is wrapped and listed"
    else
        fail "$name is wrapped and listed as not in the 4.1 spec" "" "$coverage"
    fi
done

# Programs linked with -lmpiwatch against the ABI (linked, not run: the stubs abort).
cat >"$work/prog.c" <<'EOF'
#include <mpi.h>
#include <mpiwatch.h>
int main(int argc, char **argv)
{
    int major = 0, minor = 0;
    MPI_Init(&argc, &argv);
    MPI_Abi_get_version(&major, &minor);
    MPI_Send(&major, 1, MPI_INT, 0, 0, MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)));
    return MPI_Finalize();
}
EOF
cp "$work/prog.c" "$work/prog.cc"
link_flags="-I$prefix/include -L$prefix/lib -Wl,-rpath,$prefix/lib -lmpiwatch"
for lang in c cc; do
    wrapper="$abi/bin/mpicc"
    [ "$lang" = cc ] && wrapper="$abi/bin/mpicxx"
    label="a $([ "$lang" = c ] && echo C || echo C++) program linked with -lmpiwatch"
    if "$wrapper" -Wall -Werror -o "$work/prog-$lang" "$work/prog.$lang" $link_flags \
            >"$work/link-$lang.log" 2>&1 &&
       ldd "$work/prog-$lang" | grep -q "libmpiwatch.so.* => $prefix/lib/" &&
       ldd "$work/prog-$lang" | grep -q "libmpi_abi.so.1 => $abi/lib/"; then
        pass "$label against the ABI"
    else
        ldd "$work/prog-$lang" >>"$work/link-$lang.log" 2>&1 || true
        fail "$label against the ABI" "" "$work/link-$lang.log"
    fi
done

# The generator's tests on the real header (test_interop.py's RealAbiHeaderTest).
if (cd "$top_srcdir" && MPIWATCH_ABI_MPICC="$abi/bin/mpicc" PYTHONPATH="$top_srcdir/generator" \
        PYTHONDONTWRITEBYTECODE=1 "$PYTHON" "$top_srcdir/tests/lib/unittest_tap.py" \
        -s tests/generator -p test_interop.py) >"$work/unit.tap" 2>&1 &&
   ! grep -q "SKIP" "$work/unit.tap"; then
    pass "the generator's interop tests on the ABI's mpi.h ($(grep -c '^ok' "$work/unit.tap") passed)"
else
    fail "the generator's interop tests on the ABI's mpi.h" "" "$work/unit.tap"
fi
note "the ABI build took $(( $(date +%s) - started )) s (stubs, configure, make -j2, install, checks)"
finish
