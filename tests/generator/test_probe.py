"""Tests of the probe stage: what a header declares and defines.

Each header in headers/ holds one quirk of real MPI headers; cc stands in
for the MPI compiler wrapper. Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import tempfile
import unittest

from support import CC, HEADERS, header, header_line, probe, write_file

from mpiwatch_gen.cparse import neutralise_gnu, parse_preprocessed
from mpiwatch_gen.errors import GenError
from mpiwatch_gen.probe import parse_macros, probe_header


def param_types(info, name: str) -> list[str]:
    """The declared parameter types of one function of a probed header."""
    return [p.type_text() for p in info.functions[name].params]


class HeaderDiscoveryTest(unittest.TestCase):
    """Where the header is found, and what is said about it."""

    def test_given_header_is_the_one_reported(self):
        info = probe("golden.h")
        self.assertEqual(info.header, header("golden.h"))
        self.assertIn(header("fake_types.h"), info.files)

    def test_mpi_h_is_found_from_the_line_markers(self):
        with tempfile.TemporaryDirectory() as tmp:
            mpi_h = write_file(tmp, "mpi.h", f'#include "{header("golden.h")}"\n')
            info = probe_header(CC, None, ["-I", tmp])
        self.assertEqual(info.header, mpi_h)
        self.assertIn("MPI_Send", info.functions)

    def test_version_from_the_version_macros(self):
        self.assertEqual(probe("golden.h").version, "MPI 4.1")

    def test_mpi_and_pmpi_declarations_are_told_apart(self):
        info = probe("mixed_const.h")
        self.assertEqual(sorted(info.functions),
                         ["MPI_Group_incl", "MPI_Send", "MPI_Send_init", "MPI_Type_indexed"])
        self.assertEqual(info.mpi_declared, set(info.functions))

    def test_location_names_the_pmpi_declaration(self):
        info = probe("mixed_const.h")
        line = header_line("mixed_const.h", "int PMPI_Send_init(")
        self.assertEqual(info.functions["MPI_Send_init"].location,
                         f"{header('mixed_const.h')}:{line}")


class MixedConstTest(unittest.TestCase):
    """const is recorded exactly as declared, function by function."""

    @classmethod
    def setUpClass(cls):
        cls.info = probe("mixed_const.h")

    def test_const_buffer(self):
        self.assertEqual(param_types(self.info, "MPI_Send")[0], "const void *")

    def test_older_non_const_buffer(self):
        self.assertEqual(param_types(self.info, "MPI_Send_init")[0], "void *")

    def test_const_array(self):
        self.assertEqual(self.info.functions["MPI_Group_incl"].params[2].declaration("ranks"),
                         "const int ranks[]")

    def test_non_const_arrays(self):
        self.assertEqual(param_types(self.info, "MPI_Type_indexed")[1:3], ["int []", "int []"])


class AttributesTest(unittest.TestCase):
    """GNU attributes, __extension__ and __restrict do not stop the parse."""

    @classmethod
    def setUpClass(cls):
        cls.info = probe("attributes.h")

    def test_every_prototype_is_read(self):
        self.assertEqual(sorted(self.info.functions),
                         ["MPI_Barrier", "MPI_Comm_rank", "MPI_Send"])

    def test_restrict_is_dropped_from_the_types(self):
        self.assertEqual(param_types(self.info, "MPI_Send")[0], "const void *")
        self.assertEqual(param_types(self.info, "MPI_Comm_rank"), ["MPI_Comm", "int *"])

    def test_lines_are_kept_after_multiline_attributes(self):
        for name, text in (("MPI_Barrier", "int PMPI_Barrier("),
                           ("MPI_Comm_rank", "int PMPI_Comm_rank(")):
            line = header_line("attributes.h", text)
            self.assertEqual(self.info.functions[name].location,
                             f"{header('attributes.h')}:{line}", name)

    def test_syntax_error_after_an_attribute_is_located(self):
        with self.assertRaises(GenError) as caught:
            probe_header(CC, header("attributes_broken.h"))
        line = header_line("attributes_broken.h", "MPI_Comm comm int *size")
        self.assertEqual(line, 15)
        self.assertEqual(caught.exception.where, f"{header('attributes_broken.h')}:{line}")
        self.assertIn("cannot parse the header", caught.exception.message)


class ReturnTypesTest(unittest.TestCase):
    """Return types other than int, and the variadic function."""

    def test_aint_and_double_returns(self):
        info = probe("aint_return.h")
        self.assertEqual(info.functions["MPI_Aint_add"].return_type, "MPI_Aint")
        self.assertEqual(info.functions["MPI_Wtime"].return_type, "double")

    def test_void_parameter_list_is_empty(self):
        wtime = probe("aint_return.h").functions["MPI_Wtime"]
        self.assertEqual(wtime.params, ())
        self.assertFalse(wtime.variadic)

    def test_variadic_pcontrol(self):
        pcontrol = probe("variadic_pcontrol.h").functions["MPI_Pcontrol"]
        self.assertTrue(pcontrol.variadic)
        self.assertEqual([(p.name, p.type_text()) for p in pcontrol.params],
                         [("level", "const int")])


class UnnamedParamsTest(unittest.TestCase):
    """Prototypes without parameter names keep their types."""

    def test_names_are_none_and_types_kept(self):
        info = probe("unnamed_params.h")
        self.assertEqual([p.name for p in info.functions["MPI_Send"].params], [None] * 6)
        self.assertEqual(param_types(info, "MPI_Group_incl"),
                         ["MPI_Group", "int", "const int []", "MPI_Group *"])


class MacroTest(unittest.TestCase):
    """#defines of MPI names are recorded with their text."""

    def test_function_like_macros_from_the_header(self):
        macros = probe("macro_function.h").macros
        f2c = macros["MPI_Comm_f2c"]
        self.assertTrue(f2c.function_like)
        self.assertEqual(f2c.text, "#define MPI_Comm_f2c(comm) (MPI_Comm)(comm)")
        self.assertTrue(macros["MPI_Aint_add"].function_like)

    def test_pmpi_prototype_of_a_macro_is_still_read(self):
        info = probe("macro_function.h")
        self.assertIn("MPI_Aint_add", info.functions)
        self.assertNotIn("MPI_Comm_f2c", info.functions)

    def test_parse_macros_tells_object_like_from_function_like(self):
        macros = parse_macros("#define MPI_Wtime PMPI_Wtime\n"
                              "#define MPIX_Query(x) ((x) + 1)\n"
                              "#define MPI_COMM_WORLD (MPI_Comm)0x44000000\n"
                              "#define NOT_MPI(x) x\n")
        self.assertEqual(sorted(macros), ["MPIX_Query", "MPI_COMM_WORLD", "MPI_Wtime"])
        self.assertFalse(macros["MPI_Wtime"].function_like)
        self.assertTrue(macros["MPIX_Query"].function_like)
        self.assertFalse(macros["MPI_COMM_WORLD"].function_like)


