"""Tests of the reconcile stage: header x spec x library symbols.

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import json
import tempfile
import unittest

from support import (CC, header, header_line, probe, reconciled, shipped_spec, wrapper,
                     write_file)

from mpiwatch_gen.errors import GenError
from mpiwatch_gen.probe import probe_header
from mpiwatch_gen.reconcile import Reconciled, reconcile
from mpiwatch_gen.spec import SCHEMA, load_spec


def statuses(result: Reconciled) -> dict[str, tuple[str, str]]:
    """{name: (status, detail)} of a reconciliation's coverage."""
    return {entry.name: (entry.status, entry.detail) for entry in result.coverage}


def spec_param(name: str, kind: str, role: str, side: str | None = None,
               direction: str = "in") -> dict[str, object]:
    """One parameter entry of a hand-written spec."""
    return {"name": name, "kind": kind, "role": role, "side": side, "direction": direction,
            "length": None, "const": False, "large_only": False, "root_only": False,
            "optional": False, "bindings": ["c"]}


def write_spec(folder: str, functions: dict[str, list[dict[str, object]]],
               large: frozenset[str] = frozenset()) -> str:
    """A small spec file with the given functions (category by name); its path."""
    entries = {name: {"category": "other", "large_count": name in large, "return": "error",
                      "deprecated": False, "bindings": ["c"], "params": params}
               for name, params in functions.items()}
    doc = {"schema": SCHEMA, "source": "written by test_reconcile.py", "functions": entries}
    return write_file(folder, "spec.json", json.dumps(doc, indent=1))


class CoverageStatusTest(unittest.TestCase):
    """Each name gets exactly one of wrapped, macro, absent, missing."""

    def test_missing_large_count_variant(self):
        got = statuses(reconciled("missing_c_variant.h"))
        self.assertEqual(got["MPI_Send"], ("wrapped", "standard"))
        self.assertEqual(got["MPI_Send_c"], ("missing", "not declared by the header"))
        self.assertEqual(got["MPI_Recv_c"][0], "missing")

    def test_macro_with_and_without_prototype(self):
        result = reconciled("macro_function.h")
        got = statuses(result)
        self.assertEqual(got["MPI_Comm_f2c"],
                         ("macro", "#define MPI_Comm_f2c(comm) (MPI_Comm)(comm)"))
        self.assertEqual(got["MPI_Aint_add"][0], "macro")
        self.assertTrue(got["MPI_Aint_add"][1].startswith("#define MPI_Aint_add(base,"))
        self.assertEqual([w.name for w in result.wrappers], ["MPI_Barrier"])

    def test_absent_symbol(self):
        result = reconciled("absent_symbol.h", {"PMPI_Send", "MPI_Send"})
        status, detail = statuses(result)["MPI_Status_f082f"]
        line = header_line("absent_symbol.h", "PMPI_Status_f082f(")
        self.assertEqual(status, "absent")
        self.assertIn(f"{header('absent_symbol.h')}:{line}", detail)
        self.assertIn("no PMPI_Status_f082f symbol", detail)
        self.assertEqual([w.name for w in result.wrappers], ["MPI_Send"])

    def test_no_symbol_check_wraps_everything_declared(self):
        result = reconciled("absent_symbol.h", None)
        self.assertEqual(sorted(w.name for w in result.wrappers),
                         ["MPI_Send", "MPI_Status_f082f"])

    def test_mpix_is_wrapped_and_not_in_the_standard(self):
        result = reconciled("mpix_extension.h")
        self.assertEqual(statuses(result)["MPIX_Frobnicate"], ("wrapped", "not in the standard"))
        self.assertEqual(statuses(result)["MPI_Barrier"], ("wrapped", "standard"))

    def test_every_standard_c_name_listed_once(self):
        result = reconciled("golden.h")
        names = [entry.name for entry in result.coverage]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(names, sorted(names))
        spec = shipped_spec()
        expected = {f.name for f in spec.functions.values() if "c" in f.bindings}
        expected |= {f.name + "_c" for f in spec.functions.values()
                     if "c" in f.bindings and f.large_count}
        self.assertEqual(set(names), expected)

    def test_counts_add_up(self):
        result = reconciled("macro_function.h")
        total = sum(result.count(s) for s in ("wrapped", "macro", "absent", "missing"))
        self.assertEqual(total, len(result.coverage))
        self.assertEqual((result.count("wrapped"), result.count("macro")), (1, 2))
        self.assertEqual(result.count("wrapped"), len(result.wrappers))


class CategoryTest(unittest.TestCase):
    """Categories come from the spec, or from the name when it has none."""

    def test_mpix_category_by_name(self):
        result = reconciled("mpix_extension.h")
        self.assertEqual(wrapper(result, "MPIX_Comm_revoke").category, "communicator")
        self.assertEqual(wrapper(result, "MPIX_Frobnicate").category, "other")

    def test_mpix_summary_and_no_roles(self):
        frob = wrapper(reconciled("mpix_extension.h"), "MPIX_Frobnicate")
        self.assertIsNone(frob.spec)
        self.assertIn("not in the MPI standard", frob.summary)
        self.assertEqual([(p.name, p.spec) for p in frob.params], [("knob", None)])

    def test_standard_category_and_large_count(self):
        result = reconciled("golden.h")
        send, send_c = wrapper(result, "MPI_Send"), wrapper(result, "MPI_Send_c")
        self.assertEqual((send.category, send.large, send.summary), ("send", False, "send"))
        self.assertEqual((send_c.category, send_c.large, send_c.summary),
                         ("send", True, "send, large-count variant"))
        self.assertIs(send_c.spec, shipped_spec().functions["MPI_Send"])

    def test_lifecycle_roles(self):
        result = reconciled("golden.h")
        got = {w.name: w.lifecycle for w in result.wrappers}
        self.assertEqual(got, {"MPI_Init": "init", "MPI_Finalize": "finalize",
                               "MPI_Pcontrol": "pcontrol", "MPI_Wtime": None,
                               "MPI_Send": None, "MPI_Send_c": None})


