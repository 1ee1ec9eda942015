"""Tests of the generator's messages when the MPI compiler wrapper's library
cannot be loaded (linked without an rpath, as the MPI 5.0 ABI stubs' mpicc
does) or when the compiler is not an MPI compiler at all. A fake MPI is made
here: a shared library defining PMPI_Init and a wrapper script that links
it with -L only.

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import os
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import CC, write_file

from mpiwatch_gen.errors import GenError
from mpiwatch_gen.probe import probe_header
from mpiwatch_gen.symbols import mpi_library_symbols

MPI_H = """\
int MPI_Init(int *argc, char ***argv);
int PMPI_Init(int *argc, char ***argv);
int MPI_Finalize(void);
int PMPI_Finalize(void);
"""
LIBRARY = """\
int PMPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
int MPI_Init(int *argc, char ***argv) { return PMPI_Init(argc, argv); }
int PMPI_Finalize(void) { return 0; }
int MPI_Finalize(void) { return PMPI_Finalize(); }
"""


class FakeMpiTest(unittest.TestCase):
    """A fake MPI in a temporary folder: include/mpi.h, lib/libfakempi.so."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self._tmp.cleanup)
        root = Path(self._tmp.name)
        self.include, self.lib = root / "include", root / "lib"
        self.include.mkdir()
        self.lib.mkdir()
        write_file(self.include, "mpi.h", MPI_H)
        source = write_file(root, "mpilib.c", LIBRARY)
        subprocess.run([CC, "-shared", "-fPIC", "-Wl,-soname,libfakempi.so.1", source, "-o",
                        str(self.lib / "libfakempi.so.1")], check=True)
        os.symlink("libfakempi.so.1", self.lib / "libfakempi.so")
        self.root = root
        # The loader must not find the library by chance.
        self._saved = os.environ.pop("LD_LIBRARY_PATH", None)
        self.addCleanup(self._restore)

    def _restore(self):
        if self._saved is not None:
            os.environ["LD_LIBRARY_PATH"] = self._saved

    def wrapper(self, name: str, link_flags: str) -> str:
        """A compiler wrapper script: cc with the fake MPI's flags."""
        path = self.root / name
        path.write_text(f'#!/bin/sh\nexec {CC} -I{self.include} "$@" {link_flags}\n',
                        encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)


class LibraryNotFoundTest(FakeMpiTest):
    """ldd says 'not found': the message names the library, the folder and the fixes."""

    def test_message_names_what_and_the_fix(self):
        mpicc = self.wrapper("mpicc", f"-L{self.lib} -lfakempi")
        with self.assertRaises(GenError) as caught:
            mpi_library_symbols(mpicc)
        message = caught.exception.message
        self.assertEqual(caught.exception.where, mpicc)
        self.assertIn("cannot load libfakempi.so.1", message)
        self.assertIn(f"links it from {self.lib} without an rpath", message)
        self.assertIn(f"LD_LIBRARY_PATH={self.lib}", message)
        self.assertIn(f'MPICC="{mpicc} -Wl,-rpath,{self.lib}"', message)
        self.assertNotIn("static-only", message)

    def test_the_fix_works(self):
        mpicc = self.wrapper("mpicc", f"-L{self.lib} -lfakempi")
        symbols, libraries = mpi_library_symbols(f"{mpicc} -Wl,-rpath,{self.lib}")
        self.assertIn("PMPI_Init", symbols)
        self.assertEqual([os.path.realpath(p) for p in libraries],
                         [str((self.lib / "libfakempi.so.1").resolve())])


class NotAnMpiCompilerTest(FakeMpiTest):
    """A plain C compiler given as the MPI compiler: said so, with the fix."""

    def test_compiler_that_finds_no_mpi_h(self):
        done = subprocess.run([CC, "-E", "-"], input="#include <mpi.h>\n", text=True,
                              capture_output=True, check=False)
        if done.returncode == 0:
            self.skipTest(f"{CC} finds an mpi.h of its own")
        with self.assertRaises(GenError) as caught:
            probe_header(CC)
        self.assertIn("finds no mpi.h: it is not an MPI compiler wrapper", caught.exception.message)
        self.assertIn("--mpicc (MPICC)", caught.exception.message)

    def test_compiler_that_links_no_mpi_library(self):
        compiler = f"{CC} -I{self.include}"
        with self.assertRaises(GenError) as caught:
            mpi_library_symbols(compiler)
        message = caught.exception.message
        self.assertIn("links no MPI library (undefined reference to MPI_Init)", message)
        self.assertIn("not an MPI compiler wrapper", message)
        self.assertEqual(caught.exception.where, compiler)


if __name__ == "__main__":
    unittest.main()
