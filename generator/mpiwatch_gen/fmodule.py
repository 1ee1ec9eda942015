"""Read the interfaces an MPI declares in its Fortran modules.

For C, the generator takes every signature from the installed mpi.h. The
Fortran counterpart is the MPI's ``mpi.mod`` and ``mpi_f08.mod``: they hold
the explicit interfaces that callers are compiled against, so they say how
many arguments (and which CHARACTER ones, each with a hidden length) a call
really passes, and which procedures the module binds straight to a C
function with ``BIND(C, name=...)``.

Only gfortran's module format is understood: gzip-compressed text, a
version line, then nested parenthesised lists; the symbol table is the
top-level list of six items per symbol (id, name, module, binding
label, parent, body). Anything else (another compiler's modules, a newer
format) gives no interfaces, and the generator falls back to the standard's
parameter lists.
"""

from __future__ import annotations

import gzip
import os
import re
import shlex
import subprocess
import tempfile
from dataclasses import dataclass

_TOKEN_RE = re.compile(r"'(?:[^']|'')*'|\(|\)|[^\s()']+")
_HEADER_RE = re.compile(r"^GFORTRAN module version '(\d+)'")
# Module formats this reader has been checked against (gfortran 8 to 14 write 15).
_KNOWN_VERSIONS = frozenset({"14", "15", "16"})
_PROGRAMS = {
    "mpi": "program mwmod\n  use mpi\nend program mwmod\n",
    "mpi_f08": "program mwmod\n  use mpi_f08\nend program mwmod\n",
}


@dataclass(frozen=True)
class ModuleArg:
    """One dummy argument of a module interface."""

    name: str
    character: bool      # CHARACTER: the caller passes a hidden length
    optional: bool
    value: bool          # passed by value (VALUE attribute)


@dataclass(frozen=True)
class ModuleProcedure:
    """An external procedure whose interface a module declares."""

    name: str                       # Fortran name, lower case
    args: tuple[ModuleArg, ...]
    function: bool
    bind_c: str | None              # BIND(C) label, when the module binds it to C
    module: str                     # the module file it was read from

    @property
    def symbol(self) -> str:
        """The linker name a call to it uses (gfortran: name + '_')."""
        return self.bind_c if self.bind_c else self.name + "_"


def _parse(text: str) -> list:
    """The module text (after its version line) as nested Python lists."""
    stack: list[list] = [[]]
    current = stack[0]
    # findall, and the innermost list at hand: a module has about a million
    # tokens, and mpiwatch-gen --build reads two modules each time.
    for token in _TOKEN_RE.findall(text):
        if token == "(":
            current = []
            stack.append(current)
        elif token == ")":
            if len(stack) == 1:
                raise ValueError("unbalanced parenthesis")
            done = stack.pop()
            current = stack[-1]
            current.append(done)
        else:
            current.append(token)
    if len(stack) != 1:
        raise ValueError("unbalanced parenthesis")
    return stack[0]


def _unquote(token: object) -> str:
    return str(token)[1:-1].replace("''", "'") if isinstance(token, str) else ""


def _is_symbol_table(item: object) -> bool:
    """True for the list of symbols: (id 'name' 'module' 'label' parent (body))*."""
    if not isinstance(item, list) or len(item) < 6 or len(item) % 6:
        return False
    ident, name, module, label, parent, body = item[:6]
    return (isinstance(ident, str) and ident.isdigit() and isinstance(name, str)
            and name.startswith("'") and isinstance(module, str) and module.startswith("'")
            and isinstance(label, str) and label.startswith("'")
            and isinstance(parent, str) and parent.isdigit() and isinstance(body, list))


