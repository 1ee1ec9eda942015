"""Tests of the Fortran entry points (fortran_reconcile.py, fmodule.py, layering.py),
without an MPI: a made-up MPI's Fortran symbols (fortran/symbols.txt), a
hand-written gfortran module (fortran/quirks.mod) and headers/golden.h.

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import gzip
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

from support import (CC, HEADERS, ROOT, compile_generated, generate, probe, reconciled,
                     shipped_spec)

from mpiwatch_gen.errors import GenError
from mpiwatch_gen.fmodule import ModuleInterfaces, parse_module_text, read_module
from mpiwatch_gen.fortran_reconcile import Shim, ShimParam, reconcile_fortran
from mpiwatch_gen.render import CALLS_FILE, COVERAGE_FILE, OUTPUT_FILES, SENTINELS_FILE
from mpiwatch_gen.layering import (BindingState, FortranBinding, Layer, Layering, _interposer,
                                   describe, parse_layering, summary)
from mpiwatch_gen.programs import program
from mpiwatch_gen.symbols import symbols_from_file

FORTRAN = ROOT / "tests" / "generator" / "fortran"
SYMBOLS = FORTRAN / "symbols.txt"
MODULE = FORTRAN / "quirks.mod"
LAYERING = ("mpif:Init=MPI_X,Comm_rank=MPI_X,Send=MPI_X,Finalize=MPI_X;"
            "f08:Init=PMPI_X,Comm_rank=PMPI_X,Send=MPI_X,Finalize=PMPI_X")
FORTRAN_ARGS = ("--fortran-symbols-file", str(SYMBOLS), "--fortran-module", str(MODULE),
                "--fortran-layering", LAYERING)


def fortran_result(modules: ModuleInterfaces | None = None, layering: str = LAYERING):
    """The Fortran reconciliation of golden.h with the made-up MPI."""
    if modules is None:
        modules = ModuleInterfaces(read_module(str(MODULE)), [])
    return reconcile_fortran(shipped_spec(), reconciled("golden.h"),
                             symbols_from_file(str(SYMBOLS)), modules, layering)


def shim(result, entry: str) -> Shim:
    for candidate in result.shims:
        if candidate.entry == entry:
            return candidate
    raise AssertionError(f"no shim for {entry}: {[s.entry for s in result.shims]}")


def status(result, binding: str, name: str) -> tuple[str, str]:
    for entry in result.coverage:
        if entry.binding == binding and entry.name == name:
            return entry.status, entry.detail
    raise AssertionError(f"{binding} {name} is not in the Fortran coverage")


class ModuleReaderTest(unittest.TestCase):
    """fmodule reads gfortran's module format, and refuses anything else."""

    def test_interfaces(self):
        procs = read_module(str(MODULE))
        self.assertEqual(sorted(procs), ["mpi_info_set", "mpi_pcontrol_f08", "mpi_wtime_f08"])
        pcontrol = procs["mpi_pcontrol_f08"]
        self.assertEqual([a.name for a in pcontrol.args], ["level", "ierror"])
        self.assertEqual([a.optional for a in pcontrol.args], [False, True])
        self.assertFalse(pcontrol.function)
        self.assertEqual(pcontrol.symbol, "mpi_pcontrol_f08_")
        self.assertEqual([a.character for a in procs["mpi_info_set"].args],
                         [False, True, True, False])

    def test_bind_c(self):
        wtime = read_module(str(MODULE))["mpi_wtime_f08"]
        self.assertTrue(wtime.function)
        self.assertEqual(wtime.bind_c, "MPI_Wtime")
        self.assertEqual(wtime.symbol, "MPI_Wtime")

    def test_compressed_module(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "quirks.mod"
            path.write_bytes(gzip.compress(MODULE.read_bytes()))
            self.assertEqual(read_module(str(path)).keys(), read_module(str(MODULE)).keys())

    def test_not_a_gfortran_module(self):
        with self.assertRaisesRegex(ValueError, "not a gfortran module"):
            parse_module_text("something else\n()\n")

    def test_unknown_version(self):
        with self.assertRaisesRegex(ValueError, "version 99"):
            parse_module_text("GFORTRAN module version '99' created from x.f90\n()\n")

    def test_unbalanced(self):
        with self.assertRaisesRegex(ValueError, "unbalanced"):
            parse_module_text("GFORTRAN module version '15' created from x.f90\n(()\n")


class ReconcileTest(unittest.TestCase):
    """Which entry points are wrapped, how, and why the others are not."""

    @classmethod
    def setUpClass(cls):
        cls.result = fortran_result()

    def test_mpif_four_spellings_forward_to_the_profiling_entry_point(self):
        init = shim(self.result, "mpi_init_")
        self.assertEqual(init.symbols, ("mpi_init", "mpi_init_", "mpi_init__", "MPI_INIT"))
        self.assertEqual(init.target, "pmpi_init_")
        self.assertEqual(init.function, "MPI_Init")
        self.assertEqual(init.lifecycle, "init")
        self.assertEqual(init.params, (ShimParam("ierror", False, "ierror", "ERROR_CODE"),))

    def test_profiling_spelling_is_the_one_the_mpi_defines(self):
        self.assertEqual(shim(self.result, "mpi_send_").target, "pmpi_send")

    def test_arguments_from_the_standard(self):
        send = shim(self.result, "mpi_send_")
        self.assertEqual([p.name for p in send.params],
                         ["buf", "count", "datatype", "dest", "tag", "comm", "ierror"])
        self.assertEqual(send.parameter_list.count("void *"), 7)
        self.assertEqual(send.source, "standard")

    def test_functions_return_the_c_type(self):
        wtime = shim(self.result, "mpi_wtime_")
        self.assertEqual(wtime.return_type, "double")
        self.assertEqual(wtime.params, ())
        self.assertEqual(wtime.parameter_list, "void")

    def test_pcontrol_without_varargs(self):
        pcontrol = shim(self.result, "mpi_pcontrol_")
        self.assertEqual([p.name for p in pcontrol.params], ["level"])
        self.assertEqual(pcontrol.lifecycle, "pcontrol")

    def test_module_wins_over_the_standard(self):
        pcontrol = shim(self.result, "mpi_pcontrol_f08_")
        self.assertEqual([p.name for p in pcontrol.params], ["level", "ierror"])
        self.assertIn("module mpi_pcontrol_f08", pcontrol.source)
        self.assertEqual(pcontrol.target, "pmpir_pcontrol_f08_")

    def test_variant_is_counted_as_its_function(self):
        cptr = shim(self.result, "mpi_send_cptr_")
        self.assertEqual(cptr.function, "MPI_Send")
        self.assertEqual(cptr.target, "pmpi_send_cptr_")
        self.assertIsNone(cptr.lifecycle)

    def test_f08_forms(self):
        self.assertEqual(shim(self.result, "mpi_init_f08_").target, "pmpi_init_f08_")
        ts = shim(self.result, "mpi_send_f08ts_")
        self.assertEqual((ts.function, ts.target, ts.symbols),
                         ("MPI_Send", "pmpir_send_f08ts_", ("mpi_send_f08ts_",)))
        large = shim(self.result, "mpi_send_f08ts_large_")
        self.assertEqual((large.function, large.target),
                         ("MPI_Send_c", "pmpir_send_f08ts_large_"))

    def test_reasons(self):
        cases = {
            ("f08", "mpi_finalize_f08_"): "no-pmpi",
            ("f08", "mpi_wtime_f08"): "c-layer",
            ("mpif", "mpi_type_extent_"): "not-in-standard",
            ("mpif", "mpix_comm_agree_"): "not-in-standard",
            ("mpif", "mpi_sizeof_*"): "no-c-wrapper",
            ("mpif", "mpi_f_sync_reg_"): "no-c-wrapper",
            ("mpif", "mpi_wtick_"): "no-c-wrapper",
            ("mpif", "mpi_barrier_"): "missing",
        }
        for (binding, name), expected in cases.items():
            with self.subTest(entry=name):
                self.assertEqual(status(self.result, binding, name)[0], expected)
        self.assertIn("Fortran-only", status(self.result, "mpif", "mpi_f_sync_reg_")[1])
        self.assertIn("not declared by mpi.h", status(self.result, "mpif", "mpi_wtick_")[1])

    def test_strategy(self):
        self.assertEqual(self.result.strategy, {"mpif": "forward", "f08": "forward"})

    def test_strategy_without_profiling_entry_points(self):
        result = reconcile_fortran(shipped_spec(), reconciled("golden.h"), {"mpi_send_"},
                                   ModuleInterfaces({}, []), LAYERING)
        self.assertEqual(result.shims, ())
        self.assertEqual(result.strategy, {"mpif": "c-layer", "f08": "none"})

    def test_spelling_counts(self):
        self.assertEqual(dict(self.result.spelling_counts("f08")),
                         {"mpi_x_f08_": 2, "mpi_x_f08ts_": 1, "mpi_x_f08ts_large_": 1})
        counts = dict(self.result.spelling_counts("mpif"))
        self.assertEqual(set(counts.values()), {len(self.result.shims_of("mpif"))})


class LayeringTest(unittest.TestCase):
    """The layering string configure records."""

    def test_parse(self):
        calls = parse_layering(LAYERING)
        self.assertEqual(summary(calls["mpif"]), "MPI_X")
        self.assertEqual(summary(calls["f08"]), "mixed")
        self.assertEqual(calls["f08"]["Send"], "MPI_X")

    def test_states(self):
        calls = parse_layering("mpif:unknown;f08:absent")
        self.assertEqual((calls["mpif"], calls["f08"]), ("unknown", "absent"))
        self.assertEqual(parse_layering("")["f08"], "unknown")

    def test_describe(self):
        self.assertEqual(describe(LAYERING),
                         "mpif.h/use mpi calls MPI_X; use mpi_f08 calls mixed (MPI_X: "
                         "MPI_Send; PMPI_X: MPI_Init, MPI_Comm_rank, MPI_Finalize)")

    def test_typed(self):
        layering = Layering.parse(LAYERING)
        self.assertIs(layering.calls[FortranBinding.F08]["Init"], Layer.PMPI_X)
        self.assertEqual(layering.summary(FortranBinding.MPIF), "MPI_X")
        self.assertIs(Layering.parse("mpif:absent").calls[FortranBinding.F08],
                      BindingState.UNKNOWN)
        with self.assertRaises(TypeError):
            layering.calls[FortranBinding.MPIF] = BindingState.ABSENT   # read-only

    def test_malformed(self):
        for text in ("mpif", "f77:unknown", "mpif:Init=C_X", "mpif:Wait=MPI_X",
                     "mpif:absent;mpif:absent"):
            with self.subTest(text=text):
                with self.assertRaises(GenError):
                    parse_layering(text)


class ProbeProgramTest(unittest.TestCase):
    """The probe programs come from templates/probes/."""

    def test_fortran_programs(self):
        self.assertIn("      call MPI_SEND(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 0,\n"
                      "     &              MPI_COMM_WORLD, ierr)\n", program("layer.f"))
        self.assertIn("  use mpi_f08\n", program("layer08.f90"))
        self.assertIn("      include 'mpif.h'\n", program("mwlink.f"))
        self.assertTrue(program("link.c").startswith("#include <mpi.h>\n"))

    def test_interposer_has_both_layers_of_each_probed_function(self):
        text = _interposer(probe("layering.h"))
        for short in ("Init", "Comm_rank", "Send", "Finalize"):
            self.assertIn(f" MPI_{short}(", text)
            self.assertIn(f" PMPI_{short}(", text)
            self.assertIn(f'fprintf(out, "{short}=%s\\n"', text)

    def test_interposer_compiles(self):
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "mpi.h").write_text(f'#include "{HEADERS / "layering.h"}"\n')
            src = Path(tmp, "interposer.c")
            src.write_text(_interposer(probe("layering.h")))
            done = subprocess.run([CC, "-fsyntax-only", f"-I{tmp}", str(src)],
                                  capture_output=True, text=True, check=False)
            self.assertEqual(done.returncode, 0, done.stderr)


