"""Probe stage: what the installed MPI header declares and defines.

The header is preprocessed by the MPI's own compiler wrapper (so that the
same include paths and feature macros apply as when the wrappers are
compiled), parsed with pycparser, and every ``PMPI_`` prototype is recorded
exactly as declared. A second preprocessor run lists the macros, so that we
know which MPI names the header defines with ``#define`` (those cannot be
replaced at link time and must not be wrapped).
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import subprocess
import tempfile
from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from .cparse import parse_preprocessed
from .errors import GenError

_MPI_NAME_RE = re.compile(r"^P?MPIX?_[A-Za-z0-9_]+$")
_DEFINE_RE = re.compile(r"^#define\s+(P?MPIX?_[A-Za-z0-9_]+)(\([^)]*\))?\s*(.*)$")
_MISSING_MPI_H_RE = re.compile(r"\bmpi\.h\b.*(No such file|not found)")
_LINE_MARKER_RE = re.compile(r'^#\s*\d+\s+"([^"]+)"')
# Version macros worth naming in generated files and the coverage report.
_VERSION_MACROS = (
    "MPI_VERSION", "MPI_SUBVERSION", "MPICH_VERSION", "OMPI_MAJOR_VERSION",
    "OMPI_MINOR_VERSION", "OMPI_RELEASE_VERSION", "I_MPI_VERSION", "MVAPICH2_VERSION",
)


@dataclass(frozen=True)
class HeaderParam:
    """One parameter of a prototype, as declared."""

    name: str | None        # None when the header leaves it unnamed
    node: c_ast.Node        # pycparser declaration node, for re-rendering

    def declaration(self, name: str) -> str:
        """The parameter's declaration text with ``name`` as its name."""
        return _render_param(self.node, name)

    def type_text(self) -> str:
        """The parameter's type alone, e.g. ``const void *``."""
        return _render_param(self.node, None)


@dataclass(frozen=True)
class HeaderFunction:
    """A ``PMPI_`` prototype from the header, keyed by its ``MPI_`` name."""

    name: str                        # e.g. "MPI_Send"
    return_type: str                 # e.g. "int", "double", "MPI_Aint"
    params: tuple[HeaderParam, ...]
    variadic: bool
    location: str                    # "file:line" of the PMPI_ declaration


@dataclass(frozen=True)
class Macro:
    """A ``#define`` of an MPI name."""

    name: str
    text: str                        # the whole "#define NAME(args) body"
    function_like: bool


@dataclass
class HeaderInfo:
    """Everything the generator needs to know about one MPI header."""

    header: str                                  # path of mpi.h as found
    functions: dict[str, HeaderFunction] = field(default_factory=dict)
    mpi_declared: set[str] = field(default_factory=set)   # MPI_ names declared as functions
    macros: dict[str, Macro] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)        # every file preprocessed
    version: str = ""                                     # e.g. "MPICH 4.0.2, MPI 4.0"
    # MPI_ typedefs as declared, with the structs they name (for abi.py).
    typedefs: dict[str, str] = field(default_factory=dict)


def _render_param(node: c_ast.Node, name: str | None) -> str:
    """Render a parameter declaration with a given name (or none).

    Only the nodes on the way down to the name are copied (a deep copy of
    every parameter cost seconds per run)."""
    node = copy.copy(node)
    if hasattr(node, "name"):
        node.name = name
    inner = node
    while not isinstance(inner, c_ast.TypeDecl) and hasattr(inner, "type"):
        inner.type = copy.copy(inner.type)
        inner = inner.type
    if isinstance(inner, c_ast.TypeDecl):
        inner.declname = name
    text = c_generator.CGenerator().visit(node)
    return re.sub(r"\s+", " ", text).replace("* ", "*").strip()


