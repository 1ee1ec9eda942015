"""Tests of the spec stage: roles vocabulary, derive_spec and load_spec.

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "generator") not in sys.path:
    sys.path.insert(0, str(ROOT / "generator"))

from mpiwatch_gen import derive_spec  # noqa: E402
from mpiwatch_gen.errors import GenError  # noqa: E402
from mpiwatch_gen.roles import (CATEGORIES, KIND_ROLES, ROLES,  # noqa: E402
                                SIDES, categorize, param_role, rank_role,
                                return_role)
from mpiwatch_gen.spec import SCHEMA, load_spec  # noqa: E402

SPEC = ROOT / "spec" / "mpi-4.1.json"
APIS = Path(os.environ.get("MPIWATCH_APIS_JSON",
                           ROOT.parent / "shared" / "mpi-standard" /
                           "apis.json"))


def sides(function):
    """{parameter name: (role, side)} of a SpecFunction."""
    return {p.name: (p.role, p.side) for p in function.params}


class ShippedSpecTest(unittest.TestCase):
    """The spec file shipped in spec/ loads and says what we expect."""

    @classmethod
    def setUpClass(cls):
        cls.spec = load_spec(str(SPEC))

    def test_loads_with_attribution(self):
        self.assertEqual(len(self.spec.functions), 481)
        self.assertIn("mpi-forum/pympistandard", self.spec.source)
        self.assertIn("MIT license", self.spec.source)
        self.assertEqual(self.spec.path, str(SPEC))

    def test_send_roles_and_sides(self):
        send = self.spec.functions["MPI_Send"]
        self.assertEqual(send.category, "send")
        self.assertTrue(send.large_count)
        self.assertEqual(send.return_role, "error")
        self.assertFalse(send.deprecated)
        self.assertEqual(send.bindings, frozenset({"c", "f08", "f90"}))
        self.assertEqual(sides(send), {
            "buf": ("buffer", "send"), "count": ("count", "send"),
            "datatype": ("datatype", "send"), "dest": ("peer", "send"),
            "tag": ("tag", None), "comm": ("comm", None),
            "ierror": ("error", None)})
        buf = send.params[0]
        self.assertEqual((buf.kind, buf.direction, buf.const, buf.length),
                         ("BUFFER", "in", True, None))
        self.assertEqual(send.params[-1].bindings, frozenset({"f08", "f90"}))
        self.assertEqual([p.name for p in send.c_params()],
                         ["buf", "count", "datatype", "dest", "tag", "comm"])

    def test_alltoallv_sides(self):
        alltoallv = self.spec.functions["MPI_Alltoallv"]
        self.assertEqual(alltoallv.category, "collective")
        got = sides(alltoallv)
        for name in ("sendbuf", "sendcounts", "sdispls", "sendtype"):
            self.assertEqual(got[name][1], "send", name)
        for name in ("recvbuf", "recvcounts", "rdispls", "recvtype"):
            self.assertEqual(got[name][1], "recv", name)
        self.assertEqual(got["sdispls"][0], "displacement")
        lengths = {p.name: p.length for p in alltoallv.params}
        self.assertEqual(lengths["sendcounts"], "*")

    def test_rma_and_reduction_sides(self):
        acc = sides(self.spec.functions["MPI_Get_accumulate"])
        self.assertEqual(acc["result_count"], ("count", "result"))
        self.assertEqual(acc["target_rank"], ("peer", "target"))
        self.assertEqual(acc["target_datatype"], ("datatype", "target"))
        cas = sides(self.spec.functions["MPI_Compare_and_swap"])
        self.assertEqual(cas["compare_addr"], ("buffer", "compare"))
        bcast = sides(self.spec.functions["MPI_Bcast"])
        self.assertEqual(bcast["buffer"], ("buffer", "send"))
        self.assertEqual(bcast["root"], ("root", None))
        contiguous = sides(self.spec.functions["MPI_Type_contiguous"])
        self.assertEqual(contiguous["count"], ("count", None))

    def test_large_count_functions(self):
        large = [f for f in self.spec.functions.values()
                 if f.large_count and "c" in f.bindings]
        self.assertEqual(len(large), 154)

    def test_c_params_large_only(self):
        contents = self.spec.functions["MPI_Type_get_contents"]
        small = [p.name for p in contents.c_params()]
        large = [p.name for p in contents.c_params(large=True)]
        self.assertNotIn("max_large_counts", small)
        self.assertIn("max_large_counts", large)
        self.assertEqual(len(large), len(small) + 2)
        init = self.spec.functions["MPI_Init"]
        self.assertEqual([p.name for p in init.c_params()], ["argc", "argv"])

    def test_lookup(self):
        send = self.spec.functions["MPI_Send"]
        self.assertEqual(self.spec.lookup("MPI_Send"), (send, False))
        self.assertEqual(self.spec.lookup("MPI_Send_c"), (send, True))
        f2c = self.spec.lookup("MPI_Comm_f2c")
        self.assertEqual(f2c[0].name, "MPI_Comm_f2c")
        self.assertFalse(f2c[1])
        self.assertEqual(self.spec.lookup("MPI_Comm_rank_c"), (None, False))
        self.assertEqual(self.spec.lookup("MPIX_Foo"), (None, False))
        self.assertEqual(self.spec.lookup("MPI_Nonexistent"), (None, False))

    def test_every_function_categorized(self):
        counts = {c: 0 for c in CATEGORIES}
        for function in self.spec.functions.values():
            counts[function.category] += 1
            self.assertEqual(function.category, categorize(function.name))
        self.assertEqual(counts["other"], 0)
        self.assertEqual(counts["send"], 13)
        self.assertEqual(counts["tools"], 51)

    @unittest.skipUnless(APIS.is_file(), "apis.json not available")
    def test_shipped_spec_is_up_to_date(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "spec.json")
            self.assertEqual(derive_spec.main([str(APIS), "-o", out]), 0)
            with open(out, encoding="utf-8") as fresh, \
                    open(SPEC, encoding="utf-8") as shipped:
                new, old = json.load(fresh), json.load(shipped)
        del new["generated_by"], old["generated_by"]
        self.assertEqual(new, old)


class RolesTest(unittest.TestCase):
    """The vocabulary in roles.py."""

    def test_vocabulary(self):
        self.assertEqual(len(ROLES), 28)
        self.assertIn("value", ROLES)
        self.assertEqual(SIDES, frozenset({"send", "recv", "origin",
                                           "target", "result", "compare"}))
        self.assertEqual(CATEGORIES[0], "environment")
        self.assertEqual(CATEGORIES[-1], "other")
        self.assertEqual(len(CATEGORIES), 19)
        self.assertTrue(set(KIND_ROLES.values()) <= ROLES)

    def test_kind_roles(self):
        self.assertEqual(param_role("C_BUFFER2", "x", "out"), "buffer")
        self.assertEqual(param_role("POLYXFER_NUM_ELEM_NNI", "n", "in"),
                         "count")
        self.assertEqual(param_role("RMA_DISPLACEMENT_NNI", "d", "in"),
                         "displacement")
        self.assertEqual(param_role("NO_SUCH_KIND", "x", "in"), "value")
        self.assertEqual(param_role("POLYDTYPE_NUM_ELEM", "stride", "in"),
                         "value")
        self.assertEqual(return_role("F90_COMM"), "value")
        self.assertEqual(return_role("COMMUNICATOR"), "comm")
        self.assertEqual(return_role("ERROR_CLASS"), "error")
        self.assertEqual(return_role("LOCATION_SMALL"), "displacement")

    def test_rank_role(self):
        self.assertEqual(rank_role("RANK", "root", "in"), "root")
        self.assertEqual(rank_role("RANK", "dest", "in"), "peer")
        self.assertEqual(rank_role("RANK", "source", "in"), "peer")
        self.assertEqual(rank_role("RANK_NNI", "target_rank", "in"), "peer")
        self.assertEqual(rank_role("RANK", "rank_source", "out"), "rank")
        self.assertEqual(rank_role("RANK", "source", "out"), "rank")
        self.assertEqual(rank_role("RANK", "rank", "out"), "rank")

    def test_categorize(self):
        samples = {
            "MPI_Send": "send", "MPI_Isend_c": "send",
            "MPI_Psend_init": "send", "MPIX_Issend": "send",
            "MPI_Imrecv": "recv", "MPI_Isendrecv_replace": "sendrecv",
            "MPI_Improbe": "probe", "MPI_Waitall": "completion",
            "MPI_Test_cancelled": "completion",
            "MPI_Request_get_status_any": "completion",
            "MPI_Pready_range": "completion", "MPI_Ibarrier": "collective",
            "MPI_Reduce_scatter_block_init_c": "collective",
            "MPI_Ineighbor_alltoallw": "collective",
            "MPI_Rget_accumulate": "rma", "MPI_Win_set_errhandler": "rma",
            "MPI_File_iread_at_all_c": "io", "MPI_Register_datarep_c": "io",
            "MPI_Comm_spawn": "communicator", "MPI_Open_port": "communicator",
            "MPIX_Comm_revoke": "communicator",
            "MPI_Topo_test": "topology", "MPI_Cartdim_get": "topology",
            "MPI_Group_range_incl": "group", "MPI_Type_vector_c": "datatype",
            "MPI_Get_elements_x": "datatype", "MPI_Op_create": "datatype",
            "MPI_Reduce_local_c": "datatype", "MPI_Info_get_string": "info",
            "MPI_Error_string": "errhandler",
            "MPI_Remove_error_class": "errhandler",
            "MPI_Attr_get": "attribute", "MPI_Session_init": "session",
            "MPI_T_pvar_read": "tools", "MPI_Init": "environment",
            "MPI_Comm_f2c": "environment", "MPI_Status_f082c": "environment",
            "MPI_Buffer_flush": "environment", "MPI_Wtime": "environment",
            "MPI_Frobnicate": "other",
        }
        for name, category in samples.items():
            self.assertEqual(categorize(name), category, name)


def minimal_spec():
    """A small valid spec document with one function, MPI_Foo."""
    def param(name, role, kind, side=None, length=None):
        return {"name": name, "kind": kind, "role": role, "side": side,
                "direction": "in", "length": length, "const": False,
                "large_only": False, "root_only": False, "optional": False,
                "bindings": ["c", "f08", "f90"]}
    return {
        "schema": SCHEMA, "source": "test", "generated_by": "hand",
        "functions": {"MPI_Foo": {
            "category": "send", "large_count": True, "return": "error",
            "deprecated": False, "bindings": ["c", "f08", "f90"],
            "params": [param("buf", "buffer", "BUFFER", "send", "*"),
                       param("count", "count", "POLYXFER_NUM_ELEM_NNI",
                             "send"),
                       param("comm", "comm", "COMMUNICATOR")]}}}


class LoadSpecErrorsTest(unittest.TestCase):
    """load_spec() rejects bad spec files with a located GenError."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "bad.json")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text):
        """Write ``text`` (str or bytes) as the spec file."""
        mode = "wb" if isinstance(text, bytes) else "w"
        with open(self.path, mode) as handle:
            handle.write(text)

    def error_for(self, doc):
        """The GenError message for spec document ``doc``."""
        self.write(json.dumps(doc))
        return self.error_for_file()

    def error_for_file(self):
        """The GenError message load_spec() gives for the written file."""
        with self.assertRaises(GenError) as caught:
            load_spec(self.path)
        return str(caught.exception)

    def mutated(self, change):
        """minimal_spec() after ``change(function, params_by_name)``."""
        doc = copy.deepcopy(minimal_spec())
        function = doc["functions"]["MPI_Foo"]
        change(function, {p["name"]: p for p in function["params"]})
        return doc

    def assert_param_error(self, change, param, *fragments):
        """The error names file, MPI_Foo, parameter ``param``, fragments."""
        message = self.error_for(self.mutated(change))
        self.assertIn(f"{self.path}: MPI_Foo: parameter '{param}': ",
                      message)
        for fragment in fragments:
            self.assertIn(fragment, message)

    def test_minimal_spec_is_valid(self):
        self.write(json.dumps(minimal_spec()))
        spec = load_spec(self.path)
        self.assertEqual(spec.functions["MPI_Foo"].params[1].role, "count")
        self.assertEqual(spec.lookup("MPI_Foo_c")[1], True)

    def test_unreadable_file(self):
        self.path = os.path.join(self.tmp.name, "missing.json")
        message = self.error_for_file()
        self.assertTrue(message.startswith(self.path + ": cannot read"))

    def test_not_utf8(self):
        self.write(b'{"schema": "\xff"}')
        self.assertIn(self.path, self.error_for_file())

    def test_invalid_json_has_line_and_column(self):
        self.write('{\n "schema": "mpiwatch-spec/1",\n "source": x\n}\n')
        message = self.error_for_file()
        self.assertTrue(message.startswith(f"{self.path}:3:12: invalid JSON"),
                        message)

    def test_not_an_object(self):
        self.write("[]")
        self.assertIn(self.path, self.error_for_file())

    def test_wrong_schema(self):
        doc = minimal_spec()
        doc["schema"] = "mpiwatch-spec/0"
        message = self.error_for(doc)
        self.assertIn(self.path, message)
        self.assertIn("mpiwatch-spec/1", message)

    def test_missing_function_key(self):
        message = self.error_for(self.mutated(
            lambda f, p: f.pop("category")))
        self.assertIn(f"{self.path}: MPI_Foo: ", message)
        self.assertIn("'category'", message)

    def test_missing_param_key(self):
        self.assert_param_error(lambda f, p: p["count"].pop("direction"),
                                "count", "'direction'")

    def test_unknown_role_lists_known_roles(self):
        self.assert_param_error(
            lambda f, p: p["count"].update(role="cnt"),
            "count", "unknown role \"cnt\"", "buffer", "value")

    def test_unknown_side(self):
        self.assert_param_error(lambda f, p: p["buf"].update(side="left"),
                                "buf", "unknown side", "origin")

    def test_unknown_category(self):
        message = self.error_for(self.mutated(
            lambda f, p: f.update(category="p2p")))
        self.assertIn(f"{self.path}: MPI_Foo: unknown category", message)
        self.assertIn("collective", message)

    def test_unknown_return_role(self):
        message = self.error_for(self.mutated(
            lambda f, p: f.update({"return": "int"})))
        self.assertIn(f"{self.path}: MPI_Foo: unknown role", message)

    def test_bad_direction(self):
        self.assert_param_error(
            lambda f, p: p["comm"].update(direction="sideways"),
            "comm", "unknown direction", "inout")

    def test_length_naming_no_parameter(self):
        self.assert_param_error(lambda f, p: p["buf"].update(length="n"),
                                "buf", "length \"n\"")
        self.assert_param_error(lambda f, p: p["buf"].update(length=""),
                                "buf", "length \"\"")

    def test_valid_lengths(self):
        for length in (None, "*", "count", "MPI_MAX_OBJECT_NAME"):
            self.write(json.dumps(self.mutated(
                lambda f, p: p["buf"].update(length=length))))
            function = load_spec(self.path).functions["MPI_Foo"]
            self.assertEqual(function.params[0].length, length)

    def test_wrong_type(self):
        self.assert_param_error(lambda f, p: p["buf"].update(const="yes"),
                                "buf", "'const' must be true or false")

    def test_bad_binding(self):
        self.assert_param_error(
            lambda f, p: p["buf"].update(bindings=["c", "cxx"]),
            "buf", "unknown binding")

    def test_duplicate_parameter(self):
        self.assert_param_error(
            lambda f, p: p["comm"].update(name="count"),
            "count", "duplicate parameter")

    def test_duplicate_key_in_parameter(self):
        text = json.dumps(minimal_spec()).replace(
            '"role": "comm"', '"role": "comm", "role": "comm"')
        self.write(text)
        message = self.error_for_file()
        self.assertIn(f"{self.path}: MPI_Foo: parameter 'comm': ", message)
        self.assertIn("duplicate key 'role'", message)

    def test_duplicate_function(self):
        doc = minimal_spec()
        entry = json.dumps(doc["functions"]["MPI_Foo"])
        doc["functions"] = {}
        text = json.dumps(doc).replace(
            '"functions": {}',
            f'"functions": {{"MPI_Foo": {entry}, "MPI_Foo": {entry}}}')
        self.write(text)
        message = self.error_for_file()
        self.assertIn(self.path, message)
        self.assertIn("duplicate function entry 'MPI_Foo'", message)

    def test_large_only_without_large_count(self):
        def change(function, params):
            function["large_count"] = False
            params["count"]["large_only"] = True
        self.assert_param_error(change, "count", "large_only")


