"""Tests of the render stage: golden wrappers, determinism, compiling the
output, and the build's lists of generator files and generated files.

Golden files: tests/generator/golden/NAME.c holds the expected wrapper of
NAME rendered from headers/golden.h without hooks, NAME-hooked.c the same
with the hook file GOLDEN_HOOKS below. After an intended change of the
templates, refresh them and review the difference before committing:

    MPIWATCH_UPDATE_GOLDEN=1 PYTHONPATH=generator python3 -m unittest \
        discover -s tests/generator -p test_render.py
    git diff tests/generator/golden

Run all the generator tests from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import difflib
import os
import re
import tempfile
import unittest
from pathlib import Path

from support import (GOLDEN, ROOT, compile_generated, generate, header, probe,
                     reconciled, write_file)

from mpiwatch_gen.errors import GenError
from mpiwatch_gen.render import BUILTIN_TEMPLATES, Provenance, output_files, write_outputs
from mpiwatch_gen.roles import CATEGORIES
from mpiwatch_gen.sysio import run, write_if_changed

UPDATE_GOLDEN = os.environ.get("MPIWATCH_UPDATE_GOLDEN") == "1"
GOLDEN_FUNCTIONS = ("MPI_Send", "MPI_Send_c", "MPI_Init", "MPI_Finalize", "MPI_Pcontrol",
                    "MPI_Wtime")
GOLDEN_HOOKS = """\
{% macro prelude() %}
#include <stdio.h>

extern long hook_calls;
{% endmacro %}

{% macro definitions() %}
long hook_calls;
{% endmacro %}

{% macro before_all(ctx) %}
hook_calls++;
{% endmacro %}

{% macro after_all(ctx) %}
if (hook_calls > 1000)
    fprintf(stderr, "{{ ctx.name }} returned %d\\n", (int){{ ctx.ret }});
{% endmacro %}

{% macro before_send(ctx) %}
fprintf(stderr, "{{ ctx.name }}: %lld bytes to %d\\n", {{ ctx.bytes }}, {{ ctx.peer }});
{% endmacro %}
"""
# Hooks asking for every kind of value, to compile against headers/hooks.h.
VALUE_HOOKS = """\
{% macro prelude() %}
void hook_note(const char *what, long long value);
{% endmacro %}

{% macro definitions() %}
void hook_note(const char *what, long long value)
{
    (void)what;
    (void)value;
}
{% endmacro %}

{% macro before_all(ctx) %}
{% if ctx.has("bytes") %}
hook_note("{{ ctx.name }} bytes", {{ ctx.bytes }});
{% endif %}
{% if ctx.has("comm") %}
hook_note("comm", (long long){{ ctx.comm }});
{% endif %}
{% endmacro %}

{% macro before_MPI_Sendrecv(ctx) %}
hook_note("send", {{ ctx.send.bytes }});
hook_note("recv", {{ ctx.recv.bytes }});
hook_note("from", {{ ctx.recv.peer }});
hook_note("tag", {{ ctx.arg.recvtag }});
{% endmacro %}

