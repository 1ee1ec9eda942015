"""Which PMPI_ symbols the MPI's libraries really define.

A header may declare functions its library lacks (MPICH 4.0.2 declares
``PMPI_Status_f082f`` and friends but its C library does not define them);
a wrapper for such a function would make libmpiwatch unlinkable. We link a
tiny program with the MPI compiler wrapper, ask the dynamic loader which
libraries it pulls in (``ldd``), and list their defined dynamic symbols
(``nm -D``).
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile

from .errors import GenError
from .programs import write_program
from .sysio import run

_LDD_RE = re.compile(r"=>\s*(/\S+)|^\s*(/\S+)\s+\(")
_LDD_MISSING_RE = re.compile(r"^\s*(\S+)\s+=>\s+not found")
_UNDEFINED_MPI_RE = re.compile(r"undefined reference to [`'\"]?(P?MPI_\w+)")
_MPI_SYMBOL_RE = re.compile(r"^P?MPIX?_\w+$")


def _run(cmd: list[str], what: str) -> str:
    """Run a command and return its standard output, or raise GenError."""
    done = run(cmd)
    if done.returncode == 127 and not done.stdout:
        raise GenError(f"{what}: {done.stderr.strip()}")
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise GenError(f"{what} failed: {detail}", " ".join(cmd[:1]))
    return done.stdout


def linked_libraries(compiler: str,
                     cflags: list[str] | None = None) -> tuple[list[str], dict[str, str]]:
    """Shared libraries a program built with the MPI compiler wrapper loads;
    and those the loader cannot find (ldd's "not found"), each with the
    folder the linker took it from ("" when unknown)."""
    cmd = shlex.split(compiler)
    with tempfile.TemporaryDirectory(prefix="mpiwatch-symbols-") as tmp:
        src = write_program(tmp, "link.c")
        exe = os.path.join(tmp, "link")
        link = cmd + [*(cflags or []), src, "-o", exe]
        _link_mpi_program(link, compiler)
        paths, missing = _ldd(exe)
        return paths, {name: _linked_from(link, name) for name in missing}


def _link_mpi_program(cmd: list[str], compiler: str) -> None:
    """Link the test program; a compiler that links no MPI says so."""
    done = run(cmd)
    if done.returncode == 0:
        return
    undefined = _UNDEFINED_MPI_RE.search(done.stderr)
    if undefined:
        raise GenError(f"this compiler links no MPI library (undefined reference to "
                       f"{undefined.group(1)}): it is not an MPI compiler wrapper; set --mpicc "
                       "(MPICC) to your MPI's C compiler wrapper, e.g. mpicc", compiler)
    _run(cmd, "linking a test MPI program")


def _linked_from(cmd: list[str], soname: str) -> str:
    """The folder the linker took the library soname from (its --trace), or ""."""
    stem = soname.split(".so", 1)[0]
    done = run(cmd + ["-Wl,--trace"])
    for line in done.stdout.splitlines():
        path = line.strip()
        if os.path.basename(path).startswith(stem + ".so") and os.path.isabs(path):
            return os.path.dirname(os.path.realpath(path))
    return ""


def _not_found_message(missing: dict[str, str], compiler: str) -> str:
    """What the loader cannot find, and the two fixes."""
    names = ", ".join(sorted(missing))
    folders = sorted({folder for folder in missing.values() if folder})
    where = ":".join(folders) if folders else "the folder that holds it"
    linked = f" (the wrapper links it from {where} without an rpath)" if folders else ""
    return (f"a program linked by the MPI compiler cannot load {names}: ldd says "
            f"'not found'{linked}; set LD_LIBRARY_PATH={where} (e.g. export "
            f"LD_LIBRARY_PATH={where}:$LD_LIBRARY_PATH), or give the wrapper an rpath "
            f"(e.g. MPICC=\"{compiler} -Wl,-rpath,{where}\")")


def _defined_matching(library: str, pattern: re.Pattern[str]) -> set[str]:
    """The functions a shared library defines whose names match pattern."""
    out = _run(["nm", "-D", "--defined-only", library], f"reading the symbols of {library}")
    names: set[str] = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "TtWiV":
            name = parts[2].split("@", 1)[0]
            if pattern.match(name):
                names.add(name)
    return names


def defined_symbols(library: str) -> set[str]:
    """The MPI-named symbols a shared library defines."""
    return _defined_matching(library, _MPI_SYMBOL_RE)


def mpi_library_symbols(compiler: str, cflags: list[str] | None = None) -> tuple[set[str], list[str]]:
    """All PMPI_/MPI_ symbols defined by the MPI's libraries, and those libraries."""
    libs, missing = linked_libraries(compiler, cflags)
    symbols: set[str] = set()
    used: list[str] = []
    for lib in libs:
        found = defined_symbols(lib)
        if found:
            symbols |= found
            used.append(lib)
    if not any(s.startswith("PMPI_") for s in symbols):
        if missing:
            raise GenError(_not_found_message(missing, compiler), compiler)
        raise GenError("no library linked by the MPI compiler defines PMPI_ symbols "
                       "(a static-only MPI?); use --symbols-file FILE or --no-symbol-check",
                       compiler)
    return symbols, used


def symbols_from_file(path: str) -> set[str]:
    """Symbol names listed one per line (blank lines and # comments ignored)."""
    try:
        with open(path, encoding="utf-8") as src:
            return {line.split("#", 1)[0].strip() for line in src} - {""}
    except OSError as err:
        raise GenError(f"cannot read the symbol list: {err.strerror}", path) from None


# ------------------------------------------------------------------ Fortran
# The Fortran side: which libraries a Fortran MPI program loads, and which
# Fortran entry points (lower-case mpi_x_, pmpi_x_, mpi_x_f08_, MPICH's
# pmpir_x_f08ts_, upper-case MPI_X) they define.

# templates/probes/: mwlink.f is fixed form, so that any mpif.h can be
# included; calling MPI_INIT keeps the library even with --as-needed.
_FORTRAN_PROGRAMS = ("mwlink.f", "mwlink08.f90")
_FORTRAN_SYMBOL_RE = re.compile(r"^(p?mpi[rx]?_[a-z0-9_]+|P?MPIX?_[A-Z0-9_]+)$")
_FORTRAN_PROFILING_RE = re.compile(r"^pmpir?_[a-z0-9_]+_$")


def _ldd(exe: str) -> tuple[list[str], list[str]]:
    """The shared libraries ldd lists for an executable, in order, and the
    names it lists as "not found"."""
    libs: list[str] = []
    missing: list[str] = []
    for line in _run(["ldd", exe], "listing the MPI's libraries").splitlines():
        absent = _LDD_MISSING_RE.match(line)
        if absent:
            missing.append(absent.group(1))
            continue
        match = _LDD_RE.search(line)
        path = match and (match.group(1) or match.group(2))
        if path and path not in libs:
            libs.append(path)
    return libs, missing


def _ldd_paths(exe: str) -> list[str]:
    """The shared libraries ldd lists for an executable, in order."""
    return _ldd(exe)[0]


def fortran_linked_libraries(mpifc: str) -> list[str]:
    """Shared libraries Fortran programs built with the MPI Fortran wrapper load.

    An mpif.h program must link; a ``use mpi_f08`` program is tried too, and
    its libraries are added when the MPI has that module.
    """
    cmd = shlex.split(mpifc)
    libs: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mpiwatch-fsymbols-") as tmp:
        for name in _FORTRAN_PROGRAMS:
            src = write_program(tmp, name)
            exe = os.path.join(tmp, name.split(".")[0])
            try:
                _run(cmd + [src, "-o", exe], "linking a test Fortran MPI program")
            except GenError:
                if name.endswith(".f"):
                    raise
                continue
            libs += [lib for lib in _ldd_paths(exe) if lib not in libs]
    return libs


def defined_fortran_symbols(library: str) -> set[str]:
    """The Fortran-looking MPI entry points a shared library defines."""
    return _defined_matching(library, _FORTRAN_SYMBOL_RE)


def fortran_library_symbols(mpifc: str) -> tuple[set[str], dict[str, str]]:
    """The Fortran entry points of the MPI's libraries, and which library defines each.

    Only libraries that define Fortran profiling entry points (``pmpi_x_``,
    ``pmpir_x_``) count as the MPI's Fortran libraries. Raises GenError if
    none does.
    """
    symbols: set[str] = set()
    owner: dict[str, str] = {}
    for lib in fortran_linked_libraries(mpifc):
        found = defined_fortran_symbols(lib)
        if not any(_FORTRAN_PROFILING_RE.match(name) for name in found):
            continue
        for name in found:
            owner.setdefault(name, lib)
        symbols |= found
    if not symbols:
        raise GenError("no library linked by the MPI Fortran compiler defines Fortran "
                       "profiling entry points (pmpi_x_)", mpifc)
    return symbols, owner


def link_flags(libraries: list[str]) -> list[str]:
    """-L/-l flags (or plain paths) that link the given shared libraries."""
    flags: list[str] = []
    for lib in libraries:
        folder, base = os.path.split(lib)
        match = re.match(r"^lib(.+?)\.so(\.[0-9.]+)?$", base)
        if match and os.path.exists(os.path.join(folder, f"lib{match.group(1)}.so")):
            for flag in (f"-L{folder}", f"-l{match.group(1)}"):
                if flag not in flags or flag.startswith("-l"):
                    flags.append(flag)
        else:
            flags.append(lib)
    return flags