def fixture_param(name, kind, direction="in", **extra):
    """One apis.json-like parameter (only the keys derive_spec reads)."""
    param = {"name": name, "kind": kind, "param_direction": direction,
             "constant": False, "length": None, "large_only": False,
             "optional": False, "root_only": False, "suppress": "",
             "desc": ""}
    param.update(extra)
    return param


def fixture_entry(name, params, return_kind="ERROR_CODE", **attributes):
    """One apis.json-like entry with the usual attributes."""
    attrs = {"c_expressible": True, "f08_expressible": True,
             "f90_expressible": True, "callback": False,
             "predefined_function": None, "deprecated": False}
    attrs.update(attributes)
    return {"name": name, "attributes": attrs, "parameters": params,
            "return_kind": return_kind, "name_f90": None}


IERROR = fixture_param("ierror", "ERROR_CODE", "out", optional=True,
                       suppress="c_parameter lis_parameter")

FIXTURE = {
    "mpi_send": fixture_entry("MPI_Send", [
        fixture_param("buf", "BUFFER", constant=True),
        fixture_param("count", "POLYXFER_NUM_ELEM_NNI"),
        fixture_param("datatype", "DATATYPE"),
        fixture_param("dest", "RANK"),
        fixture_param("tag", "TAG"),
        fixture_param("comm", "COMMUNICATOR"),
        IERROR]),
    "mpi_init": fixture_entry("MPI_Init", [
        fixture_param("argc", "ARGUMENT_COUNT", "inout",
                      suppress="lis_parameter f08_parameter f90_parameter"),
        fixture_param("argv", "ARGUMENT_LIST", "inout", length="argc",
                      suppress="lis_parameter f08_parameter f90_parameter"),
        IERROR]),
    "mpi_group_range_incl": fixture_entry("MPI_Group_range_incl", [
        fixture_param("n", "ARRAY_LENGTH"),
        fixture_param("ranges", "RANK", length=["n", "3"]),
        fixture_param("errcodes", "ERROR_CODE", "out", length=""),
        fixture_param("name", "STRING", "out", length="MPI_MAX_OBJECT_NAME")
    ], f08_expressible=False),
    "mpi_wtime": fixture_entry("MPI_Wtime", [], "WALL_TIME",
                               f90_expressible=False),
    "mpi_user_function": fixture_entry("MPI_User_function", [
        fixture_param("invec", "C_BUFFER3")], "NOTHING", callback=True),
    "mpi_null_copy_fn": fixture_entry(
        "MPI_NULL_COPY_FN", [], predefined_function="MPI_Copy_function"),
}