class RenderTest(unittest.TestCase):
    """The generated Fortran files: what is written, and that it compiles."""

    def test_files_and_compile(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            result = generate("golden.h", str(out), "-q", *FORTRAN_ARGS)
            self.assertEqual(result.status, 0, result.stderr)
            for name in [*OUTPUT_FILES.values(), COVERAGE_FILE]:
                self.assertTrue((out / name).is_file(), name)
            mpif = (out / "fortran_mpif.c").read_text(encoding="utf-8")
            self.assertIn("MW_F_ALIAS(MPI_SEND, mw_f_mpi_send);", mpif)
            self.assertIn("mpiwatch_fortran_after_init(profiled, MW_ID_MPI_Init);", mpif)
            self.assertIn(f'"{LAYERING}"', mpif)
            f08 = (out / "fortran_f08.c").read_text(encoding="utf-8")
            self.assertIn("mpiwatch_fortran_exit(MW_ID_MPI_Send_c, __builtin_return_address(0));", f08)
            # The C wrapper's accounting, over the converted arguments.
            self.assertIn("mpiwatch_fortran_after_MPI_Send(__builtin_return_address(0), "
                          "mw_f_error(ierror),", mpif)
            self.assertIn("PMPI_Comm_f2c(*(const MPI_Fint *)comm)", mpif)
            calls = (out / CALLS_FILE).read_text(encoding="utf-8")
            self.assertIn("mw_note_send(&call, count, datatype, dest, tag, comm);", calls)
            sentinels = (out / SENTINELS_FILE).read_text(encoding="utf-8")
            self.assertIn("include 'mpif.h'", sentinels)
            coverage = (out / COVERAGE_FILE).read_text(encoding="utf-8")
            self.assertIn(f"# Layering (measured): {LAYERING}\n", coverage)
            done = compile_generated("golden.h", str(out))
            self.assertEqual(done.returncode, 0, done.stderr)

    def test_every_gate_has_a_slot_and_its_ways(self):
        # The gates jump through slots that libmpiwatch points (core/mode.h):
        # a gate without a table entry would stay at its profiled body, and a
        # fast way must be a fast body that fortran_calls.c defines.
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            result = generate("golden.h", str(out), "-q", *FORTRAN_ARGS)
            self.assertEqual(result.status, 0, result.stderr)
            calls = (out / CALLS_FILE).read_text(encoding="utf-8")
            fast_bodies = set(re.findall(r"MW_EXPORT void (mpiwatch_fortran_fast_\w+)\(", calls))
            self.assertIn("mpiwatch_fortran_fast_mw_f_mpi_send", fast_bodies)
            stubs = set(re.findall(r"MW_F_HANDOFF\((mpiwatch_fortran_handoff_\w+), ", calls))
            self.assertIn("mpiwatch_fortran_handoff_mw_f_mpi_send", stubs)
            self.assertNotIn("mpiwatch_fortran_handoff_mw_f_mpi_comm_rank", stubs)
            self.assertLessEqual(stubs, {s.replace("fast", "handoff") for s in fast_bodies})
            for binding, name in OUTPUT_FILES.items():
                with self.subTest(binding=binding):
                    shims = (out / name).read_text(encoding="utf-8")
                    gates = re.findall(r"MW_F_GATE\((\w+), \(.*?\), mw_f_slot_(\w+), (\w+)_on,\s+(\w+),",
                                       shims, re.S)
                    self.assertTrue(gates)
                    entries = re.findall(r"\{&mw_f_slot_(\w+),\s+\{\(void \*\)(\w+), "
                                         r"\(void \*\)\w+_on, \(void \*\)(\w+)\},\s+"
                                         r"(NULL|MW_F_HANDOFF_WAY\(\w+\))\}", shims)
                    table = {impl: (off, fast, handoff) for impl, off, fast, handoff in entries}
                    self.assertEqual(sorted(table), sorted(g[0] for g in gates))
                    for impl, slot, on, target in gates:
                        off, fast, handoff = table[impl]
                        self.assertEqual((slot, on, off), (impl, impl, target))
                        expected = f"mpiwatch_fortran_fast_{impl}"
                        self.assertEqual(fast, expected if expected in fast_bodies else f"{impl}_on")
                        # A hand-over stub (core/handoff.h) where fortran_calls.c
                        # defines one: the fast bodies that find a memo.
                        stub = f"mpiwatch_fortran_handoff_{impl}"
                        self.assertEqual(handoff, f"MW_F_HANDOFF_WAY({stub})" if stub in stubs else "NULL")
            # ierror is required in mpif.h and use mpi, optional in use mpi_f08.
            self.assertIn("mw_f_ierror(ierror)", calls.split("use mpi_f08 binding")[0])
            self.assertNotIn("mw_f_ierror(", calls.split("use mpi_f08 binding")[1])

    def test_a_hook_changes_no_shim_file(self):
        # A hook on MPI_Send takes its memo away (the hooked C wrapper keeps
        # none), so MPI_SEND never probes for the hand-over; but its stub and
        # slot-table entry stay, so that mpiwatch-gen --hooks --build compiles
        # fortran_calls.c again and not the shim files.
        with tempfile.TemporaryDirectory() as tmp:
            hooks = Path(tmp) / "tags.j2"
            hooks.write_text("{% macro after_MPI_Send(ctx) %}\n(void)({{ ctx.tag }});\n"
                             "{% endmacro %}\n", encoding="utf-8")
            plain, hooked = Path(tmp) / "plain", Path(tmp) / "hooked"
            for out, extra in ((plain, ()), (hooked, ("--hooks", str(hooks)))):
                result = generate("golden.h", str(out), "-q", *FORTRAN_ARGS, *extra)
                self.assertEqual(result.status, 0, result.stderr)

            def body(path):   # the file without its opening comment's lines
                text = path.read_text(encoding="utf-8")
                return text[text.index("*/"):]
            for name in OUTPUT_FILES.values():
                self.assertEqual(body(plain / name), body(hooked / name), name)
            probe_call = "mw_handoff_probed(mw_key, mw_calls, &mw_fortran_probed_mpif["
            stub = "MW_F_HANDOFF(mpiwatch_fortran_handoff_mw_f_mpi_send, "
            for out, probes in ((plain, True), (hooked, False)):
                calls = (out / CALLS_FILE).read_text(encoding="utf-8")
                send = calls[calls.index("mw_fortran_counted_mw_f_mpi_send("):]
                send = send[:send.index("MW_EXPORT void mpiwatch_fortran_fast_mw_f_mpi_send(")]
                self.assertEqual(probe_call in send, probes, out.name)
                self.assertIn(stub, calls, out.name)

    def test_no_fortran_without_asking(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out"
            self.assertEqual(generate("golden.h", str(out), "-q").status, 0)
            self.assertFalse((out / COVERAGE_FILE).exists())

    def test_bad_layering_is_one_error_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            result = generate("golden.h", tmp, "--fortran-symbols-file", str(SYMBOLS),
                              "--fortran-layering", "mpif:Init=maybe")
        self.assertEqual(result.status, 2)
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertIn("bad Fortran layering", result.stderr)

    def test_unreadable_module_is_one_error_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = Path(tmp) / "bad.mod"
            bad.write_text("not a module\n", encoding="utf-8")
            result = generate("golden.h", tmp, "--fortran-symbols-file", str(SYMBOLS),
                              "--fortran-module", str(bad), "--fortran-layering", LAYERING)
        self.assertEqual(result.status, 2)
        self.assertIn(f"{bad}: cannot read the Fortran module", result.stderr)


class MakefileTest(unittest.TestCase):
    """Makefile.am lists the Fortran outputs the generator writes."""

    @staticmethod
    def variable(name: str) -> list[str]:
        text = (ROOT / "Makefile.am").read_text(encoding="utf-8")
        match = re.search(rf"^{name}\s*=((?:.*\\\n)*.*)$", text, re.MULTILINE)
        if match is None:
            raise AssertionError(f"Makefile.am defines no {name}")
        return match.group(1).replace("\\\n", " ").split()

    def test_generated_fortran(self):
        self.assertEqual(sorted(self.variable("GENERATED_FORTRAN_C")),
                         sorted(f"generated/{name}" for name in OUTPUT_FILES.values()))
        self.assertEqual(self.variable("GENERATED_FORTRAN"),
                         ["$(GENERATED_FORTRAN_C)", f"generated/{COVERAGE_FILE}",
                          f"generated/{CALLS_FILE}", f"generated/{SENTINELS_FILE}"])


if __name__ == "__main__":
    unittest.main()