class SignatureTest(unittest.TestCase):
    """The wrapper's parameter list is the header's; names fill in from the spec."""

    def test_mixed_const_reproduced(self):
        result = reconciled("mixed_const.h")
        self.assertEqual(wrapper(result, "MPI_Send").parameter_list,
                         "const void *buf, int count, MPI_Datatype datatype, int dest, "
                         "int tag, MPI_Comm comm")
        self.assertEqual(wrapper(result, "MPI_Send_init").parameter_list,
                         "void *buf, int count, MPI_Datatype datatype, int dest, int tag, "
                         "MPI_Comm comm, MPI_Request *request")
        self.assertEqual(wrapper(result, "MPI_Group_incl").parameter_list,
                         "MPI_Group group, int n, const int ranks[], MPI_Group *newgroup")
        self.assertEqual(wrapper(result, "MPI_Type_indexed").parameter_list,
                         "int count, int array_of_blocklengths[], "
                         "int array_of_displacements[], MPI_Datatype oldtype, "
                         "MPI_Datatype *newtype")

    def test_unnamed_parameters_take_the_spec_names(self):
        result = reconciled("unnamed_params.h")
        send = wrapper(result, "MPI_Send")
        self.assertEqual(send.arguments, "buf, count, datatype, dest, tag, comm")
        self.assertEqual(send.parameter_list,
                         "const void *buf, int count, MPI_Datatype datatype, int dest, "
                         "int tag, MPI_Comm comm")
        self.assertEqual(wrapper(result, "MPI_Group_incl").parameter_list,
                         "MPI_Group group, int n, const int ranks[], MPI_Group *newgroup")

    def test_unnamed_parameters_without_spec_are_numbered(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = write_file(tmp, "unnamed_mpix.h",
                              f'#include "{header("fake_types.h")}"\n'
                              "int PMPIX_Unnamed(int, MPI_Comm);\n")
            info = probe_header(CC, path)
        frob = wrapper(reconcile(info, shipped_spec(), None), "MPIX_Unnamed")
        self.assertEqual(frob.parameter_list, "int arg0, MPI_Comm arg1")
        self.assertEqual(frob.arguments, "arg0, arg1")

    def test_return_types_and_void(self):
        result = reconciled("aint_return.h")
        aint_add, wtime = wrapper(result, "MPI_Aint_add"), wrapper(result, "MPI_Wtime")
        self.assertEqual((aint_add.return_type, aint_add.parameter_list),
                         ("MPI_Aint", "MPI_Aint base, MPI_Aint disp"))
        self.assertEqual((wtime.return_type, wtime.parameter_list, wtime.arguments),
                         ("double", "void", ""))
        self.assertTrue(wtime.returns_value)

    def test_variadic_keeps_the_ellipsis(self):
        pcontrol = wrapper(reconciled("variadic_pcontrol.h"), "MPI_Pcontrol")
        self.assertEqual(pcontrol.parameter_list, "const int level, ...")
        self.assertEqual(pcontrol.arguments, "level")

    def test_roles_joined_by_position(self):
        send = wrapper(reconciled("unnamed_params.h"), "MPI_Send")
        self.assertEqual([(p.name, p.spec.role, p.spec.side) for p in send.params],
                         [("buf", "buffer", "send"), ("count", "count", "send"),
                          ("datatype", "datatype", "send"), ("dest", "peer", "send"),
                          ("tag", "tag", None), ("comm", "comm", None)])


class HandWrittenSpecTest(unittest.TestCase):
    """Reconciling with a small spec written by the test."""

    def test_parameter_count_mismatch_is_located(self):
        with tempfile.TemporaryDirectory() as tmp:
            spec = load_spec(write_spec(tmp, {"MPI_Barrier": [
                spec_param("comm", "COMMUNICATOR", "comm"),
                spec_param("extra", "TAG", "tag")]}))
        with self.assertRaises(GenError) as caught:
            reconcile(probe("macro_function.h"), spec, None)
        line = header_line("macro_function.h", "int PMPI_Barrier(")
        self.assertEqual(caught.exception.where, f"{header('macro_function.h')}:{line}")
        message = caught.exception.message
        self.assertIn("MPI_Barrier has 1 parameters (MPI_Comm)", message)
        self.assertIn("the standard gives 2 (comm, extra)", message)

    def test_missing_comes_from_the_spec(self):
        # MPI_Comm_f2c, a macro neither declared nor in this spec, is not
        # listed (no more than the header's other macros, MPI_VERSION...).
        with tempfile.TemporaryDirectory() as tmp:
            spec = load_spec(write_spec(tmp, {
                "MPI_Barrier": [spec_param("comm", "COMMUNICATOR", "comm")],
                "MPI_Ibarrier": [spec_param("comm", "COMMUNICATOR", "comm"),
                                 spec_param("request", "REQUEST", "request", None, "out")]},
                large=frozenset({"MPI_Ibarrier"})))
        result = reconcile(probe("macro_function.h"), spec, None)
        self.assertEqual(statuses(result), {
            "MPI_Aint_add": ("macro", probe("macro_function.h").macros["MPI_Aint_add"].text),
            "MPI_Barrier": ("wrapped", "standard"),
            "MPI_Ibarrier": ("missing", "not declared by the header"),
            "MPI_Ibarrier_c": ("missing", "not declared by the header")})
        self.assertEqual(wrapper(result, "MPI_Barrier").category, "other")


if __name__ == "__main__":
    unittest.main()