ALL = ["c", "f08", "f90"]


def expected_param(name, kind, role, side=None, direction="in", **extra):
    """A spec parameter as derive_spec should write it."""
    param = {"name": name, "kind": kind, "role": role, "side": side,
             "direction": direction, "length": None, "const": False,
             "large_only": False, "root_only": False, "optional": False,
             "bindings": ALL}
    param.update(extra)
    return param


EXPECTED_IERROR = expected_param("ierror", "ERROR_CODE", "error",
                                 direction="out", optional=True,
                                 bindings=["f08", "f90"])

EXPECTED_FUNCTIONS = {
    "MPI_Send": {
        "category": "send", "large_count": True, "return": "error",
        "deprecated": False, "bindings": ALL,
        "params": [
            expected_param("buf", "BUFFER", "buffer", "send", const=True),
            expected_param("count", "POLYXFER_NUM_ELEM_NNI", "count",
                           "send"),
            expected_param("datatype", "DATATYPE", "datatype", "send"),
            expected_param("dest", "RANK", "peer", "send"),
            expected_param("tag", "TAG", "tag"),
            expected_param("comm", "COMMUNICATOR", "comm"),
            EXPECTED_IERROR]},
    "MPI_Init": {
        "category": "environment", "large_count": False, "return": "error",
        "deprecated": False, "bindings": ALL,
        "params": [
            expected_param("argc", "ARGUMENT_COUNT", "value",
                           direction="inout", bindings=["c"]),
            expected_param("argv", "ARGUMENT_LIST", "value",
                           direction="inout", length="argc", bindings=["c"]),
            EXPECTED_IERROR]},
    "MPI_Group_range_incl": {
        "category": "group", "large_count": False, "return": "error",
        "deprecated": False, "bindings": ["c", "f90"],
        "params": [
            expected_param("n", "ARRAY_LENGTH", "value",
                           bindings=["c", "f90"]),
            expected_param("ranges", "RANK", "rank", length="n",
                           bindings=["c", "f90"]),
            expected_param("errcodes", "ERROR_CODE", "error",
                           direction="out", length="*",
                           bindings=["c", "f90"]),
            expected_param("name", "STRING", "string", direction="out",
                           length="MPI_MAX_OBJECT_NAME",
                           bindings=["c", "f90"])]},
    "MPI_Wtime": {
        "category": "environment", "large_count": False, "return": "value",
        "deprecated": False, "bindings": ["c", "f08"], "params": []},
}


