#!/bin/bash
# How long `mpiwatch-gen --hooks FILE --build DIR` takes from an install,
# beside a full build of the same libraries, measured one after the other in
# one run; prints both and their ratio. The hooks-from-an-install issue's
# target: at most a fifth (0.2).
set -euo pipefail

usage() {
    cat <<USAGE
usage: run-hooks-build.sh --build-dir DIR [--hooks FILE]

DIR is a configured and built mpiwatch tree (./configure && make). The
script installs it into a temporary prefix, then times:
  - mpiwatch-gen --hooks FILE --build OUT with the installed mpiwatch-gen
    (FILE defaults to tests/build/tags.j2, a hook on MPI_Send);
  - a full build of the libraries the way make -j2 does it: every source
    generated (no hooks) and compiled 2 at a time with the install's
    compilers and flags, once PIC and once for the static library as libtool
    does, and linked (make would also run configure and build the client).
USAGE
}

build="" hooks=""
while [ $# -gt 0 ]; do
    case $1 in
        --build-dir) build=${2:?--build-dir needs a value}; shift 2 ;;
        --hooks) hooks=${2:?--hooks needs a value}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "run-hooks-build.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
[ -n "$build" ] || { echo "run-hooks-build.sh: --build-dir is required (see --help)" >&2; exit 2; }
[ -f "$build/Makefile" ] || { echo "run-hooks-build.sh: '$build' is not a configured build tree" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
hooks=$(realpath "${hooks:-$top/tests/build/tags.j2}")
[ -r "$hooks" ] || { echo "run-hooks-build.sh: cannot read the hook file '$hooks'" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

echo "installing $build into a temporary prefix..." >&2
make -C "$build" install DESTDIR="$work/dest" >"$work/install.log" 2>&1 ||
    { tail -n 20 "$work/install.log"; echo "run-hooks-build.sh: make install failed" >&2; exit 1; }
prefix=$(cd "$(dirname "$(find "$work/dest" -name mpiwatch.pc | head -n 1)")/../.." && pwd)
conf="$prefix/lib/mpiwatch/build.conf"
value() { sed -n "s/^$1=//p" "$conf"; }
# The installed mpiwatch-gen, seeing the prefix and nothing else of mpiwatch.
gen() { env -u PYTHONPATH -u MPICC -u MPIFC PATH="$prefix/bin:$PATH" mpiwatch-gen "$@"; }

cd "$work"
echo "timing mpiwatch-gen --hooks $(basename "$hooks") --build..." >&2
started=$(now)
gen --hooks "$hooks" --build hooked -q >hooked.log 2>&1 ||
    { cat hooked.log; echo "run-hooks-build.sh: --build failed" >&2; exit 1; }
build_time=$(seconds "$started" "$(now)")

echo "timing a full build of the libraries..." >&2
cc=$(value MPICC)
set -- --mpicc "$cc"
[ "$(value FORTRAN)" != yes ] ||
    set -- "$@" --mpifc "$(value MPIFC)" --fortran-layering "$(value FORTRAN_LAYERING)"
full=$work/full
mkdir -p "$full/obj" "$full/fobj" "$full/static"
cat > "$full/cc.sh" <<EOF
#!/bin/sh
# cc.sh SOURCE: its PIC object in obj/ (fobj/ for libmpiwatch_f's), named
# after its path, and its object for the static library in static/.
case \$1 in */convert.c|*/fortran_mpif.c|*/fortran_f08.c) dir=fobj ;; *) dir=obj ;; esac
name=\$(echo "\$1" | tr / _).o
set -- $cc $(value CPPFLAGS) -I'$top/include' -I'$top/runtime' -I'$full/src' \\
    $(value CFLAGS) -c "\$1"
"\$@" -fPIC -DPIC -o "$full/\$dir/\$name" && exec "\$@" -o "$full/static/\$name"
EOF
started=$(now)
# shellcheck disable=SC2046  # the flags are words
{
    gen "$@" --out "$full/src" -q &&
    { find "$full/src" "$top/runtime" -name '*.c' -print0 | xargs -0 -P 2 -n 1 sh "$full/cc.sh"; } &&
    $cc -shared -o "$full/libmpiwatch.so" "$full"/obj/*.o $(value LIBS) &&
    if [ "$(value FORTRAN)" = yes ]; then
        $(value MPIFC) -fPIC -c "$full/src/fortran_sentinels.f90" -o "$full/fobj/sentinels.o" &&
        $cc -shared -o "$full/libmpiwatch_f.so" "$full"/fobj/*.o -L"$full" -lmpiwatch \
            $(value FORTRAN_LIBS) -Wl,--version-script="$prefix/lib/mpiwatch/exports.map"
    fi
} >full.log 2>&1 || { tail -n 20 full.log; echo "run-hooks-build.sh: the full build failed" >&2; exit 1; }
full_time=$(seconds "$started" "$(now)")
ratio=$(awk -v a="$build_time" -v b="$full_time" 'BEGIN { printf "%.3f", a / b }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 0.2) ? "meets" : "MISSES" }')
printf '%-44s %8s s\n' "mpiwatch-gen --hooks --build" "$build_time"
printf '%-44s %8s s\n' "full build ($(find full -name '*.o' | wc -l) objects)" "$full_time"
printf '%-44s %8s   (target at most 0.2: %s)\n' "ratio" "$ratio" "$verdict"
