"""The MPI's ABI as the installed runtime was compiled against it.

The runtime's objects hold the MPI's handle types, struct layouts and
constants as its mpi.h gave them. make install keeps this record
(mpi-abi.txt: every PMPI_ prototype, MPI_ typedef and MPI_ constant), and
mpiwatch-gen --build compares it with the MPI it is given, so that objects
compiled for one MPI are never linked against another whose headers differ.
"""

from __future__ import annotations

import hashlib

from .errors import GenError
from .probe import HeaderInfo

ABI_FILE = "mpi-abi.txt"
_MPI_LINE = "# MPI: "


def abi_items(header: HeaderInfo) -> dict[str, str]:
    """Name -> declaration text, for everything compiled code depends on."""
    items: dict[str, str] = {}
    for name, fn in header.functions.items():
        params = [p.type_text() for p in fn.params] + (["..."] if fn.variadic else [])
        items[f"P{name}"] = f"{fn.return_type} ({', '.join(params)})"
    for name, macro in header.macros.items():
        if name.startswith("MPI_") and not macro.function_like:
            parts = macro.text.split(None, 2)     # "#define", NAME, body
            items[name] = parts[2] if len(parts) == 3 else ""
    items.update(header.typedefs)
    return items


def abi_text(header: HeaderInfo, provenance: list[str]) -> str:
    """The record: where it came from, the MPI's description, a digest, then
    one item a line."""
    items = abi_items(header)
    body = "".join(f"{name}\t{value}\n" for name, value in sorted(items.items()))
    digest = hashlib.sha256(body.encode()).hexdigest()
    head = "".join(f"# {line}\n" for line in provenance)
    return (f"{head}# What code compiled against this MPI's header depends on "
            f"(mpiwatch-gen --build compares it).\n"
            f"{_MPI_LINE}{header.version} ({header.header})\n# sha256: {digest}\n{body}")


def parse_abi(text: str, where: str) -> tuple[str, dict[str, str]]:
    """The MPI's description and the items of a record."""
    description = ""
    items: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(_MPI_LINE):
            description = line[len(_MPI_LINE):]
        elif line and not line.startswith("#"):
            name, tab, value = line.partition("\t")
            if not tab:
                raise GenError("not an ABI record line (NAME<tab>VALUE)", f"{where}:{number}")
            items[name] = value
    return description, items


def abi_differences(installed: dict[str, str], current: dict[str, str]) -> list[str]:
    """What the installed runtime relies on that the current MPI declares
    otherwise or not at all (what the current MPI adds is harmless)."""
    found = []
    for name in sorted(installed):
        if name not in current:
            found.append(f"{name}: not declared (installed: {installed[name]})")
        elif current[name] != installed[name]:
            found.append(f"{name}: {current[name]} (installed: {installed[name]})")
    return found
