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
import subprocess
import tempfile

from .errors import GenError

_PROGRAM = """#include <mpi.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    return MPI_Finalize();
}
"""
_LDD_RE = re.compile(r"=>\s*(/\S+)|^\s*(/\S+)\s+\(")
_MPI_SYMBOL_RE = re.compile(r"^P?MPIX?_\w+$")


def _run(cmd: list[str], what: str) -> str:
    """Run a command and return its standard output, or raise GenError."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise GenError(f"{what}: '{cmd[0]}' was not found") from None
    except OSError as err:
        raise GenError(f"{what}: cannot run '{cmd[0]}': {err.strerror}") from None
    if done.returncode != 0:
        detail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise GenError(f"{what} failed: {detail}", " ".join(cmd[:1]))
    return done.stdout


def linked_libraries(compiler: str, cflags: list[str] | None = None) -> list[str]:
    """Shared libraries a program built with the MPI compiler wrapper loads."""
    cmd = shlex.split(compiler)
    with tempfile.TemporaryDirectory(prefix="mpiwatch-symbols-") as tmp:
        src = os.path.join(tmp, "link.c")
        exe = os.path.join(tmp, "link")
        with open(src, "w", encoding="utf-8") as out:
            out.write(_PROGRAM)
        _run(cmd + [*(cflags or []), src, "-o", exe], "linking a test MPI program")
        listing = _run(["ldd", exe], "listing the MPI's libraries")
    libs: list[str] = []
    for line in listing.splitlines():
        match = _LDD_RE.search(line)
        path = match and (match.group(1) or match.group(2))
        if path and path not in libs:
            libs.append(path)
    return libs


def defined_symbols(library: str) -> set[str]:
    """The MPI-named symbols a shared library defines."""
    out = _run(["nm", "-D", "--defined-only", library], f"reading the symbols of {library}")
    names: set[str] = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "TtWiV":
            name = parts[2].split("@", 1)[0]
            if _MPI_SYMBOL_RE.match(name):
                names.add(name)
    return names


def mpi_library_symbols(compiler: str, cflags: list[str] | None = None) -> tuple[set[str], list[str]]:
    """All PMPI_/MPI_ symbols defined by the MPI's libraries, and those libraries."""
    libs = linked_libraries(compiler, cflags)
    symbols: set[str] = set()
    used: list[str] = []
    for lib in libs:
        found = defined_symbols(lib)
        if found:
            symbols |= found
            used.append(lib)
    if not any(s.startswith("PMPI_") for s in symbols):
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