def _return_type(func: c_ast.FuncDecl) -> str:
    """Render a function's return type, e.g. ``int`` or ``MPI_Aint``."""
    ret = copy.deepcopy(func.type)
    inner = ret
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = None
    return re.sub(r"\s+", " ", c_generator.CGenerator().visit(ret)).strip()


def _function_from_decl(decl: c_ast.Decl) -> HeaderFunction:
    """Build a HeaderFunction from a parsed ``PMPI_`` declaration."""
    func = decl.type
    params: list[HeaderParam] = []
    variadic = False
    for param in (func.args.params if func.args else []):
        if isinstance(param, c_ast.EllipsisParam):
            variadic = True
            continue
        if _is_void(param):
            continue
        params.append(HeaderParam(getattr(param, "name", None), param))
    coord = decl.coord
    return HeaderFunction(
        name=decl.name[1:],
        return_type=_return_type(func),
        params=tuple(params),
        variadic=variadic,
        location=f"{coord.file}:{coord.line}" if coord else "?",
    )


def _is_void(param: c_ast.Node) -> bool:
    """True for the lone ``void`` of ``f(void)``."""
    if getattr(param, "name", None):
        return False
    typ = param.type
    return (isinstance(typ, c_ast.TypeDecl) and isinstance(typ.type, c_ast.IdentifierType)
            and typ.type.names == ["void"])


class Preprocessor:
    """Runs the MPI compiler wrapper's preprocessor on a one-line source file."""

    def __init__(self, compiler: str, header: str | None = None,
                 cflags: list[str] | None = None) -> None:
        self.compiler = shlex.split(compiler) if compiler.strip() else []
        if not self.compiler:
            raise GenError("no C compiler given (use --mpicc)")
        self.header = header
        self.cflags = list(cflags or [])

    def _include_line(self) -> str:
        if self.header is None:
            return "#include <mpi.h>\n"
        if not os.path.isfile(self.header) or not os.access(self.header, os.R_OK):
            raise GenError("cannot read the header", self.header)
        return f'#include "{os.path.abspath(self.header)}"\n'

    def run(self, extra: list[str]) -> str:
        """Preprocess the include line; return the output text."""
        include = self._include_line()
        with tempfile.TemporaryDirectory(prefix="mpiwatch-probe-") as tmp:
            src = os.path.join(tmp, "probe.c")
            with open(src, "w", encoding="utf-8") as out:
                out.write(include)
            cmd = self.compiler + ["-E", *self.cflags, *extra, src]
            try:
                done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            except FileNotFoundError:
                raise GenError(f"the MPI compiler '{self.compiler[0]}' was not found "
                               "(set --mpicc or MPICC to your MPI's C compiler wrapper)") from None
            except OSError as err:
                raise GenError(f"cannot run the MPI compiler '{self.compiler[0]}': "
                               f"{err.strerror}") from None
        if done.returncode != 0:
            if self.header is None and _MISSING_MPI_H_RE.search(done.stderr):
                raise GenError("this compiler finds no mpi.h: it is not an MPI compiler wrapper; "
                               "set --mpicc (MPICC) to your MPI's C compiler wrapper, e.g. mpicc",
                               " ".join(self.compiler))
            first = _first_error_line(done.stderr) or f"exit status {done.returncode}"
            raise GenError(f"preprocessing failed: {first}", " ".join(self.compiler))
        return done.stdout


def _first_error_line(stderr: str) -> str:
    """The most useful line of a compiler's error output."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if "error" in line:
            return line
    return lines[0] if lines else ""


def _find_header(preprocessed: str, wanted: str | None) -> tuple[str, list[str]]:
    """From line markers: the path of the MPI header and all files read."""
    files: list[str] = []
    for line in preprocessed.splitlines():
        match = _LINE_MARKER_RE.match(line)
        if match and not match.group(1).startswith("<") and match.group(1) not in files:
            files.append(match.group(1))
    files = [f for f in files if not os.path.basename(f).startswith("probe.c")]
    if wanted is not None:
        return os.path.abspath(wanted), files
    for path in files:
        if os.path.basename(path) == "mpi.h":
            return path, files
    raise GenError("the preprocessed output names no mpi.h: is this an MPI compiler wrapper?")


def parse_macros(defines: str) -> dict[str, Macro]:
    """Every ``#define`` of an MPI name, from ``-dM`` output."""
    macros: dict[str, Macro] = {}
    for line in defines.splitlines():
        match = _DEFINE_RE.match(line.strip())
        if match:
            name = match.group(1)
            macros[name] = Macro(name, line.strip(), match.group(2) is not None)
    return macros


