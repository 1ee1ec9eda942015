"""Tests of user hooks: lookup order, the named values, file-scope code, errors.

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path

from support import (generate, hooked, probe, reconciled, shipped_spec, wrapper,
                     write_file)

from mpiwatch_gen.errors import GenError
from mpiwatch_gen.hooks import LINE_RESTORE, HookContext, HookFile, HookValueError, apply_hooks
from mpiwatch_gen.roles import CATEGORIES

SEND_BYTES = "((long long)(count) * mpiwatch_type_size(datatype))"


def context(function: str, phase: str = "before", header_name: str = "hooks.h") -> HookContext:
    """The hook context of one function of a test header."""
    return HookContext(wrapper(reconciled(header_name), function), phase)


def known_names(header_name: str) -> set[str]:
    """The function names a hook file may name (header's and standard's)."""
    return set(probe(header_name).functions) | set(shipped_spec().functions)



def plain(code: str) -> str:
    """Hook code without the #line directives that locate it."""
    return "\n".join(line for line in code.split("\n") if not line.lstrip().startswith("#line"))


class TempDirTest(unittest.TestCase):
    """A test with a temporary folder, and helpers that use it."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.addCleanup(self._tmp.cleanup)

    def hook_error(self, text: str, header_name: str = "hooks.h") -> GenError:
        """The GenError that loading and applying a hook file raises."""
        with self.assertRaises(GenError) as caught:
            hooked(header_name, text, self.tmp)
        return caught.exception

    def hook_path(self) -> str:
        """Where hooked() writes the hook file."""
        return str(Path(self.tmp) / "hooks.j2")


class ContextValuesTest(unittest.TestCase):
    """The C expressions a hook gets, resolved from the parameters' roles."""

    def test_send_values(self):
        ctx = context("MPI_Send")
        got = (ctx.buffer, ctx.count, ctx.datatype, ctx.peer, ctx.tag, ctx.comm)
        self.assertEqual(got, ("buf", "count", "datatype", "dest", "tag", "comm"))

    def test_bytes_is_count_times_type_size(self):
        self.assertEqual(context("MPI_Send").bytes, SEND_BYTES)
        self.assertEqual(context("MPI_Send_c").bytes, SEND_BYTES)
        self.assertEqual(context("MPI_Bcast").bytes, SEND_BYTES)

    def test_name_id_category(self):
        ctx = context("MPI_Send_c")
        self.assertEqual((ctx.name, ctx.id, ctx.category),
                         ("MPI_Send_c", "MW_ID_MPI_Send_c", "send"))

    def test_sides_of_sendrecv(self):
        ctx = context("MPI_Sendrecv")
        self.assertEqual((ctx.send.count, ctx.send.datatype, ctx.send.peer, ctx.send.buffer),
                         ("sendcount", "sendtype", "dest", "sendbuf"))
        self.assertEqual((ctx.recv.count, ctx.recv.datatype, ctx.recv.peer, ctx.recv.buffer),
                         ("recvcount", "recvtype", "source", "recvbuf"))
        self.assertEqual(ctx.send.bytes,
                         "((long long)(sendcount) * mpiwatch_type_size(sendtype))")
        self.assertEqual(ctx.comm, "comm")

    def test_ambiguous_count_suggests_the_sides(self):
        with self.assertRaises(HookValueError) as caught:
            _ = context("MPI_Sendrecv").count
        self.assertEqual(caught.exception.message,
                         "MPI_Sendrecv has several 'count' values: "
                         "use ctx.send.count or ctx.recv.count")

    def test_ambiguous_without_sides_suggests_the_arguments(self):
        with self.assertRaises(HookValueError) as caught:
            _ = context("MPI_Type_indexed").datatype
        self.assertIn("use ctx.arg.oldtype or ctx.arg.newtype", caught.exception.message)

    def test_tags_have_the_side_of_their_peer(self):
        # The same view of the roles as moves.py: a tag follows its peer.
        ctx = context("MPI_Sendrecv")
        self.assertEqual((ctx.send.tag, ctx.recv.tag), ("sendtag", "recvtag"))
        with self.assertRaises(HookValueError) as caught:
            _ = ctx.tag
        self.assertIn("use ctx.send.tag or ctx.recv.tag", caught.exception.message)
        self.assertEqual((context("MPI_Send").tag, context("MPI_Send").send.tag), ("tag", "tag"))

    def test_arrays_give_no_bytes(self):
        ctx = context("MPI_Type_indexed")
        self.assertFalse(ctx.has("bytes"))
        with self.assertRaises(HookValueError) as caught:
            _ = ctx.count
        self.assertIn("ctx.arg.count or ctx.arg.array_of_blocklengths",
                      caught.exception.message)

    def test_arg_by_parameter_name(self):
        ctx = context("MPI_Sendrecv")
        self.assertEqual((ctx.arg.sendbuf, ctx.arg.recvtag, ctx.arg.status),
                         ("sendbuf", "recvtag", "status"))
        with self.assertRaises(HookValueError) as caught:
            _ = ctx.arg.buf
        self.assertIn("MPI_Sendrecv has no value 'arg.buf'", caught.exception.message)

    def test_missing_value_names_function_and_value(self):
        with self.assertRaises(HookValueError) as caught:
            _ = context("MPI_Barrier").peer
        self.assertEqual(caught.exception.message,
                         "MPI_Barrier has no value 'peer' (it has: category, comm, id, name)")

    def test_has(self):
        self.assertTrue(context("MPI_Send").has("peer"))
        self.assertFalse(context("MPI_Barrier").has("peer"))
        self.assertTrue(context("MPI_Bcast").has("root"))

    def test_ret_only_after(self):
        self.assertFalse(context("MPI_Wtime", "before").has("ret"))
        self.assertEqual(context("MPI_Wtime", "after").ret, "ret")
        self.assertEqual(context("MPI_Send", "after").ret, "ret")
        with self.assertRaises(HookValueError):
            _ = context("MPI_Send", "before").ret

    def test_mpix_has_only_its_identity(self):
        ctx = context("MPIX_Frobnicate", header_name="mpix_extension.h")
        self.assertEqual(ctx.name, "MPIX_Frobnicate")
        self.assertFalse(ctx.has("count"))
        self.assertEqual(ctx.arg.knob, "knob")