def parse_module_text(text: str, origin: str = "") -> dict[str, ModuleProcedure]:
    """External procedures (interface bodies) of a gfortran module, by name.

    Raises ValueError if the text is not a gfortran module this reader knows.
    """
    first, _, rest = text.partition("\n")
    match = _HEADER_RE.match(first)
    if not match:
        raise ValueError("not a gfortran module")
    if match.group(1) not in _KNOWN_VERSIONS:
        raise ValueError(f"gfortran module version {match.group(1)} is not supported")
    tables = [item for item in _parse(rest) if _is_symbol_table(item)]
    if not tables:
        raise ValueError("no symbol table")
    table = max(tables, key=len)
    symbols: dict[str, tuple[str, str, list]] = {}
    for i in range(0, len(table) - 5, 6):
        ident, name, _module, label, _parent, body = table[i:i + 6]
        if not isinstance(body, list) or not body or not isinstance(body[0], list):
            raise ValueError("unexpected symbol table layout")
        symbols[str(ident)] = (_unquote(name), _unquote(label), body)
    procedures: dict[str, ModuleProcedure] = {}
    for name, label, body in symbols.values():
        attrs = body[0]
        if not (attrs and attrs[0] == "PROCEDURE" and "EXTERNAL" in attrs
                and ("SUBROUTINE" in attrs or "FUNCTION" in attrs)):
            continue
        formal = body[5] if len(body) > 5 and isinstance(body[5], list) else []
        args = []
        for ident in formal:
            arg = symbols.get(str(ident))
            if arg is None:
                raise ValueError(f"{name}: argument {ident} is not in the symbol table")
            arg_attrs, typespec = arg[2][0], arg[2][2]
            args.append(ModuleArg(arg[0], bool(typespec) and typespec[0] == "CHARACTER",
                                  "OPTIONAL" in arg_attrs, "VALUE" in arg_attrs))
        bind_c = label if "IS_BIND_C" in attrs and label else None
        procedures[name] = ModuleProcedure(name, tuple(args), "FUNCTION" in attrs, bind_c,
                                           origin)
    return procedures


def read_module(path: str) -> dict[str, ModuleProcedure]:
    """The external procedures a module file declares (ValueError/OSError if unreadable)."""
    with open(path, "rb") as src:
        raw = src.read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return parse_module_text(raw.decode("utf-8", errors="replace"), path)


def module_path(mpifc: str, module: str) -> str | None:
    """The module file ``use MODULE`` reads with this Fortran compiler, or None.

    Asks the compiler for the dependencies of a one-line program (gfortran's
    ``-cpp -M`` lists the .mod files it reads).
    """
    cmd = shlex.split(mpifc)
    with tempfile.TemporaryDirectory(prefix="mpiwatch-fmod-") as tmp:
        src = os.path.join(tmp, "mwmod.f90")
        with open(src, "w", encoding="utf-8") as out:
            out.write(_PROGRAMS[module])
        try:
            done = subprocess.run(cmd + ["-cpp", "-M", src], capture_output=True, text=True,
                                  check=False, cwd=tmp)
        except OSError:
            return None
    if done.returncode != 0:
        return None
    for word in done.stdout.replace("\\\n", " ").split():
        if os.path.basename(word) == f"{module}.mod":
            return os.path.normpath(word)
    return None


@dataclass
class ModuleInterfaces:
    """What the MPI's Fortran modules declare, and what could not be read."""

    procedures: dict[str, ModuleProcedure]
    notes: list[str]
    found: tuple[str, ...] = ()     # the modules the compiler has ("mpi", "mpi_f08")

    def get(self, name: str) -> ModuleProcedure | None:
        return self.procedures.get(name)


def read_mpi_modules(mpifc: str) -> ModuleInterfaces:
    """Interfaces from the MPI's ``mpi`` and ``mpi_f08`` modules, best effort."""
    procedures: dict[str, ModuleProcedure] = {}
    notes: list[str] = []
    present: list[str] = []
    for module in ("mpi", "mpi_f08"):
        path = module_path(mpifc, module)
        if path is None:
            notes.append(f"module {module}: not found with {mpifc}")
            continue
        present.append(module)
        try:
            found = read_module(path)
        except (OSError, ValueError, EOFError) as err:
            notes.append(f"module {module}: {path}: not read ({err}); the standard's "
                         "parameter lists are used")
            continue
        notes.append(f"module {module}: {path}: {len(found)} interfaces")
        for name, proc in found.items():
            procedures.setdefault(name, proc)
    return ModuleInterfaces(procedures, notes, tuple(present))