{% macro after_all(ctx) %}
hook_note("{{ ctx.id }}", (long long){{ ctx.ret }});
{% endmacro %}
"""


def extract_wrapper(text: str, name: str) -> str | None:
    """A wrapper's text: from its ``/* NAME: `` comment to its closing ``}``
    line or, when the wrapper is split in parts (profiled bodies first, the
    exported entry last), to the end of the exported definition of NAME."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(f"/* {name}: ")]
    if len(starts) != 1 or "}" not in lines[starts[0]:]:
        return None
    end = lines.index("}", starts[0])
    entries = [i for i, line in enumerate(lines[starts[0]:], starts[0])
               if line.startswith("MW_EXPORT ") and f" {name}(" in line
               and not line.endswith(";")]
    if entries and "}" in lines[entries[0]:]:
        end = lines.index("}", entries[0])
    return "\n".join(lines[starts[0]:end + 1]) + "\n"


def find_wrapper(out_dir: Path, name: str) -> str | None:
    """A wrapper's text from whichever wrap_*.c file holds it."""
    for path in sorted(out_dir.glob("wrap_*.c")):
        found = extract_wrapper(path.read_text(encoding="utf-8"), name)
        if found is not None:
            return found
    return None


def makefile_variable(name: str) -> list[str]:
    """The words of a variable of Makefile.am (continuation lines joined)."""
    text = (ROOT / "Makefile.am").read_text(encoding="utf-8")
    match = re.search(rf"^{name}\s*=((?:.*\\\n)*.*)$", text, re.MULTILINE)
    if match is None:
        raise AssertionError(f"Makefile.am defines no {name}")
    return match.group(1).replace("\\\n", " ").split()


def render_golden_header() -> dict[str, str]:
    """output_files() for golden.h, no hooks."""
    provenance = Provenance("golden.h", "MPI 4.1", "spec.json", (), "mpiwatch-gen --out DIR")
    return output_files(reconciled("golden.h"), probe("golden.h"), provenance,
                        [BUILTIN_TEMPLATES])


class GoldenTest(unittest.TestCase):
    """A few wrappers, one of each template, compared with golden/*.c."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        tmp = Path(cls._tmp.name)
        hooks = write_file(tmp, "golden-hooks.j2", GOLDEN_HOOKS)
        cls.outputs = {"": tmp / "plain", "-hooked": tmp / "hooked"}
        for out, extra in ((cls.outputs[""], ()), (cls.outputs["-hooked"], ("--hooks", hooks))):
            result = generate("golden.h", str(out), "-q", *extra)
            if result.status != 0:
                raise AssertionError(result.stderr)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def check_golden(self, name: str, suffix: str) -> None:
        """Compare one rendered wrapper with its golden file (or rewrite it)."""
        got = find_wrapper(self.outputs[suffix], name)
        self.assertIsNotNone(got, f"no wrapper of {name} in the output")
        # The hook file's #line directives name it where the test wrote it.
        got = got.replace(self._tmp.name, "TMPDIR")
        golden = GOLDEN / f"{name}{suffix}.c"
        if UPDATE_GOLDEN:
            GOLDEN.mkdir(exist_ok=True)
            write_if_changed(str(golden), got)
        self.assertTrue(golden.is_file(), f"{golden} is missing: run with "
                        "MPIWATCH_UPDATE_GOLDEN=1 to create it")
        expected = golden.read_text(encoding="utf-8")
        if got != expected:
            diff = "".join(difflib.unified_diff(
                expected.splitlines(keepends=True), got.splitlines(keepends=True),
                fromfile=str(golden), tofile=f"rendered {name}"))
            self.fail(f"{name}{suffix} differs from its golden file "
                      f"(MPIWATCH_UPDATE_GOLDEN=1 rewrites it):\n{diff}")

    def test_goldens_without_hooks(self):
        for name in GOLDEN_FUNCTIONS:
            with self.subTest(name=name):
                self.check_golden(name, "")

    def test_goldens_with_hooks(self):
        for name in GOLDEN_FUNCTIONS:
            with self.subTest(name=name):
                self.check_golden(name, "-hooked")

    def test_no_stray_golden_files(self):
        expected = {f"{name}{suffix}.c" for name in GOLDEN_FUNCTIONS for suffix in self.outputs}
        self.assertEqual({path.name for path in GOLDEN.glob("*")}, expected)


class WrapperShapeTest(unittest.TestCase):
    """What the quirk headers' wrappers must look like."""

    @classmethod
    def setUpClass(cls):
        cls._tmp = tempfile.TemporaryDirectory()
        cls.tmp = Path(cls._tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def rendered(self, header_name: str, name: str) -> str:
        """The wrapper of one function of a test header."""
        out = self.tmp / header_name
        if not out.is_dir():
            result = generate(header_name, str(out), "-q")
            self.assertEqual(result.status, 0, result.stderr)
        text = find_wrapper(out, name)
        self.assertIsNotNone(text, f"{name} not rendered from {header_name}")
        return text

    def test_aint_return(self):
        text = self.rendered("aint_return.h", "MPI_Aint_add")
        self.assertIn("MW_EXPORT MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp)\n", text)
        self.assertIn("    MPI_Aint ret = PMPI_Aint_add(base, disp);\n", text)

    def test_double_return(self):
        text = self.rendered("aint_return.h", "MPI_Wtime")
        self.assertIn("MW_EXPORT double MPI_Wtime(void)\n", text)
        self.assertIn("    double ret = PMPI_Wtime();\n", text)

    def test_variadic_pcontrol(self):
        text = self.rendered("variadic_pcontrol.h", "MPI_Pcontrol")
        self.assertIn("MW_EXPORT int MPI_Pcontrol(const int level, ...)\n", text)
        self.assertIn("    mw_on_pcontrol(level);\n", text)
        self.assertIn("    int ret = PMPI_Pcontrol(level);\n", text)

    def test_mixed_const_signatures(self):
        self.assertIn("MW_EXPORT int MPI_Send(const void *buf, int count,",
                      self.rendered("mixed_const.h", "MPI_Send"))
        self.assertIn("MW_EXPORT int MPI_Send_init(void *buf, int count,",
                      self.rendered("mixed_const.h", "MPI_Send_init"))
        self.assertIn("int n, const int ranks[], MPI_Group *newgroup)\n",
                      self.rendered("mixed_const.h", "MPI_Group_incl"))
        self.assertIn("MW_EXPORT int MPI_Type_indexed(int count, int array_of_blocklengths[], "
                      "int array_of_displacements[],",
                      self.rendered("mixed_const.h", "MPI_Type_indexed"))

    def test_unnamed_params_use_spec_names(self):
        text = self.rendered("unnamed_params.h", "MPI_Send")
        self.assertIn("MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, "
                      "int tag, MPI_Comm comm)\n", text)
        self.assertIn("PMPI_Send(buf, count, datatype, dest, tag, comm);", text)

    def test_mpix_wrapped_in_its_category_file(self):
        self.rendered("mpix_extension.h", "MPI_Barrier")
        out = self.tmp / "mpix_extension.h"
        self.assertIsNotNone(extract_wrapper((out / "wrap_other.c").read_text(),
                                             "MPIX_Frobnicate"))
        text = extract_wrapper((out / "wrap_communicator.c").read_text(), "MPIX_Comm_revoke")
        self.assertIn("/* MPIX_Comm_revoke: not in the MPI standard", text)

    def test_macros_are_not_wrapped(self):
        self.rendered("macro_function.h", "MPI_Barrier")
        out = self.tmp / "macro_function.h"
        for path in out.glob("*.c"):
            text = path.read_text()
            self.assertNotIn("MPI_Aint_add(", text, path.name)
            self.assertNotIn("MPI_Comm_f2c", text, path.name)
        self.assertNotIn("MW_ID_MPI_Aint_add", (out / "mw_functions.h").read_text())
        coverage = (out / "coverage.txt").read_text()
        self.assertRegex(coverage, r"(?m)^MPI_Comm_f2c +macro +#define MPI_Comm_f2c\(comm\) "
                                   r"\(MPI_Comm\)\(comm\)$")


class CompileTest(unittest.TestCase):
    """The generated C compiles (-Wall -Wextra -Werror) against each test header
    standing in as mpi.h, with the runtime's headers. Where a header declares
    the MPI_ prototypes too, this checks that the wrappers' signatures match."""

    def check_compiles(self, header_name: str, hooks: str | None = None) -> None:
        """Generate from one header (and hook text) and compile every .c file."""
        with tempfile.TemporaryDirectory() as tmp:
            extra = ("--hooks", write_file(tmp, "hooks.j2", hooks)) if hooks else ()
            out = str(Path(tmp) / "out")
            result = generate(header_name, out, "-q", *extra)
            self.assertEqual(result.status, 0, result.stderr)
            done = compile_generated(header_name, out)
        self.assertEqual(done.returncode, 0, f"{header_name}:\n{done.stderr}")

    def test_quirk_headers_compile(self):
        for name in ("golden.h", "mixed_const.h", "aint_return.h", "variadic_pcontrol.h",
                     "unnamed_params.h", "attributes.h", "mpix_extension.h",
                     "macro_function.h", "missing_c_variant.h", "hooks.h"):
            with self.subTest(header=name):
                self.check_compiles(name)

    def test_hooked_golden_compiles(self):
        self.check_compiles("golden.h", GOLDEN_HOOKS)

    def test_hook_values_compile(self):
        self.check_compiles("hooks.h", VALUE_HOOKS)

    def test_hook_c_error_names_the_hook_file_and_line(self):
        hooks = ("{% macro before_MPI_Send(ctx) %}\n"
                 "    int fine = 0; (void)fine;\n"
                 "    no_such_function_in_c({{ ctx.peer }});\n"
                 "{% endmacro %}\n")
        with tempfile.TemporaryDirectory() as tmp:
            hook_path = write_file(tmp, "broken.j2", hooks)
            out = str(Path(tmp) / "out")
            result = generate("golden.h", out, "-q", "--hooks", hook_path)
            self.assertEqual(result.status, 0, result.stderr)
            done = compile_generated("golden.h", out)
            self.assertNotEqual(done.returncode, 0)
            self.assertIn(f"{hook_path}:3:", done.stderr)
            # and the generated file's own lines are right after the hook code
            for path in Path(out).glob("*.c"):
                lines = path.read_text().split("\n")
                for i, line in enumerate(lines):
                    if line.strip().startswith(f'#line') and path.name in line:
                        self.assertEqual(line.strip(), f'#line {i + 2} "{path.name}"')


class DeterminismTest(unittest.TestCase):
    """Same input, same bytes; an unchanged regeneration writes nothing."""

    def test_rendering_twice_gives_identical_text(self):
        self.assertEqual(render_golden_header(), render_golden_header())

    def test_second_run_writes_no_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            first = generate("golden.h", str(out))
            self.assertEqual(first.status, 0, first.stderr)
            count = len(list(out.iterdir()))
            self.assertIn(f"{count} of {count} files changed", first.stderr)
            contents = {p.name: p.read_bytes() for p in out.iterdir()}
            for path in out.iterdir():
                os.utime(path, (1_000_000_000, 1_000_000_000))
            second = generate("golden.h", str(out))
            self.assertEqual(second.status, 0, second.stderr)
            self.assertIn(f"0 of {count} files changed", second.stderr)
            self.assertEqual({p.name: p.stat().st_mtime for p in out.iterdir()},
                             dict.fromkeys(contents, 1_000_000_000))
            self.assertEqual({p.name: p.read_bytes() for p in out.iterdir()}, contents)

    def test_only_a_deleted_file_is_rewritten(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            self.assertEqual(generate("golden.h", str(out), "-q").status, 0)
            (out / "wrap_send.c").unlink()
            again = generate("golden.h", str(out))
            self.assertIn(" 1 of ", again.stderr)
            self.assertTrue((out / "wrap_send.c").is_file())

    def test_write_if_changed(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = str(Path(tmp) / "f.c")
            self.assertTrue(write_if_changed(path, "int a;\n"))
            self.assertFalse(write_if_changed(path, "int a;\n"))
            self.assertTrue(write_if_changed(path, "int b;\n"))
            self.assertEqual(Path(path).read_text(), "int b;\n")
            self.assertEqual(os.listdir(tmp), ["f.c"])

    def test_run_never_raises(self):
        self.assertEqual(run(["sh", "-c", "echo out; echo err >&2; exit 3"]).returncode, 3)
        missing = run(["/nonexistent/mpicc", "-v"])
        self.assertEqual(missing.returncode, 127)
        self.assertIn("/nonexistent/mpicc was not found", missing.stderr)
        slow = run(["sleep", "5"], timeout=0.2)
        self.assertEqual(slow.returncode, 127)
        self.assertIn("did not finish", slow.stderr)

    def test_write_outputs_reports_changed_names(self):
        with tempfile.TemporaryDirectory() as tmp:
            files = {"a.c": "int a;\n", "b.c": "int b;\n"}
            self.assertEqual(write_outputs(files, tmp), ["a.c", "b.c"])
            self.assertEqual(write_outputs(dict(files, **{"b.c": "int c;\n"}), tmp), ["b.c"])

    def test_unwritable_output_is_a_gen_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            blocker = write_file(tmp, "file", "")
            with self.assertRaises(GenError) as caught:
                write_outputs({"a.c": ""}, os.path.join(blocker, "out"))
        self.assertIn("cannot write the generated files", caught.exception.message)


class OutputFilesTest(unittest.TestCase):
    """The set of files, and what heads each one."""

    @classmethod
    def setUpClass(cls):
        cls.files = render_golden_header()

    def test_one_wrapper_file_per_category(self):
        self.assertEqual(sorted(self.files),
                         sorted(["mw_functions.h", "mw_functions.c", "coverage.txt",
                                 "hook_definitions.c", "mpi-abi.txt"]
                                + [f"wrap_{c}.c" for c in CATEGORIES]))

    def test_every_file_says_where_it_came_from(self):
        for name, text in self.files.items():
            head = "\n".join(text.splitlines()[:6])
            with self.subTest(file=name):
                self.assertIn("Generated by mpiwatch-gen", head)
                self.assertIn("MPI header: golden.h (MPI 4.1)", head)
                self.assertIn("Regenerate: mpiwatch-gen --out DIR", head)

    def test_function_table(self):
        header_text = self.files["mw_functions.h"]
        ids = re.findall(r"^    (MW_ID_\w+),$", header_text, re.MULTILINE)
        self.assertEqual(ids, [f"MW_ID_{n}" for n in sorted(GOLDEN_FUNCTIONS)])
        self.assertIn('[MW_ID_MPI_Send_c] = "MPI_Send_c",', self.files["mw_functions.c"])
        self.assertIn('[MW_ID_MPI_Wtime] = "environment",', self.files["mw_functions.c"])

    def test_every_file_ends_with_a_newline(self):
        for name, text in self.files.items():
            self.assertTrue(text.endswith("\n"), name)

    def test_coverage_file_lists_every_status(self):
        coverage = self.files["coverage.txt"]
        self.assertIn("# Coverage of MPI 4.1: 6 wrapped, 0 macro, 0 absent,", coverage)
        self.assertRegex(coverage, r"(?m)^MPI_Send_c +wrapped +standard$")
        self.assertRegex(coverage, r"(?m)^MPI_Recv +missing +not declared by the header$")


class TemplateOverrideTest(unittest.TestCase):
    """--templates folders are searched before the shipped templates."""

    def test_user_template_replaces_a_shipped_one(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "wrapper").mkdir()
            write_file(Path(tmp) / "wrapper", "generic.c.j2",
                       "/* {{ w.name }}: custom */\n"
                       "MW_EXPORT {{ w.return_type }} {{ w.name }}({{ w.parameter_list }})\n"
                       "{\n    return P{{ w.name }}({{ w.arguments }});\n}\n")
            out = Path(tmp) / "out"
            result = generate("golden.h", str(out), "-q", "--templates", tmp)
            self.assertEqual(result.status, 0, result.stderr)
            self.assertEqual(find_wrapper(out, "MPI_Wtime"),
                             "/* MPI_Wtime: custom */\nMW_EXPORT double MPI_Wtime(void)\n"
                             "{\n    return PMPI_Wtime();\n}\n")
            self.assertIn("mw_on_init();", find_wrapper(out, "MPI_Init"))

    def test_broken_user_template_is_located(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "wrapper").mkdir()
            broken = write_file(Path(tmp) / "wrapper", "generic.c.j2",
                                "/* {{ w.name }}: */\n\n{% if %}\n")
            with self.assertRaises(GenError) as caught:
                output_files(reconciled("golden.h"), probe("golden.h"),
                             Provenance(header("golden.h"), "MPI 4.1", "spec", (), "cmd"),
                             [tmp, BUILTIN_TEMPLATES])
        self.assertEqual(caught.exception.where, f"{broken}:3")


