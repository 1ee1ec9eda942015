"""mpiwatch-gen --build DIR: a profiling library with hooks, from an install.

make install keeps what this needs (Makefile.am, "what mpiwatch-gen --build
needs"): under lib/mpiwatch/ the installed libraries' PIC objects (objects/c
for libmpiwatch, objects/f for libmpiwatch_f), the generated sources they
were compiled from with the MPI's ABI record (generated/), the Fortran
export map and build.conf (the compilers and flags configure chose); under
include/mpiwatch/ the headers those sources include.

The sources generated now are compared with the installed ones: only those
that differ (the files that hold hook code) are compiled, into DIR/obj, and
each library is linked from them and the installed objects into DIR/lib.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from .abi import ABI_FILE, abi_differences, parse_abi
from .errors import GenError
from .sysio import run

# The generated sources of libmpiwatch_f; every other one is libmpiwatch's.
FORTRAN_SOURCES = ("fortran_mpif.c", "fortran_f08.c")
_CONF_KEYS = ("MPICC", "CPPFLAGS", "CFLAGS", "LIBS", "FORTRAN")


@dataclass(frozen=True)
class Install:
    """The pieces of an installed mpiwatch that --build uses."""

    pkglibdir: str
    pkgincludedir: str
    conf: dict[str, str]

    @property
    def generated(self) -> str:
        return os.path.join(self.pkglibdir, "generated")

    @property
    def fortran(self) -> bool:
        return self.conf.get("FORTRAN") == "yes"

    def objects(self, lib: str) -> dict[str, str]:
        """Path relative to the build tree (e.g. generated/wrap_send.o) ->
        installed object, for lib "c" (libmpiwatch) or "f" (libmpiwatch_f)."""
        top = os.path.join(self.pkglibdir, "objects", lib)
        found = {}
        for folder, _dirs, names in os.walk(top):
            for name in names:
                if name.endswith(".o"):
                    path = os.path.join(folder, name)
                    found[os.path.relpath(path, top)] = path
        return found

    def installed_text(self, name: str) -> str | None:
        try:
            with open(os.path.join(self.generated, name), encoding="utf-8") as src:
                return src.read()
        except OSError:
            return None


def read_conf(path: str) -> dict[str, str]:
    """build.conf: KEY=VALUE lines, # comments."""
    conf: dict[str, str] = {}
    with open(path, encoding="utf-8") as src:
        for line in src:
            key, eq, value = line.rstrip("\n").partition("=")
            if eq and not key.startswith("#"):
                conf[key.strip()] = value.strip()
    return conf


def find_install(environ: dict[str, str] | None = None) -> Install:
    """The install this mpiwatch-gen belongs to, checked for every piece."""
    env = os.environ if environ is None else environ
    pkglibdir, pkgincludedir = env.get("MPIWATCH_PKGLIBDIR"), env.get("MPIWATCH_PKGINCLUDEDIR")
    if not pkglibdir or not pkgincludedir:
        raise GenError("--build works from an installed mpiwatch-gen (make install), whose "
                       "objects it links; in a source tree use ./configure --with-hooks=FILE "
                       "&& make")
    conf_path = os.path.join(pkglibdir, "build.conf")
    wanted = [conf_path, os.path.join(pkglibdir, "objects", "c"),
              os.path.join(pkglibdir, "generated", "mw_functions.h"),
              os.path.join(pkglibdir, "generated", ABI_FILE),
              os.path.join(pkgincludedir, "mw_wrap.h"), os.path.join(pkgincludedir, "mpiwatch.h")]
    missing = [p for p in wanted if not os.path.exists(p)]
    conf = read_conf(conf_path) if os.path.exists(conf_path) else {}
    missing += [f"{conf_path}: {key}=" for key in _CONF_KEYS if conf and key not in conf]
    if conf.get("FORTRAN") == "yes":
        missing += [p for p in (os.path.join(pkglibdir, "objects", "f"),
                                os.path.join(pkglibdir, "exports.map")) if not os.path.exists(p)]
    if missing:
        raise GenError("this install lacks what --build needs (reinstall mpiwatch with "
                       "make install): " + ", ".join(missing))
    return Install(pkglibdir, pkgincludedir, conf)


def _body(text: str) -> str:
    """A generated file without its head comment (which names the hooks and
    the command line, not what is compiled)."""
    if text.startswith("/*") and "*/" in text:
        return text[text.index("*/") + 2:]
    return text


def check_same_mpi(install: Install, files: dict[str, str], mpicc: str) -> None:
    """Stop unless the MPI given has the headers the install was built for."""
    where = os.path.join(install.generated, ABI_FILE)
    with open(where, encoding="utf-8") as src:
        built_for, installed = parse_abi(src.read(), where)
    now, current = parse_abi(files[ABI_FILE], ABI_FILE)
    # The types first: they say most plainly why the objects cannot be reused.
    differences = sorted(abi_differences(installed, current),
                         key=lambda d: "typedef" not in d.partition(" (installed")[2])
    if differences:
        shown = "\n  ".join(differences[:8])
        more = f"\n  ... and {len(differences) - 8} more" if len(differences) > 8 else ""
        raise GenError(f"the MPI of {mpicc} ({now}) does not match the one the installed "
                       f"runtime was built for ({built_for}): {len(differences)} declarations "
                       f"differ:\n  {shown}{more}\nInstall mpiwatch built for this MPI "
                       f"(./configure MPICC={mpicc} && make install), or name the MPI it was "
                       f"built for: --mpicc {install.conf['MPICC']}")
    if _body(files["mw_functions.h"]) != _body(install.installed_text("mw_functions.h") or ""):
        raise GenError(f"{mpicc} ({now}) declares other MPI functions than the MPI the "
                       f"installed runtime was built for ({built_for}), so the runtime's "
                       "tables do not fit; install mpiwatch built for this MPI "
                       f"(./configure MPICC={mpicc} && make install)")


