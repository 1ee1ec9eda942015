"""User hooks: C code spliced into the wrappers, written as Jinja2 macros.

A hook file defines macros named after where they apply::

    {% macro before_MPI_Send(ctx) %} ... {% endmacro %}   one function
    {% macro after_send(ctx) %} ... {% endmacro %}        a category
    {% macro before_all(ctx) %} ... {% endmacro %}        every function
    {% macro prelude() %} ... {% endmacro %}              declarations for the files with hook code
    {% macro definitions() %} ... {% endmacro %}          C definitions, emitted once

For each wrapper and each phase the most specific macro wins (function,
then category, then all). Macros receive a HookContext whose attributes are
C expressions resolved from the parameters' roles (ctx.count, ctx.peer,
ctx.send.count, ctx.bytes, ctx.arg.buf, ctx.ret...). See docs/hooks.md.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
from dataclasses import replace
from typing import Iterable

import jinja2
from jinja2 import nodes

from .errors import GenError
from .model import HookCode, Reconciled, Wrapper
from .moves import Binding, Bound
from .roles import CATEGORIES, SIDES

# Where hook code ends, render.py puts a #line directive back to the
# generated file's own line numbers.
LINE_RESTORE = "#line MW_LINE_RESTORE"

PHASES = ("before", "after")
_FILE_SCOPE = ("prelude", "definitions")
_MACRO_RE = re.compile(r"^(before|after)_(.+)$")


class HookValueError(GenError):
    """A hook asked for a value the function does not have."""


class _Values:
    """Attribute access over a dict of names to C expressions, with clear errors."""

    def __init__(self, owner: str, label: str, values: dict[str, str],
                 ambiguous: dict[str, list[str]]) -> None:
        self._owner = owner
        self._label = label
        self._values = values
        self._ambiguous = ambiguous

    def has(self, name: str) -> bool:
        """True when the value exists (use in {% if %} before asking for it)."""
        return name in self._values

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._values:
            return self._values[name]
        if name in self._ambiguous:
            choices = " or ".join(self._ambiguous[name])
            raise HookValueError(f"{self._owner} has several '{name}' values: use {choices}")
        known = ", ".join(sorted(self._values)) or "none"
        raise HookValueError(f"{self._owner} has no value '{self._label}{name}' (it has: {known})")


def _role_values(binding: Binding,
                 side: str | None) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Unique role -> parameter name, and roles held by several parameters.

    The parameters are seen through moves.Binding, the view the byte
    accounting derives what a call moves from: the same roles and sides
    (a tag on the side of the peer before it: ctx.send.tag, ctx.recv.tag).
    """
    by_role: dict[str, list[Bound]] = {}
    for param in binding.params:
        if side is None or param.side == side:
            by_role.setdefault(param.role, []).append(param)
    values = {role: found[0].c_name for role, found in by_role.items() if len(found) == 1}
    ambiguous: dict[str, list[str]] = {}
    for role, found in by_role.items():
        if len(found) > 1:
            sides = [p.side for p in found if p.side]
            ambiguous[role] = ([f"ctx.{s}.{role}" for s in sides]
                               or [f"ctx.arg.{p.c_name}" for p in found])
    count = by_role.get("count", [])
    datatype = by_role.get("datatype", [])
    if len(count) == 1 and len(datatype) == 1 and not count[0].array and not datatype[0].array:
        # ``count * size of datatype`` when both are single values.
        values["bytes"] = (f"((long long)({count[0].c_name}) * "
                           f"mpiwatch_type_size({datatype[0].c_name}))")
    return values, ambiguous


class HookContext(_Values):
    """The named values a hook macro sees for one wrapper and phase."""

    def __init__(self, wrapper: Wrapper, phase: str) -> None:
        binding = Binding(wrapper.params, wrapper.large)
        values, ambiguous = _role_values(binding, None)
        values.update({
            "name": wrapper.name,
            "id": wrapper.id,
            "category": wrapper.category,
        })
        if phase == "after" and wrapper.returns_value:
            values["ret"] = "ret"
        super().__init__(wrapper.name, "", values, ambiguous)
        self.arg = _Values(wrapper.name, "arg.", {p.name: p.name for p in wrapper.params}, {})
        for side in SIDES:
            side_values, side_ambiguous = _role_values(binding, side)
            setattr(self, side, _Values(wrapper.name, f"{side}.", side_values, side_ambiguous))


def _hook_line(path: str, tb: object) -> int | None:
    """The hook file's line in a traceback.

    A frame of compiled template code has the template in its globals; its
    Python line number is mapped back to the template's line.
    """
    line = None
    real = os.path.realpath(path)
    while tb is not None:
        template = tb.tb_frame.f_globals.get("__jinja_template__")  # type: ignore[attr-defined]
        filename = getattr(template, "filename", None)
        if filename and os.path.realpath(filename) == real:
            line = template.get_corresponding_lineno(tb.tb_lineno)  # type: ignore[attr-defined]
        tb = tb.tb_next  # type: ignore[attr-defined]
    return line


def _stray_text_line(output: nodes.Output) -> int | None:
    """The line of the first text or expression of a top-level output, None if blank."""
    for child in output.nodes:
        if not isinstance(child, nodes.TemplateData):
            return child.lineno
        text = child.data.lstrip()
        if text:
            return child.lineno + child.data[:len(child.data) - len(text)].count("\n")
    return None