class LookupOrderTest(TempDirTest):
    """The most specific macro wins: function, then category, then all."""

    HOOKS = """
{% macro before_all(ctx) %}
all_before({{ ctx.name }});
{% endmacro %}
{% macro before_send(ctx) %}
category_before({{ ctx.name }});
{% endmacro %}
{% macro before_MPI_Send(ctx) %}
function_before({{ ctx.name }});
{% endmacro %}
{% macro after_all(ctx) %}
all_after({{ ctx.ret }});
{% endmacro %}
"""

    def setUp(self):
        super().setUp()
        result, _ = hooked("hooks.h", self.HOOKS, self.tmp)
        self.code = {w.name: (plain(w.before), plain(w.after)) for w in result.wrappers}

    def test_function_beats_category(self):
        self.assertEqual(self.code["MPI_Send"][0], "    function_before(MPI_Send);")

    def test_category_beats_all(self):
        self.assertEqual(self.code["MPI_Send_c"][0], "    category_before(MPI_Send_c);")

    def test_all_applies_to_the_rest(self):
        self.assertEqual(self.code["MPI_Barrier"][0], "    all_before(MPI_Barrier);")
        self.assertEqual(self.code["MPI_Wtime"][0], "    all_before(MPI_Wtime);")

    def test_phases_are_looked_up_separately(self):
        self.assertEqual({after for _, after in self.code.values()}, {"    all_after(ret);"})

    def test_several_hook_files_add_up_in_order(self):
        second = write_file(self.tmp, "second.j2",
                            "{% macro before_MPI_Barrier(ctx) %}second();{% endmacro %}\n")
        first = write_file(self.tmp, "first.j2",
                           "{% macro before_all(ctx) %}first();{% endmacro %}\n")
        result = reconciled("hooks.h")
        names = known_names("hooks.h")
        result = apply_hooks([HookFile(first, names), HookFile(second, names)], result)
        self.assertEqual(plain(wrapper(result, "MPI_Barrier").before), "    first();\n    second();")
        self.assertEqual(plain(wrapper(result, "MPI_Send").before), "    first();")

    def test_code_is_dedented_then_indented(self):
        text = ("{% macro before_MPI_Barrier(ctx) %}\n"
                "        if (x)\n"
                "            y();\n"
                "{% endmacro %}\n")
        result, _ = hooked("hooks.h", text, self.tmp)
        self.assertEqual(plain(wrapper(result, "MPI_Barrier").before), "    if (x)\n        y();")

    def test_code_names_the_hook_file_and_line(self):
        text = ("{# line 1 #}\n"
                "{% macro before_MPI_Barrier(ctx) %}\n"
                "        if (x)\n"
                "            y();\n"
                "{% endmacro %}\n")
        result, _ = hooked("hooks.h", text, self.tmp)
        lines = wrapper(result, "MPI_Barrier").before.split("\n")
        self.assertRegex(lines[0], r'^#line 3 ".*hooks\.j2"$')   # where "if (x)" is
        self.assertEqual(lines[-1], LINE_RESTORE)

    def test_empty_macro_gives_no_code(self):
        result, _ = hooked("hooks.h", "{% macro before_all(ctx) %}\n\n{% endmacro %}\n",
                           self.tmp)
        self.assertEqual({w.before for w in result.wrappers}, {""})

    def test_hook_for_a_standard_function_the_header_lacks(self):
        result, _ = hooked("hooks.h", "{% macro before_MPI_Recv(ctx) %}x();{% endmacro %}\n",
                           self.tmp)
        self.assertEqual({w.before for w in result.wrappers}, {""})

    def test_private_helper_macros(self):
        text = ("{% macro _log(what) %}log({{ what }});{% endmacro %}\n"
                "{% macro before_MPI_Send(ctx) %}{{ _log(ctx.peer) }}{% endmacro %}\n")
        result, _ = hooked("hooks.h", text, self.tmp)
        self.assertEqual(plain(wrapper(result, "MPI_Send").before), "    log(dest);")


