"""Tests of what the generator reads of a header's handles and Fortran
interop (interop.py, generated/mw_mpi_interop.h): the MPICH way (MPI_Fint,
_c2f/_f2c macros: fake_types.h), the Open MPI way (MPI_Fint a macro, the
conversions functions) and the MPI 5.0 ABI's (pointer handles to incomplete
structs, _toint/_fromint, no Fortran interop: headers/abi_handles.h); and
that the wrappers and the runtime's headers compile against each.

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import os
import tempfile
import unittest
from pathlib import Path

from support import CC, compile_generated, generate, header, probe, reconciled, write_file

from mpiwatch_gen.errors import GenError
from mpiwatch_gen.interop import INTEROP_FILE, fortran_reason, interop
from mpiwatch_gen.probe import probe_header
from mpiwatch_gen.reconcile import reconcile
from support import shipped_spec

# The MPI compiler of an MPI 5.0 ABI build (tests/build/check-abi.sh sets it:
# the MPI Forum's stubs); the tests below read its real mpi.h.
ABI_MPICC = os.environ.get("MPIWATCH_ABI_MPICC", "")

# Open MPI's way: MPI_Fint is a macro, the conversions are functions.
OPEN_MPI_LIKE = """\
typedef struct ompi_communicator_t *MPI_Comm;
typedef struct ompi_datatype_t *MPI_Datatype;
typedef struct ompi_request_t *MPI_Request;
typedef struct ompi_status_public_t MPI_Status;
#define MPI_Fint int
MPI_Fint PMPI_Comm_c2f(MPI_Comm comm);
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm);
MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype);
MPI_Request PMPI_Request_f2c(MPI_Fint request);
int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int PMPI_Barrier(MPI_Comm comm);
"""
NO_CONVERSIONS = """\
typedef int MPI_Comm;
int PMPI_Barrier(MPI_Comm comm);
"""


class InteropTest(unittest.TestCase):
    """Each header's conversions and Fortran interop, as declared."""

    def test_mpich_way(self):
        found = interop(probe("golden.h"))
        self.assertEqual((found.int_type, found.to_int, found.from_int), ("MPI_Fint", "c2f", "f2c"))
        self.assertTrue(found.fortran)
        self.assertEqual(fortran_reason(found), "")

    def test_open_mpi_way(self):
        with tempfile.TemporaryDirectory() as tmp:
            found = interop(probe_header(CC, write_file(tmp, "ompi.h", OPEN_MPI_LIKE)))
        self.assertEqual((found.int_type, found.to_int), ("MPI_Fint", "c2f"))
        self.assertTrue(found.fortran)

    def test_abi_way(self):
        found = interop(probe("abi_handles.h"))
        self.assertEqual((found.int_type, found.to_int, found.from_int), ("int", "toint", "fromint"))
        self.assertFalse(found.fortran)
        reason = fortran_reason(found)
        self.assertIn("no Fortran interoperability", reason)
        self.assertIn("MPI_Fint", reason)
        self.assertIn("MPI_Status_f2c", reason)

    def test_no_conversion_is_a_located_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = write_file(tmp, "bare.h", NO_CONVERSIONS)
            with self.assertRaises(GenError) as caught:
                interop(probe_header(CC, path))
        self.assertEqual(caught.exception.where, path)
        self.assertIn("MPI_Comm_toint", caught.exception.message)
        self.assertIn("MPI_Comm_c2f", caught.exception.message)


class GeneratedInteropTest(unittest.TestCase):
    """generated/mw_mpi_interop.h follows the header; wrappers and the
    runtime's headers (handle caches, memos) compile against it."""

    def generated(self, header_name: str) -> tuple[str, str]:
        with tempfile.TemporaryDirectory() as tmp:
            out = str(Path(tmp) / "out")
            result = generate(header_name, out)
            self.assertEqual(result.status, 0, result.stderr)
            text = (Path(out) / INTEROP_FILE).read_text(encoding="utf-8")
            done = compile_generated(header_name, out)
        return text, done.stderr if done.returncode else ""

    def test_mpich_way_uses_c2f(self):
        text, errors = self.generated("golden.h")
        self.assertEqual(errors, "")
        self.assertIn("#define MW_MPI_FORTRAN 1", text)
        self.assertIn("typedef MPI_Fint mw_handle_int;", text)
        self.assertIn("#define mw_comm_to_int(comm) PMPI_Comm_c2f(comm)", text)
        self.assertIn("#define mw_type_from_int(i) PMPI_Type_f2c(i)", text)

    def test_abi_way_uses_toint(self):
        text, errors = self.generated("abi_handles.h")
        self.assertEqual(errors, "")
        self.assertIn("#define MW_MPI_FORTRAN 0", text)
        self.assertIn("typedef int mw_handle_int;", text)
        self.assertIn("#define mw_comm_to_int(comm) PMPI_Comm_toint(comm)", text)
        self.assertIn("#define mw_comm_from_int(i) PMPI_Comm_fromint(i)", text)
        self.assertIn("#define mw_type_from_int(i) PMPI_Type_fromint(i)", text)


class NewerStandardTest(unittest.TestCase):
    """A header of a newer standard than the spec: its functions the spec
    lacks are wrapped, and the coverage says why the spec does not know them."""

    def test_abi_functions_are_wrapped_and_explained(self):
        result = reconciled("abi_handles.h")
        wrapped = {w.name for w in result.wrappers}
        for name in ("MPI_Abi_get_version", "MPI_Comm_toint", "MPI_Comm_fromint",
                     "MPI_Type_fromint", "MPI_Send"):
            self.assertIn(name, wrapped)
        details = {e.name: e.detail for e in result.coverage}
        self.assertEqual(details["MPI_Comm_toint"],
                         "not in the spec (MPI 4.1; the header is MPI 5.0)")
        self.assertEqual(details["MPI_Send"], "standard")

    def test_older_header_keeps_its_wording(self):
        details = {e.name: e.detail for e in reconciled("mpix_extension.h").coverage}
        self.assertEqual(details["MPIX_Frobnicate"], "not in the standard")


@unittest.skipUnless(ABI_MPICC, "MPIWATCH_ABI_MPICC is not set (tests/build/check-abi.sh sets it)")
class RealAbiHeaderTest(unittest.TestCase):
    """The MPI Forum's ABI mpi.h, as the fixture abi_handles.h stands for it."""

    @classmethod
    def setUpClass(cls):
        cls.header = probe_header(ABI_MPICC)

    def test_handles_are_pointers_to_incomplete_structs(self):
        self.assertRegex(self.header.typedefs["MPI_Comm"], r"^typedef struct \w+ \*MPI_Comm$")
        self.assertNotIn("MPI_Fint", self.header.typedefs)
        self.assertNotIn("MPI_Fint", self.header.macros)

    def test_conversions_and_fortran(self):
        found = interop(self.header)
        self.assertEqual((found.int_type, found.to_int, found.from_int), ("int", "toint", "fromint"))
        self.assertFalse(found.fortran)

    def test_functions_of_5_0_are_wrapped_and_explained(self):
        result = reconcile(self.header, shipped_spec(), None)
        wrapped = {w.name for w in result.wrappers}
        details = {e.name: e.detail for e in result.coverage}
        for name in ("MPI_Abi_get_version", "MPI_Abi_get_info", "MPI_Comm_toint",
                     "MPI_Type_fromint"):
            self.assertIn(name, wrapped)
            self.assertEqual(details[name], "not in the spec (MPI 4.1; the header is MPI 5.0)")


if __name__ == "__main__":
    unittest.main()