def changed_sources(install: Install, files: dict[str, str]) -> list[str]:
    """The generated C sources that differ from the installed ones."""
    return [name for name in sorted(files) if name.endswith(".c")
            and _body(files[name]) != _body(install.installed_text(name) or "")]


class Build:
    """Compiles the generated sources that differ from the installed ones
    (in the background, while the generator goes on), then links."""

    def __init__(self, install: Install, src: str, out: str, mpicc: str) -> None:
        self.install = install
        self.src = src            # the generated sources (DIR/src)
        self.out = out            # DIR
        self.mpicc = mpicc
        self.compiled: list[str] = []
        self._pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 2)
        self._jobs: list[tuple[str, Future[subprocess.CompletedProcess[str]]]] = []

    def obj(self, name: str) -> str:
        return os.path.join(self.out, "obj", name[:-2] + ".o")

    def compile_command(self, name: str) -> list[str]:
        conf = self.install.conf
        return [*shlex.split(self.mpicc), *shlex.split(conf["CPPFLAGS"]), f"-I{self.src}",
                f"-I{self.install.pkgincludedir}", *shlex.split(conf["CFLAGS"]), "-fPIC",
                "-DPIC", "-c", os.path.join(self.src, name), "-o", self.obj(name)]

    def compile(self, names: list[str]) -> None:
        """Start compiling these sources."""
        os.makedirs(os.path.join(self.out, "obj"), exist_ok=True)
        for name in names:
            self._jobs.append((name, self._pool.submit(run, self.compile_command(name))))

    def wait(self) -> None:
        """Wait for the compilers. Their messages name the hook file and line
        (the generated code has #line directives), so they are passed on."""
        done = [(name, job.result()) for name, job in self._jobs]
        self._pool.shutdown()
        for _name, result in done:
            sys.stderr.write(result.stderr)
        failed = [name for name, result in done if result.returncode != 0]
        if failed:
            raise GenError(f"the hook code does not compile (in {', '.join(failed)}; the "
                           "compiler's messages above name the hook file and line)")
        self.compiled = sorted(name for name, _result in done)

    def objects(self, lib: str) -> list[str]:
        """The objects of lib ("c" or "f"): the installed ones, with those
        compiled now in their place (or added, for a source the install lacks)."""
        objects = self.install.objects(lib)
        for name in self.compiled:
            if (name in FORTRAN_SOURCES) == (lib == "f"):
                objects[f"generated/{name[:-2]}.o"] = self.obj(name)
        return [objects[rel] for rel in sorted(objects)]


def _link(build: Build, soname: str, objects: list[str], flags: list[str]) -> str:
    """Link DIR/lib/libX.so (soname libX.so.0, as the installed one), with
    libX.so.0 beside it for programs linked against it."""
    lib_dir = os.path.join(build.out, "lib")
    os.makedirs(lib_dir, exist_ok=True)
    target = os.path.join(lib_dir, soname.rsplit(".", 1)[0])
    # --no-undefined: a hook calling a function that nothing defines fails
    # here, naming it, rather than when a program loads the library.
    command = [*shlex.split(build.mpicc), "-shared", "-fPIC", "-DPIC", *objects, *flags,
               *shlex.split(build.install.conf["CFLAGS"]), "-Wl,--no-undefined",
               f"-Wl,-soname,{soname}", "-o", target]
    result = run(command)
    if result.returncode != 0:
        sys.stderr.write(result.stderr)
        raise GenError(f"linking {target} failed (the linker's messages are above)")
    link = os.path.join(lib_dir, soname)
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.basename(target), link)
    return target


def link_libraries(build: Build, fortran_libs: str) -> list[str]:
    """libmpiwatch.so, then libmpiwatch_f.so (against it) where it was built."""
    conf = build.install.conf
    built = [_link(build, "libmpiwatch.so.0", build.objects("c"), shlex.split(conf["LIBS"]))]
    if build.install.fortran:
        exports = os.path.join(build.install.pkglibdir, "exports.map")
        flags = [f"-L{os.path.join(build.out, 'lib')}", "-lmpiwatch",
                 *shlex.split(fortran_libs), f"-Wl,--version-script={exports}",
                 "-Wl,-rpath,$ORIGIN"]   # libmpiwatch_f finds the libmpiwatch beside it
        built.append(_link(build, "libmpiwatch_f.so.0", build.objects("f"), flags))
    return built


def usage(built: list[str]) -> str:
    """How to use the libraries just built."""
    lib = os.path.dirname(built[0])
    text = [f"  preload: LD_PRELOAD={built[0]} mpirun ...      "
            f"(Open MPI: mpirun -x LD_PRELOAD={built[0]} ...)",
            f"  link:    mpicc -o app app.c -L{lib} -Wl,-rpath,{lib} -lmpiwatch"]
    if len(built) > 1:
        text += [f"  Fortran: LD_PRELOAD={built[0]}:{built[1]}, or link with "
                 f"-L{lib} -Wl,-rpath,{lib} -lmpiwatch_f -lmpiwatch"]
    return "\n".join(text)
