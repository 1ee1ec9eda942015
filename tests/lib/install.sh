# Shell helpers for tests that use mpiwatch as installed (make install into a
# staging folder), the way a user on a cluster has it. Source it; needs
# top_builddir (make check sets it).

# mw_stage_install DIR: install the build tree under DIR/dest and move the
# prefix to DIR/prefix (so nothing points back into the build); sets prefix.
# Returns 1 on failure, with make's output in DIR/install.log.
mw_stage_install() {
    ${MAKE:-make} -C "$top_builddir" install DESTDIR="$1/dest" >"$1/install.log" 2>&1 || return 1
    staged=$(cd "$(dirname "$(find "$1/dest" -name mpiwatch.pc | head -n 1)")/../.." && pwd) &&
        cp -a "$staged" "$1/prefix" && rm -rf "$1/dest" || return 1
    prefix=$1/prefix
}

# mw_installed_gen ARGS...: the installed mpiwatch-gen, seeing the prefix and
# nothing else of mpiwatch (no make variables, no PYTHONPATH).
mw_installed_gen() {
    env -u top_srcdir -u top_builddir -u LIBMPIWATCH -u LIBMPIWATCH_F -u PYTHONPATH \
        -u MPICC -u MPIFC PATH="$prefix/bin:$PATH" mpiwatch-gen "$@"
}
