"""mpiwatch-gen --build: its checks of the install and of the MPI, without
an install or an MPI (tests/build/check-install-hooks.sh runs the real thing)."""

from __future__ import annotations

import os
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from support import CC, header, run_cli, write_file

from mpiwatch_gen.abi import abi_differences, parse_abi
from mpiwatch_gen.build import Build, Install, changed_sources, check_same_mpi
from mpiwatch_gen.errors import GenError

ABI = ("# MPI: Open MPI 4.1.4, MPI 3.1 (/x/mpi.h)\n"
       "MPI_Comm\ttypedef int MPI_Comm\nMPI_ANY_TAG\t(-1)\n")


class BuildCliTest(unittest.TestCase):
    """--build outside an install, or with an incomplete one: one clear error."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.addCleanup(self._tmp.cleanup)

    def run_build(self, environ: dict[str, str]):
        with mock.patch.dict(os.environ, environ, clear=False):
            for name in ("MPIWATCH_PKGLIBDIR", "MPIWATCH_PKGINCLUDEDIR"):
                if name not in environ:
                    os.environ.pop(name, None)
            return run_cli("--mpicc", CC, "--header", header("golden.h"), "--no-symbol-check",
                           "--build", str(Path(self.tmp) / "out"))

    def assert_error(self, result, *texts: str) -> None:
        self.assertEqual(result.status, 2, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        self.assertTrue(result.stderr.startswith("mpiwatch-gen: error: "), result.stderr)
        for text in texts:
            self.assertIn(text, result.stderr)

    def test_source_tree_is_refused(self):
        self.assert_error(self.run_build({}), "--build works from an installed mpiwatch-gen",
                          "--with-hooks")

    def test_missing_pieces_are_named(self):
        lib, inc = Path(self.tmp) / "lib", Path(self.tmp) / "include"
        lib.mkdir()
        inc.mkdir()
        result = self.run_build({"MPIWATCH_PKGLIBDIR": str(lib),
                                 "MPIWATCH_PKGINCLUDEDIR": str(inc)})
        self.assert_error(result, "lacks what --build needs", f"{lib}/build.conf",
                          f"{lib}/objects/c", f"{inc}/mw_wrap.h")


class AbiTest(unittest.TestCase):
    """The ABI record and its comparison."""

    def test_parse(self):
        described, items = parse_abi(ABI, "mpi-abi.txt")
        self.assertEqual(described, "Open MPI 4.1.4, MPI 3.1 (/x/mpi.h)")
        self.assertEqual(items, {"MPI_Comm": "typedef int MPI_Comm", "MPI_ANY_TAG": "(-1)"})

    def test_bad_line_is_located(self):
        with self.assertRaises(GenError) as caught:
            parse_abi("# MPI: x\nno tab here\n", "mpi-abi.txt")
        self.assertEqual(caught.exception.where, "mpi-abi.txt:2")

    def test_differences_ignore_additions(self):
        installed = {"MPI_Comm": "typedef int MPI_Comm", "MPI_ANY_TAG": "(-1)"}
        current = {"MPI_Comm": "typedef struct c *MPI_Comm", "MPI_NEW": "1"}
        self.assertEqual(abi_differences(installed, current),
                         ["MPI_ANY_TAG: not declared (installed: (-1))",
                          "MPI_Comm: typedef struct c *MPI_Comm (installed: typedef int MPI_Comm)"])


class CompareTest(unittest.TestCase):
    """What --build compiles again, and when it refuses the MPI."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        generated = Path(self._tmp.name) / "generated"
        generated.mkdir()
        write_file(generated, "wrap_send.c", "/*\n * Hooks: none\n */\nint send;\n")
        write_file(generated, "wrap_recv.c", "/*\n * Hooks: none\n */\nint recv;\n")
        write_file(generated, "mw_functions.h", "/* head */\nenum { A, B };\n")
        write_file(generated, "mpi-abi.txt", ABI)
        self.install = Install(self._tmp.name, self._tmp.name, {"MPICC": "mpicc.openmpi"})

    def test_only_changed_bodies_compile(self):
        files = {"wrap_send.c": "/*\n * Hooks: my.j2\n */\nint send;\nhook();\n",
                 "wrap_recv.c": "/*\n * Hooks: my.j2\n */\nint recv;\n",
                 "hook_definitions.c": "int defined;\n", "coverage.txt": "x"}
        self.assertEqual(changed_sources(self.install, files),
                         ["hook_definitions.c", "wrap_send.c"])

    def test_other_abi_is_refused(self):
        files = {"mpi-abi.txt": ABI.replace("typedef int", "typedef long"),
                 "mw_functions.h": "/* other head */\nenum { A, B };\n"}
        with self.assertRaises(GenError) as caught:
            check_same_mpi(self.install, files, "mpicc.other")
        self.assertIn("does not match the one the installed runtime was built for",
                      caught.exception.message)
        self.assertIn("MPI_Comm: typedef long MPI_Comm (installed: typedef int MPI_Comm)",
                      caught.exception.message)
        self.assertIn("--mpicc mpicc.openmpi", caught.exception.message)

    def test_other_functions_are_refused(self):
        files = {"mpi-abi.txt": ABI, "mw_functions.h": "/* head */\nenum { A, B, C };\n"}
        with self.assertRaises(GenError) as caught:
            check_same_mpi(self.install, files, "mpicc.other")
        self.assertIn("declares other MPI functions", caught.exception.message)

    def test_same_mpi_passes(self):
        files = {"mpi-abi.txt": ABI, "mw_functions.h": "/* another head */\nenum { A, B };\n"}
        check_same_mpi(self.install, files, "mpicc.openmpi")


class ObjectsTest(unittest.TestCase):
    """Each library links the installed objects, with those compiled now in
    their place."""

    def test_compiled_objects_replace_the_installed_ones(self):
        with tempfile.TemporaryDirectory() as tmp:
            for rel in ("objects/c/generated/wrap_send.o", "objects/c/runtime/core/clock.o",
                        "objects/f/generated/fortran_mpif.o"):
                path = Path(tmp) / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(b"")
            build = Build(Install(tmp, tmp, {}), "/src", "/out", "cc")
            build.compiled = ["fortran_mpif.c", "new.c", "wrap_send.c"]
            self.assertEqual(build.objects("c"), ["/out/obj/new.o", "/out/obj/wrap_send.o",
                                                  f"{tmp}/objects/c/runtime/core/clock.o"])
            self.assertEqual(build.objects("f"), ["/out/obj/fortran_mpif.o"])


if __name__ == "__main__":
    unittest.main()