class MpixTest(unittest.TestCase):
    """Extensions are read like any other PMPI prototype."""

    def test_pmpix_prototypes_become_mpix_names(self):
        info = probe("mpix_extension.h")
        self.assertEqual(sorted(info.functions),
                         ["MPIX_Comm_revoke", "MPIX_Frobnicate", "MPI_Barrier"])


class ProbeErrorTest(unittest.TestCase):
    """Bad input is a GenError saying where, never another exception."""

    def test_syntax_error_names_file_and_line(self):
        with self.assertRaises(GenError) as caught:
            probe_header(CC, header("broken.h"))
        line = header_line("broken.h", "int *size))")
        self.assertEqual(caught.exception.where, f"{header('broken.h')}:{line}")

    def test_nonexistent_header(self):
        missing = str(HEADERS / "no-such-header.h")
        with self.assertRaises(GenError) as caught:
            probe_header(CC, missing)
        self.assertEqual(caught.exception.where, missing)
        self.assertIn("cannot read the header", caught.exception.message)

    def test_nonexistent_compiler(self):
        with self.assertRaises(GenError) as caught:
            probe_header("/nonexistent/mpicc", header("golden.h"))
        self.assertIn("'/nonexistent/mpicc' was not found", caught.exception.message)

    def test_empty_compiler(self):
        with self.assertRaises(GenError) as caught:
            probe_header("  ", header("golden.h"))
        self.assertIn("--mpicc", caught.exception.message)

    def test_preprocessor_failure(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = write_file(tmp, "bad.h", '#include "no-such-include.h"\n')
            with self.assertRaises(GenError) as caught:
                probe_header(CC, bad)
        self.assertIn("preprocessing failed", caught.exception.message)
        self.assertIn("no-such-include.h", caught.exception.message)

    def test_header_without_pmpi_functions(self):
        with self.assertRaises(GenError) as caught:
            probe_header(CC, header("fake_types.h"))
        self.assertIn("declares no PMPI_ functions", caught.exception.message)

    def test_directory_is_not_a_header(self):
        with self.assertRaises(GenError) as caught:
            probe_header(CC, str(HEADERS))
        self.assertEqual(caught.exception.where, str(HEADERS))


class NeutraliseGnuTest(unittest.TestCase):
    """The GNU-extension filter keeps every line where it was."""

    # As a preprocessor writes it: a line marker, then the header's lines.
    SOURCE = ('# 1 "t.h"\n'
              '__attribute__((visibility("default")))\n'
              'int f(int *__restrict p)\n'
              '    __attribute__((__deprecated__(\n'
              '        "two "\n'
              '        "lines")));\n'
              '__extension__ typedef long long big;\n'
              'int g(void) __asm__("h");\n')

    def test_line_count_unchanged(self):
        self.assertEqual(neutralise_gnu(self.SOURCE).count("\n"), self.SOURCE.count("\n"))

    def test_extensions_removed(self):
        text = neutralise_gnu(self.SOURCE)
        for word in ("__attribute__", "__restrict", "__extension__", "__asm__", "deprecated"):
            self.assertNotIn(word, text)

    def test_result_parses_with_original_lines(self):
        ast = parse_preprocessed(self.SOURCE, "probe.c")
        where = {node.name: f"{node.coord.file}:{node.coord.line}" for node in ast.ext
                 if getattr(node, "name", None) in ("f", "big", "g")}
        self.assertEqual(where, {"f": "t.h:2", "big": "t.h:6", "g": "t.h:7"})

    def test_syntax_error_line_after_an_attribute(self):
        source = self.SOURCE + "int broken(int a int b);\n"
        with self.assertRaises(GenError) as caught:
            parse_preprocessed(source, "probe.c")
        self.assertEqual(caught.exception.where, "t.h:8")


if __name__ == "__main__":
    unittest.main()