def _version(macros_text: str) -> str:
    """A short human description of the MPI from its version macros."""
    values: dict[str, str] = {}
    for line in macros_text.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0] == "#define" and parts[1] in _VERSION_MACROS:
            values[parts[1]] = parts[2].strip('"')
    impl = ""
    if "MPICH_VERSION" in values:
        impl = f"MPICH {values['MPICH_VERSION']}"
    elif "OMPI_MAJOR_VERSION" in values:
        impl = "Open MPI {}.{}.{}".format(values.get("OMPI_MAJOR_VERSION"),
                                          values.get("OMPI_MINOR_VERSION", "0"),
                                          values.get("OMPI_RELEASE_VERSION", "0"))
    std = ""
    if "MPI_VERSION" in values:
        std = f"MPI {values['MPI_VERSION']}.{values.get('MPI_SUBVERSION', '0')}"
    return ", ".join(p for p in (impl, std) if p) or "unknown MPI"


def _struct_definitions(ast: c_ast.FileAST) -> dict[str, c_ast.Struct]:
    """Every struct defined at file scope, by tag."""
    found: dict[str, c_ast.Struct] = {}
    for node in ast.ext:
        inner = getattr(node, "type", None)
        while inner is not None and not isinstance(inner, c_ast.Struct):
            inner = getattr(inner, "type", None)
        if isinstance(inner, c_ast.Struct) and inner.name and inner.decls is not None:
            found[inner.name] = inner
    return found


def _mpi_typedefs(ast: c_ast.FileAST) -> dict[str, str]:
    """Each MPI_ typedef's declaration, followed by the struct it names when the
    header defines it (e.g. MPI_Status's fields): what code compiled against
    the header depends on."""
    structs = _struct_definitions(ast)
    generator = c_generator.CGenerator()
    found: dict[str, str] = {}
    for node in ast.ext:
        if not isinstance(node, c_ast.Typedef) or not _MPI_NAME_RE.match(node.name or ""):
            continue
        text = generator.visit(node)
        inner = node.type
        while inner is not None and not isinstance(inner, c_ast.Struct):
            inner = getattr(inner, "type", None)
        if isinstance(inner, c_ast.Struct) and inner.decls is None and inner.name in structs:
            text += "; " + generator.visit(structs[inner.name])
        found[node.name] = re.sub(r"\s+", " ", text).strip()
    return found


def probe_header(compiler: str, header: str | None = None,
                 cflags: list[str] | None = None) -> HeaderInfo:
    """Preprocess and parse the MPI header; collect prototypes and macros."""
    pre = Preprocessor(compiler, header, cflags)
    text = pre.run([])
    path, files = _find_header(text, header)
    macro_text = pre.run(["-dM"])
    info = HeaderInfo(header=path, files=files, macros=parse_macros(macro_text),
                      version=_version(macro_text))
    ast = parse_preprocessed(text, path)
    info.typedefs = _mpi_typedefs(ast)
    for node in ast.ext:
        if not (isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl)):
            continue
        name = node.name or ""
        if not _MPI_NAME_RE.match(name):
            continue
        if name.startswith("PMPI"):
            info.functions[name[1:]] = _function_from_decl(node)
        else:
            info.mpi_declared.add(name)
    if not info.functions:
        raise GenError("the header declares no PMPI_ functions", path)
    return info