class FileScopeTest(TempDirTest):
    """prelude() goes into every wrapper file that holds hook code (so that
    the others stay as without hooks), definitions() into one."""

    HOOKS = """{# Comments and blank lines outside macros are fine. #}

{% macro prelude() %}
extern int hook_prelude_marker;
{% endmacro %}

{% macro definitions() %}
int hook_prelude_marker = 42;
{% endmacro %}

{% macro after_MPI_Send(ctx) %}
hook_prelude_marker++;
{% endmacro %}
"""

    def setUp(self):
        super().setUp()
        hooks = write_file(self.tmp, "scope.j2", self.HOOKS)
        self.out = Path(self.tmp) / "out"
        result = generate("hooks.h", str(self.out), "--hooks", hooks, "-q")
        self.assertEqual(result.status, 0, result.stderr)

    def test_prelude_only_where_hook_code_is(self):
        wrap_files = sorted(self.out.glob("wrap_*.c"))
        self.assertEqual(len(wrap_files), len(CATEGORIES))
        holders = [path.name for path in wrap_files
                   if "extern int hook_prelude_marker;" in path.read_text()]
        self.assertEqual(holders, ["wrap_send.c"])

    def test_definitions_only_in_hook_definitions(self):
        holders = [path.name for path in sorted(self.out.iterdir()) if path.is_file()
                   and "hook_prelude_marker = 42;" in path.read_text()]
        self.assertEqual(holders, ["hook_definitions.c"])

    def test_file_scope_code_returned(self):
        _, code = hooked("hooks.h", self.HOOKS, self.tmp)
        self.assertEqual({k: plain(v) for k, v in code.items()},
                         {"prelude": "extern int hook_prelude_marker;",
                          "definitions": "int hook_prelude_marker = 42;"})

    def test_file_scope_code_names_the_hook_file(self):
        _, code = hooked("hooks.h", self.HOOKS, self.tmp)
        first = code["prelude"].split("\n")[0]
        line = self.HOOKS.split("\n").index("extern int hook_prelude_marker;") + 1
        self.assertRegex(first, rf'^#line {line} ".*hooks\.j2"$')


