"""Fortran probe stage: what the MPI's Fortran side has, measured before generating.

Three facts, each from the MPI itself (or from files standing in for it):

- the Fortran entry points its libraries define (symbols.fortran_library_symbols,
  or --fortran-symbols-file);
- the argument lists of its modules (fmodule, or --fortran-module files);
- which layer its bindings call (layering.probe_layering, or the layering
  configure measured, --fortran-layering).

Probing compiles, links and runs small MPI programs (templates/probes/), so
it is a stage of its own, run before anything is reconciled or rendered; the
entry points and modules need nothing from the C side and are probed beside
it, the layering needs the C header's prototypes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import GenError
from .fmodule import ModuleInterfaces, ModuleProcedure, read_module, read_mpi_modules
from .layering import parse_layering, probe_layering
from .probe import HeaderInfo

UNMEASURED = "mpif:unknown;f08:unknown"


@dataclass(frozen=True)
class FortranSide:
    """The MPI's Fortran entry points and module interfaces."""

    symbols: frozenset[str]
    modules: ModuleInterfaces


@dataclass(frozen=True)
class FortranProbe:
    """Everything the Fortran reconcile stage needs from the MPI."""

    symbols: frozenset[str]
    modules: ModuleInterfaces
    layering: str


def _modules_from_files(paths: list[str]) -> ModuleInterfaces:
    procedures: dict[str, ModuleProcedure] = {}
    notes = []
    for path in paths:
        try:
            found = read_module(path)
        except (OSError, ValueError, EOFError) as err:
            raise GenError(f"cannot read the Fortran module: {err}", path) from None
        notes.append(f"module {path}: {len(found)} interfaces")
        for name, proc in found.items():
            procedures.setdefault(name, proc)
    found_names = tuple(os.path.basename(p).rsplit(".", 1)[0] for p in paths)
    return ModuleInterfaces(procedures, notes, found_names)


def probe_fortran_side(mpifc: str | None, symbols_file: str | None,
                       module_files: list[str]) -> FortranSide:
    """The MPI's Fortran entry points and module interfaces (or those of the
    given files). Needs nothing from the C side, so it may run beside it."""
    from .symbols import fortran_library_symbols, symbols_from_file
    if symbols_file:
        symbols = symbols_from_file(symbols_file)
    elif mpifc:
        symbols = fortran_library_symbols(mpifc)[0]
    else:
        raise GenError("the Fortran side needs --mpifc or --fortran-symbols-file")
    if module_files:
        modules = _modules_from_files(module_files)
    elif mpifc:
        modules = read_mpi_modules(mpifc)
    else:
        modules = ModuleInterfaces({}, ["no modules read: the standard's parameter lists "
                                        "are used"])
    return FortranSide(frozenset(symbols), modules)


def fortran_layering(given: str | None, mpicc: str, mpifc: str | None,
                     header: HeaderInfo) -> str:
    """The layering given (as configure measured it), else measured now when
    there is a Fortran compiler, else unknown; checked either way."""
    layering = given
    if not layering:
        layering = probe_layering(mpicc, mpifc, header)[0] if mpifc else UNMEASURED
    parse_layering(layering)
    return layering


def finish_probe(side: FortranSide, given_layering: str | None, mpicc: str,
                 mpifc: str | None, header: HeaderInfo) -> FortranProbe:
    """The whole probe: the Fortran side and the layering."""
    return FortranProbe(side.symbols, side.modules,
                        fortran_layering(given_layering, mpicc, mpifc, header))
