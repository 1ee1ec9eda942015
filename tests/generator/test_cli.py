"""Tests of the mpiwatch-gen command line: output on success, and one clear
line on stderr with exit status 2 for every kind of bad input.

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from support import (CC, HEADERS, ROOT, SPEC_PATH, CliResult, generate, header,
                     header_line, run_cli, write_file)

from mpiwatch_gen.roles import CATEGORIES

# wrap_*.c, mw_functions.[ch], mw_mpi_interop.h, hook_definitions.c, coverage, mpi-abi.txt
OUTPUT_COUNT = len(CATEGORIES) + 6


class TempDirTest(unittest.TestCase):
    """A test with a temporary folder."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.addCleanup(self._tmp.cleanup)


class BadInputTest(TempDirTest):
    """Each mistake gives exactly one error line naming where, and status 2."""

    def assert_one_error(self, result: CliResult, *expected: str) -> str:
        """Check the run failed cleanly; return the message after the prefix."""
        self.assertEqual(result.status, 2, result.stderr)
        self.assertNotIn("Traceback", result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith("mpiwatch-gen: error: "), lines[0])
        for text in expected:
            self.assertIn(text, lines[0])
        return lines[0][len("mpiwatch-gen: error: "):]

    def generate_with_hook(self, text: str, header_name: str = "hooks.h") -> tuple[CliResult, str]:
        """Run with one hook file holding text; return the result and its path."""
        hooks = write_file(self.tmp, "bad-hook.j2", text)
        return generate(header_name, str(Path(self.tmp) / "out"), "--hooks", hooks), hooks

    def test_nonexistent_header(self):
        missing = str(HEADERS / "no-such-header.h")
        self.assert_one_error(generate("no-such-header.h", self.tmp),
                              f"{missing}: cannot read the header")

    def test_nonexistent_mpi_compiler(self):
        result = run_cli("--mpicc", "/nonexistent/mpicc", "--header", header("golden.h"),
                         "--no-symbol-check", "--coverage")
        self.assert_one_error(result, "'/nonexistent/mpicc' was not found", "--mpicc")

    def test_header_that_does_not_parse(self):
        line = header_line("broken.h", "int *size))")
        message = self.assert_one_error(generate("broken.h", self.tmp))
        self.assertTrue(message.startswith(f"{header('broken.h')}:{line}: "
                                           "cannot parse the header: "), message)

    def test_header_syntax_error_after_attributes(self):
        message = self.assert_one_error(generate("attributes_broken.h", self.tmp))
        self.assertTrue(message.startswith(f"{header('attributes_broken.h')}:15: "), message)

    def test_broken_hook_template(self):
        result, hooks = self.generate_with_hook(
            "{% macro before_all(ctx) %}\n\n{% for %}\n{% endmacro %}\n")
        self.assert_one_error(result, f"{hooks}:3: template syntax error")

    def test_hook_naming_an_unknown_function(self):
        result, hooks = self.generate_with_hook(
            "{# hooks #}\n{% macro before_MPI_Sned(ctx) %}{% endmacro %}\n")
        self.assert_one_error(result, f"{hooks}:2:", "unknown function 'MPI_Sned'")

    def test_hook_naming_an_unknown_category(self):
        result, hooks = self.generate_with_hook(
            "\n\n{% macro after_colective(ctx) %}{% endmacro %}\n")
        self.assert_one_error(result, f"{hooks}:3:", "unknown category 'colective'")

    def test_hook_using_a_value_the_function_lacks(self):
        result, hooks = self.generate_with_hook(
            "{% macro before_all(ctx) %}{{ ctx.peer }}{% endmacro %}\n")
        message = self.assert_one_error(result, f"{hooks}:1:", "has no value 'peer'")
        # The first wrapper without a peer, in name order.
        self.assertIn("MPI_Barrier has no value 'peer'", message)

    def test_ambiguous_value(self):
        result, hooks = self.generate_with_hook(
            "{% macro before_MPI_Sendrecv(ctx) %}\n{{ ctx.count }}\n{% endmacro %}\n")
        self.assert_one_error(result, f"{hooks}:2:", "MPI_Sendrecv",
                              "use ctx.send.count or ctx.recv.count")

    def test_text_outside_macros(self):
        result, hooks = self.generate_with_hook(
            "#include <stdio.h>\n{% macro before_all(ctx) %}{% endmacro %}\n")
        self.assert_one_error(result, f"{hooks}:1:", "text outside a macro")

    def test_nonexistent_hook_file(self):
        missing = str(Path(self.tmp) / "missing.j2")
        result = generate("hooks.h", self.tmp, "--hooks", missing)
        self.assert_one_error(result, f"{missing}: cannot read the hook file")

    def test_spec_that_is_not_json(self):
        spec = write_file(self.tmp, "spec.json", '{"schema": "mpiwatch-spec/1",\n  "source": }\n')
        result = run_cli("--mpicc", CC, "--header", header("golden.h"), "--spec", spec,
                         "--no-symbol-check", "--coverage")
        self.assert_one_error(result, f"{spec}:2:", "invalid JSON")

    def test_nonexistent_spec(self):
        spec = str(Path(self.tmp) / "none.json")
        result = run_cli("--mpicc", CC, "--header", header("golden.h"), "--spec", spec,
                         "--no-symbol-check", "--coverage")
        self.assert_one_error(result, f"{spec}: cannot read spec")

    def test_nonexistent_symbols_file(self):
        symbols = str(Path(self.tmp) / "none.txt")
        result = run_cli("--mpicc", CC, "--header", header("golden.h"), "--spec",
                         str(SPEC_PATH), "--symbols-file", symbols, "--coverage")
        self.assert_one_error(result, f"{symbols}: cannot read the symbol list")

    def test_output_folder_that_cannot_be_made(self):
        blocker = write_file(self.tmp, "file", "")
        self.assert_one_error(generate("golden.h", os.path.join(blocker, "out")),
                              "cannot write the generated files")

    def test_python_error_in_a_user_template(self):
        folder = Path(self.tmp) / "templates"
        folder.mkdir()
        write_file(folder, "functions.h.j2", "/* ok */\n{{ wrappers[0].name + 1 }}\n")
        result = generate("golden.h", str(Path(self.tmp) / "out"), "--templates", str(folder))
        self.assert_one_error(result, f"{folder / 'functions.h.j2'}:2: template error: TypeError")

    def test_nothing_to_do(self):
        result = run_cli("--mpicc", CC, "--header", header("golden.h"), "--no-symbol-check")
        self.assert_one_error(result, "nothing to do: give --out DIR, --build DIR and/or --coverage")

    def test_no_traceback_from_the_real_command(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT / "generator"), PYTHONDONTWRITEBYTECODE="1")
        done = subprocess.run(
            [sys.executable, "-m", "mpiwatch_gen", "--mpicc", CC, "--header",
             header("broken.h"), "--no-symbol-check", "--coverage"],
            capture_output=True, text=True, env=env, check=False)
        self.assertEqual(done.returncode, 2)
        self.assertEqual(done.stdout, "")
        self.assertEqual(len(done.stderr.splitlines()), 1, done.stderr)
        self.assertRegex(done.stderr, r"^mpiwatch-gen: error: .*broken\.h:\d+: cannot parse")


