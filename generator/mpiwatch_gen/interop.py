"""What the MPI's header offers for handles as integers and for Fortran.

The runtime names a communicator by an integer (the live monitor's ids),
and keys a Fortran call's memo by the integer handles the program passed.
MPIs before 5.0 give MPI_Fint and MPI_X_c2f / MPI_X_f2c; the MPI 5.0
standard ABI's mpi.h has neither (its handles are pointers to incomplete
structs) but MPI_X_toint / MPI_X_fromint, and leaves Fortran to a separate
library. Which one a header has is read from its declarations here, and
only here: the generator writes it into generated/mw_mpi_interop.h for the
runtime, and configure asks this module whether libmpiwatch_f can be built
(``python3 -m mpiwatch_gen.interop --mpicc CC``).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from .errors import GenError
from .probe import HeaderInfo, probe_header

INTEROP_FILE = "mw_mpi_interop.h"
# The conversions the runtime calls (generated/mw_mpi_interop.h): (kind,
# direction), the direction's names being c2f/f2c or toint/fromint.
_CONVERTED = (("Comm", 0), ("Comm", 1), ("Type", 1))
# Without these, a Fortran argument cannot be turned into what the C
# accounting reads (runtime/fortran/convert.h).
_FORTRAN_NEEDS = ("MPI_Status_f2c", "MPI_Comm_f2c", "MPI_Type_f2c", "MPI_Request_f2c")


@dataclass(frozen=True)
class Interop:
    """How handles become integers, and whether Fortran interop exists."""

    int_type: str          # "MPI_Fint" or "int"
    to_int: str            # the conversions' suffixes: "c2f" / "f2c", "toint" / "fromint"
    from_int: str
    fortran_missing: str   # "" when the header has Fortran interop, else what it lacks

    @property
    def fortran(self) -> bool:
        return not self.fortran_missing


def _has(header: HeaderInfo, name: str) -> bool:
    """The header declares name (a function) or PMPI_name / name as a macro."""
    return (name in header.functions or name in header.mpi_declared
            or name in header.macros or f"P{name}" in header.macros)


def _has_type(header: HeaderInfo, name: str) -> bool:
    """A typedef, or a macro standing for a type (Open MPI's MPI_Fint)."""
    return name in header.typedefs or name in header.macros


def interop(header: HeaderInfo) -> Interop:
    """Read the header's handle conversions and Fortran interoperability."""
    fint = _has_type(header, "MPI_Fint")
    missing = ([] if fint else ["MPI_Fint"]) + [n for n in _FORTRAN_NEEDS if not _has(header, n)]
    fortran_missing = ", ".join(missing)
    for int_type, names in (("MPI_Fint", ("c2f", "f2c")), ("int", ("toint", "fromint"))):
        if (int_type == "int" or fint) and all(_has(header, f"MPI_{kind}_{names[way]}")
                                               for kind, way in _CONVERTED):
            return Interop(int_type, names[0], names[1], fortran_missing)
    raise GenError("the header declares no integer conversion of handles, which the "
                   "runtime needs: neither MPI_Fint with MPI_Comm_c2f, MPI_Comm_f2c and "
                   "MPI_Type_f2c, nor MPI_Comm_toint, MPI_Comm_fromint and MPI_Type_fromint "
                   "(MPI 5.0)", header.header)


def fortran_reason(found: Interop) -> str:
    """Why libmpiwatch_f cannot be built against this header ("" if it can)."""
    if found.fortran:
        return ""
    return (f"the MPI's mpi.h has no Fortran interoperability (no {found.fortran_missing}; "
            "the MPI 5.0 ABI leaves it to a separate library)")


def main(argv: list[str] | None = None) -> int:
    """For configure: print why Fortran cannot be built, or nothing."""
    parser = argparse.ArgumentParser(prog="python3 -m mpiwatch_gen.interop",
                                     description="What the MPI's mpi.h offers for "
                                                 "handles as integers and for Fortran.")
    parser.add_argument("--mpicc", required=True, help="the MPI C compiler wrapper")
    parser.add_argument("--print", choices=("fortran-reason",), default="fortran-reason",
                        help="fortran-reason: why libmpiwatch_f cannot be built (empty: it can)")
    args = parser.parse_args(argv)
    try:
        print(fortran_reason(interop(probe_header(args.mpicc))))
    except GenError as err:
        print(f"mpiwatch_gen.interop: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