class HookFile:
    """One user hook file, parsed and checked against the known names."""

    def __init__(self, path: str, function_names: Iterable[str]) -> None:
        self.path = path
        try:
            with open(path, encoding="utf-8") as src:
                source = src.read()
        except OSError as err:
            raise GenError(f"cannot read the hook file: {err.strerror}", path) from None
        except UnicodeDecodeError:
            raise GenError("the hook file is not UTF-8 text", path) from None
        folder, base = os.path.split(os.path.abspath(path))
        self._env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(folder), undefined=jinja2.StrictUndefined,
            trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, autoescape=False)
        try:
            tree = self._env.parse(source, name=base, filename=path)
            self._check(tree, set(function_names))
            self._module = self._env.get_template(base).module
        except jinja2.TemplateSyntaxError as err:
            raise GenError(f"template syntax error: {err.message}", f"{path}:{err.lineno}") from None
        except jinja2.TemplateError as err:
            line = _hook_line(path, sys.exc_info()[2])
            raise GenError(f"template error: {err}", f"{path}:{line or 1}") from None
        except GenError:
            raise
        except Exception as err:  # noqa: BLE001 - the user's template code failed
            line = _hook_line(path, sys.exc_info()[2])
            raise GenError(f"template error: {type(err).__name__}: {err}",
                           f"{path}:{line or 1}") from None

    def _check(self, tree: nodes.Template, functions: set[str]) -> None:
        """Every macro must name a phase and a known function or category."""
        self.macros: dict[str, int] = {}
        for node in tree.body:
            line = _stray_text_line(node) if isinstance(node, nodes.Output) else None
            if line is not None:
                raise GenError("text outside a macro is not used; put declarations in "
                               "{% macro prelude() %} and definitions in "
                               "{% macro definitions() %}", f"{self.path}:{line}")
        for macro in tree.find_all(nodes.Macro):
            self.macros[macro.name] = macro.lineno
            if macro.name in _FILE_SCOPE or macro.name.startswith("_"):
                continue
            match = _MACRO_RE.match(macro.name)
            where = f"{self.path}:{macro.lineno}"
            if match is None:
                raise GenError(f"macro '{macro.name}' is not a hook: name hooks before_X or "
                               "after_X, X a function, a category or 'all'", where)
            target = match.group(2)
            if target != "all" and target not in CATEGORIES and target not in functions:
                kind = "function" if target.startswith(("MPI_", "MPIX_")) else "category"
                raise GenError(f"hook '{macro.name}' names an unknown {kind} '{target}' "
                               f"(categories: {', '.join(CATEGORIES)})", where)

    def _call(self, macro_name: str, *args: object) -> str:
        """Render one macro; errors are located in the hook file."""
        try:
            return str(getattr(self._module, macro_name)(*args))
        except GenError as err:
            line = _hook_line(self.path, sys.exc_info()[2]) or self.macros.get(macro_name, 1)
            raise GenError(f"{err.message} (in {macro_name})", f"{self.path}:{line}") from None
        except jinja2.TemplateError as err:
            line = _hook_line(self.path, sys.exc_info()[2]) or self.macros.get(macro_name, 1)
            raise GenError(f"{err} (in {macro_name})", f"{self.path}:{line}") from None
        except Exception as err:  # noqa: BLE001 - the user's macro failed, e.g. wrong arity
            line = _hook_line(self.path, sys.exc_info()[2]) or self.macros.get(macro_name, 1)
            raise GenError(f"{type(err).__name__}: {err} (in {macro_name})",
                           f"{self.path}:{line}") from None

    def _located(self, macro_name: str, raw: str, code: str) -> str:
        """code (rendered from raw) between #line directives: the C compiler
        then names the hook file and line in its messages, and the generated
        file's own lines after it (render.py replaces LINE_RESTORE)."""
        if not code:
            return ""
        leading = raw[:len(raw) - len(raw.lstrip())].count("\n")
        first = self.macros[macro_name] + max(leading, 1)
        path = self.path.replace("\\", "\\\\").replace('"', '\\"')
        return f'#line {first} "{path}"\n{code}\n{LINE_RESTORE}'

    def file_scope(self, part: str, located: bool = False) -> str:
        """The file's prelude() or definitions() code, or ''; located: between
        #line directives naming the hook file."""
        if part not in self.macros:
            return ""
        raw = self._call(part)
        code = raw.strip()
        return self._located(part, raw, code) if located else code

    def code_for(self, wrapper: Wrapper, phase: str, located: bool = False) -> str:
        """The hook code for one wrapper and phase, indented for a function
        body; located: between #line directives naming the hook file."""
        for target in (wrapper.name, wrapper.category, "all"):
            name = f"{phase}_{target}"
            if name in self.macros:
                raw = self._call(name, HookContext(wrapper, phase))
                code = textwrap.dedent(raw).strip("\n")
                code = textwrap.indent(code, "    ") if code.strip() else ""
                return self._located(name, raw, code) if located else code
        return ""


def _hooked(hook_files: list[HookFile], wrapper: Wrapper) -> Wrapper:
    """The wrapper with each phase's code from the hook files."""
    code = {phase: "\n".join(c for c in (h.code_for(wrapper, phase, located=True)
                                          for h in hook_files) if c)
            for phase in PHASES}
    return replace(wrapper, **code) if any(code.values()) else wrapper


def apply_hooks(hook_files: list[HookFile], reconciled: Reconciled) -> Reconciled:
    """The reconciled result with each wrapper's before/after code and the
    hooks' file-scope code (prelude and definitions); the input is left as it is."""
    scope = {part: "\n\n".join(c for c in (h.file_scope(part, located=True)
                                            for h in hook_files) if c)
             for part in _FILE_SCOPE}
    return replace(reconciled, wrappers=tuple(_hooked(hook_files, w) for w in reconciled.wrappers),
                   hooks=HookCode(**scope))