class CoverageOutputTest(unittest.TestCase):
    """--coverage prints a summary line and one line per function."""

    def coverage(self, header_name: str, *extra: str) -> dict[str, tuple[str, str]]:
        """{name: (status, detail)} printed by --coverage."""
        result = run_cli("--mpicc", CC, "--header", header(header_name), "--spec",
                         str(SPEC_PATH), "--coverage", *(extra or ("--no-symbol-check",)))
        self.assertEqual(result.status, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        lines = result.stdout.splitlines()
        self.assertRegex(lines[0], r"^# MPI 4\.1: \d+ wrapped, \d+ macro, \d+ absent, "
                                   r"\d+ missing$")
        entries = {}
        for line in lines[1:]:
            name, status, detail = line.split(None, 2)
            entries[name] = (status, detail)
        return entries

    def test_missing_large_count_variant(self):
        got = self.coverage("missing_c_variant.h")
        self.assertEqual(got["MPI_Send"], ("wrapped", "standard"))
        self.assertEqual(got["MPI_Send_c"], ("missing", "not declared by the header"))

    def test_macro_shows_its_define(self):
        got = self.coverage("macro_function.h")
        self.assertEqual(got["MPI_Comm_f2c"], ("macro", "#define MPI_Comm_f2c(comm) "
                                                        "(MPI_Comm)(comm)"))
        self.assertEqual(got["MPI_Aint_add"][0], "macro")

    def test_absent_with_a_symbols_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            symbols = write_file(tmp, "symbols.txt", "# defined by the fake library\n"
                                                     "MPI_Send\nPMPI_Send\n\n")
            got = self.coverage("absent_symbol.h", "--symbols-file", symbols)
        self.assertEqual(got["MPI_Send"], ("wrapped", "standard"))
        self.assertEqual(got["MPI_Status_f082f"][0], "absent")

    def test_mpix_not_in_the_standard(self):
        got = self.coverage("mpix_extension.h")
        self.assertEqual(got["MPIX_Comm_revoke"], ("wrapped", "not in the standard"))

    def test_summary_counts(self):
        result = run_cli("--mpicc", CC, "--header", header("macro_function.h"), "--spec",
                         str(SPEC_PATH), "--coverage", "--no-symbol-check")
        first = result.stdout.splitlines()[0]
        self.assertTrue(first.startswith("# MPI 4.1: 1 wrapped, 2 macro, 0 absent, "), first)


class OutputRunTest(TempDirTest):
    """--out writes the files and says how many changed; -q says nothing."""

    def test_summary_on_stderr(self):
        result = generate("golden.h", self.tmp)
        self.assertEqual(result.status, 0, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertRegex(result.stderr,
                         rf"^mpiwatch-gen: MPI 4\.1: 6 wrapped, 0 macro, 0 absent, \d+ missing; "
                         rf"{OUTPUT_COUNT} of {OUTPUT_COUNT} files changed in ")
        self.assertEqual(len(os.listdir(self.tmp)), OUTPUT_COUNT)

    def test_quiet(self):
        result = generate("golden.h", self.tmp, "-q")
        self.assertEqual((result.status, result.stdout, result.stderr), (0, "", ""))

    def test_second_run_changes_nothing(self):
        generate("golden.h", self.tmp, "-q")
        again = generate("golden.h", self.tmp)
        self.assertIn(f" 0 of {OUTPUT_COUNT} files changed", again.stderr)

    def test_regenerate_command_in_each_file(self):
        generate("golden.h", self.tmp, "-q")
        text = (Path(self.tmp) / "wrap_send.c").read_text()
        # generate() passes --no-symbol-check: the command must repeat it.
        self.assertIn(f" * Regenerate: mpiwatch-gen --mpicc {CC} --header "
                      f"{header('golden.h')} --no-symbol-check --out {self.tmp}\n", text)

    def test_heads_give_paths_relative_to_the_source_tree(self):
        # The same text whatever the build folder or the machine's checkout.
        generate("golden.h", self.tmp, "-q")
        text = (Path(self.tmp) / "wrap_send.c").read_text()
        self.assertIn(" * Spec: spec/mpi-4.1.json\n", text)
        self.assertIn(" * MPI header: tests/generator/headers/golden.h (", text)

    def test_regenerate_command_given_by_the_build_system(self):
        generate("golden.h", self.tmp, "-q", "--regenerate", "make (in the build tree)")
        text = (Path(self.tmp) / "wrap_send.c").read_text()
        self.assertIn(" * Regenerate: make (in the build tree)\n", text)

    def test_regenerate_command_has_the_fortran_layering(self):
        symbols = ROOT / "tests" / "generator" / "fortran" / "symbols.txt"
        layering = "mpif:Init=PMPI_X;f08:unknown"
        generate("golden.h", self.tmp, "-q", "--fortran-symbols-file", str(symbols),
                 "--fortran-layering", layering)
        text = (Path(self.tmp) / "fortran_mpif.c").read_text()
        self.assertIn(f" --fortran-layering '{layering}' --fortran-symbols-file {symbols} "
                      f"--out {self.tmp}\n", text)

    def test_version(self):
        result = run_cli("--version")
        self.assertEqual(result.status, 0)
        self.assertRegex(result.stdout, r"^mpiwatch-gen \d+\.\d+\.\d+$")


if __name__ == "__main__":
    unittest.main()