class MakefileListsTest(unittest.TestCase):
    """Makefile.am lists what the generator reads and writes (for the stamp rule)."""

    def test_generated_c_matches_the_categories(self):
        listed = makefile_variable("GENERATED_C")
        wrap = [name for name in listed if name.startswith("generated/wrap_")]
        self.assertEqual(sorted(wrap), sorted(f"generated/wrap_{c}.c" for c in CATEGORIES))
        self.assertEqual(len(listed), len(set(listed)))

    def test_generated_files_are_what_the_generator_writes(self):
        listed = makefile_variable("GENERATED_FILES")
        self.assertEqual(listed[0], "$(GENERATED_C)")
        written = {f"generated/{name}" for name in render_golden_header()}
        self.assertEqual(set(makefile_variable("GENERATED_C")) | set(listed[1:]), written)

    def test_every_generator_module_is_listed(self):
        modules = sorted(str(p.relative_to(ROOT))
                         for p in (ROOT / "generator" / "mpiwatch_gen").glob("*.py"))
        self.assertEqual(sorted(makefile_variable("GENERATOR_FILES")), modules)

    def test_every_template_is_listed(self):
        examples = ROOT / "templates" / "hooks" / "examples"
        templates = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "templates").rglob("*.j2")
                           if examples not in p.parents)
        self.assertEqual(sorted(makefile_variable("TEMPLATE_FILES")), templates)

    def test_hook_examples_are_listed(self):
        examples = sorted(str(p.relative_to(ROOT))
                          for p in (ROOT / "templates" / "hooks" / "examples").glob("*.j2"))
        self.assertEqual(sorted(makefile_variable("HOOK_EXAMPLES")), examples)

    def test_every_runtime_file_is_listed(self):
        # A header missing from the lists is neither in the tarball nor installed
        # for mpiwatch-gen --build (traffic/inline.h once was).
        listed = set(makefile_variable("libmpiwatch_la_SOURCES"))
        listed |= set(makefile_variable("libmpiwatch_f_la_SOURCES"))
        # built with OTF2's flags into the archive writer libmpiwatch links
        listed |= set(makefile_variable("client_libmwotf2_la_SOURCES"))
        for word in list(listed):
            if word.startswith("$(") and word.endswith(")"):
                listed |= set(makefile_variable(word[2:-1]))
        files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "runtime").rglob("*.[ch]"))
        self.assertEqual([f for f in files if f not in listed], [])

    def test_stamp_rule_depends_on_the_lists(self):
        text = (ROOT / "Makefile.am").read_text(encoding="utf-8")
        rule = re.search(r"^generated/stamp:((?:.*\\\n)*.*)$", text, re.MULTILINE)
        self.assertIsNotNone(rule)
        for variable in ("GENERATOR_FILES", "TEMPLATE_FILES"):
            self.assertIn(f"$({variable}:%=$(srcdir)/%)", rule.group(1))


if __name__ == "__main__":
    unittest.main()