class HookErrorTest(TempDirTest):
    """A mistake in a hook file is a GenError at the hook file's line."""

    def test_text_outside_macros(self):
        err = self.hook_error("{% macro before_all(ctx) %}{% endmacro %}\n\nstray();\n")
        self.assertEqual(err.where, f"{self.hook_path()}:3")
        self.assertIn("text outside a macro", err.message)

    def test_expression_outside_macros(self):
        err = self.hook_error("\n\n{{ 1 }}\n{% macro before_all(ctx) %}{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:3")
        self.assertIn("text outside a macro", err.message)

    def test_unknown_function(self):
        err = self.hook_error("\n{% macro before_MPI_Sned(ctx) %}{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:2")
        self.assertIn("unknown function 'MPI_Sned'", err.message)

    def test_unknown_category(self):
        err = self.hook_error("\n\n\n{% macro after_sends(ctx) %}{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:4")
        self.assertIn("unknown category 'sends'", err.message)
        self.assertIn("categories: environment, send,", err.message)

    def test_macro_that_is_not_a_hook(self):
        err = self.hook_error("{% macro log_sends(ctx) %}{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:1")
        self.assertIn("'log_sends' is not a hook", err.message)

    def test_missing_value_located(self):
        err = self.hook_error("{% macro before_all(ctx) %}\n"
                              "/* {{ ctx.name }} */\n"
                              "{{ ctx.peer }}\n"
                              "{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:3")
        self.assertIn("has no value 'peer'", err.message)
        self.assertIn("(in before_all)", err.message)
        self.assertRegex(err.message, r"^MPI_\w+ has no value")

    def test_ambiguous_value_located(self):
        err = self.hook_error("{% macro before_MPI_Sendrecv(ctx) %}\n\n"
                              "{{ ctx.count }}\n{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:3")
        self.assertIn("use ctx.send.count or ctx.recv.count", err.message)

    def test_ret_in_a_before_hook(self):
        err = self.hook_error("{% macro before_MPI_Wtime(ctx) %}{{ ctx.ret }}{% endmacro %}\n")
        self.assertIn("MPI_Wtime has no value 'ret'", err.message)

    def test_jinja_syntax_error(self):
        err = self.hook_error("{% macro before_all(ctx) %}\n{% if %}\n{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:2")
        self.assertIn("template syntax error", err.message)

    def test_undefined_name(self):
        err = self.hook_error("{% macro before_all(ctx) %}\n\n{{ peer }}\n{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:3")
        self.assertIn("'peer' is undefined", err.message)

    def test_python_error_in_a_macro(self):
        err = self.hook_error("{% macro before_MPI_Send(ctx) %}\n"
                              "f({{ ctx.count + 1 }});\n{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:2")
        self.assertIn("TypeError", err.message)

    def test_hook_without_its_ctx_parameter(self):
        err = self.hook_error("{% macro before_all() %}x();{% endmacro %}\n")
        self.assertEqual(err.where, f"{self.hook_path()}:1")
        self.assertIn("before_all", err.message)

    def test_unreadable_hook_file(self):
        missing = str(Path(self.tmp) / "missing.j2")
        with self.assertRaises(GenError) as caught:
            HookFile(missing, known_names("hooks.h"))
        self.assertEqual(caught.exception.where, missing)
        self.assertIn("cannot read the hook file", caught.exception.message)

    def test_hook_file_not_utf8(self):
        path = Path(self.tmp) / "latin1.j2"
        path.write_bytes(b"{# caf\xe9 #}\n")
        with self.assertRaises(GenError) as caught:
            HookFile(str(path), known_names("hooks.h"))
        self.assertIn("not UTF-8", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