class DeriveSpecTest(unittest.TestCase):
    """derive_spec on a small hand-written apis.json-like file."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.apis = os.path.join(self.tmp.name, "apis.json")
        self.out = os.path.join(self.tmp.name, "out.json")
        with open(self.apis, "w", encoding="utf-8") as handle:
            json.dump(FIXTURE, handle)

    def tearDown(self):
        self.tmp.cleanup()

    def run_main(self, *args):
        """Run derive_spec.main(args); return (status, stderr text)."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = derive_spec.main(list(args))
        return status, err.getvalue()

    def test_expected_output(self):
        self.assertEqual(self.run_main(self.apis, "-o", self.out), (0, ""))
        with open(self.out, encoding="utf-8") as handle:
            text = handle.read()
        self.assertTrue(text.endswith("}\n"))
        doc = json.loads(text)
        self.assertEqual(doc["schema"], "mpiwatch-spec/1")
        self.assertEqual(doc["source"], derive_spec.DEFAULT_SOURCE)
        self.assertEqual(doc["generated_by"],
                         "python3 -m mpiwatch_gen.derive_spec "
                         f"{self.apis} -o {self.out}")
        self.assertEqual(doc["functions"], EXPECTED_FUNCTIONS)
        spec = load_spec(self.out)
        self.assertEqual(sorted(spec.functions), sorted(EXPECTED_FUNCTIONS))

    def test_deterministic(self):
        self.run_main(self.apis, "-o", self.out)
        with open(self.out, "rb") as handle:
            first = handle.read()
        os.remove(self.out)
        self.run_main(self.apis, "-o", self.out)
        with open(self.out, "rb") as handle:
            self.assertEqual(handle.read(), first)

    def test_missing_input_is_one_line_error(self):
        missing = os.path.join(self.tmp.name, "none.json")
        status, err = self.run_main(missing, "-o", self.out)
        self.assertEqual(status, 2)
        self.assertTrue(err.startswith("mpiwatch-derive-spec: error: "))
        self.assertIn(missing, err)
        self.assertEqual(err.count("\n"), 1)

    def test_bad_input_is_located(self):
        broken = copy.deepcopy(FIXTURE)
        del broken["mpi_send"]["parameters"][1]["kind"]
        with open(self.apis, "w", encoding="utf-8") as handle:
            json.dump(broken, handle)
        status, err = self.run_main(self.apis, "-o", self.out)
        self.assertEqual(status, 2)
        self.assertIn(f"{self.apis}: MPI_Send: parameter 'count': ", err)
        self.assertFalse(os.path.exists(self.out))

    def test_help_as_module(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT / "generator"))
        result = subprocess.run(
            [sys.executable, "-m", "mpiwatch_gen.derive_spec", "--help"],
            capture_output=True, text=True, env=env, check=False)
        self.assertEqual(result.returncode, 0)
        self.assertIn("APIS_JSON", result.stdout)


if __name__ == "__main__":
    unittest.main()
