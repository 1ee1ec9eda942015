"""Fortran entry points: the mpif.h / ``use mpi`` and ``use mpi_f08`` bindings.

A Fortran program calls the MPI's Fortran entry points (``mpi_send_``,
``mpi_send_f08_``...), which a C-only profiling layer may never see: Open MPI
implements them on ``PMPI_X``. So libmpiwatch_f defines every Fortran entry
point the MPI defines and the standard describes, each forwarding its
arguments *untouched* to the MPI's own Fortran profiling entry point
(``pmpi_send_``, ``pmpi_send_f08_``, MPICH's ``pmpir_send_f08ts_``), and
counting the call through libmpiwatch's re-entry guard. Handles, LOGICALs,
strings and the sentinels (MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE...)
reach the MPI exactly as the program passed them, since the MPI's binding
does every conversion itself; and because the guard is held while the MPI
runs, a C MPI_X that the binding calls (MPICH's mpif.h binding does) is not
counted again. docs/fortran.md has the details.

What is generated, per entry point, comes from three sources:

- the MPI's Fortran libraries (symbols.fortran_library_symbols): which entry
  points and profiling entry points exist;
- the MPI's modules (fmodule), when readable: the argument lists callers are
  compiled against, and the procedures bound directly to C;
- the spec: the standard's parameter lists (those with the f90 or f08
  binding; CHARACTER kinds get a hidden length each), and the return type
  of the few Fortran functions (MPI_WTIME, MPI_AINT_ADD...).
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass, field
from typing import Callable

import jinja2

from .errors import GenError
from .fmodule import ModuleInterfaces, ModuleProcedure, read_module, read_mpi_modules
from .fortran_calls import CallPlan, FortranArg, FortranCall, plan_call
from .layering import BINDINGS, describe, parse_layering, probe_layering, summary
from .probe import HeaderInfo
from .reconcile import Reconciled, Wrapper
from .spec import Spec, SpecFunction

STRING_KINDS = frozenset({"STRING", "STRING_ARRAY", "STRING_2DARRAY"})
# Specific procedures some MPIs add to a generic of ``use mpi`` under another
# name, with the same arguments (Open MPI: MPI_ALLOC_MEM with a TYPE(C_PTR)).
VARIANT_SUFFIXES = ("_cptr",)
BINDING_TITLES = {"mpif": "mpif.h / use mpi", "f08": "use mpi_f08"}
OUTPUT_FILES = {"mpif": "fortran_mpif.c", "f08": "fortran_f08.c"}
COVERAGE_FILE = "fortran-coverage.txt"
CALLS_FILE = "fortran_calls.c"           # compiled into libmpiwatch
SENTINELS_FILE = "fortran_sentinels.f90"  # compiled into libmpiwatch_f with MPIFC
_F08_RE = re.compile(r"^mpi(x?)_([a-z0-9_]+?)_(f08(?:ts)?)(_large)?_$")
_F77_RE = re.compile(r"^mpix?_([a-z0-9_]+)_$")
# MPI_SIZEOF is a generic: each MPI names its many specific procedures as it likes.
_SIZEOF_PREFIX = "mpi_sizeof_"
_C_KEYWORDS = frozenset({
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "ret"})


@dataclass(frozen=True)
class ShimParam:
    """One argument slot of a Fortran entry point."""

    name: str
    string: bool         # CHARACTER: a hidden length follows the arguments
    spec_name: str | None = None   # the standard's parameter (None: from a module)
    kind: str = ""                 # the standard's kind (BUFFER, COMMUNICATOR...)


@dataclass(frozen=True)
class Shim:
    """One Fortran entry point of libmpiwatch_f, with all its spellings."""

    binding: str                   # "mpif" or "f08"
    entry: str                     # the MPI's entry point, e.g. "mpi_send_"
    function: str                  # the C function it is counted as, e.g. "MPI_Send"
    symbols: tuple[str, ...]       # the names it is defined under
    target: str                    # the MPI's profiling entry point it calls
    params: tuple[ShimParam, ...]
    return_type: str               # "void" for a subroutine
    lifecycle: str | None          # "init", "finalize", "pcontrol" or None
    source: str                    # where the arguments come from: standard or module
    plan: CallPlan | None = None   # how it hands the C wrapper's values to libmpiwatch

    @property
    def impl(self) -> str:
        """The static C function all spellings are aliases of."""
        return "mw_f_" + self.entry.rstrip("_")

    @property
    def id(self) -> str:
        return f"MW_ID_{self.function}"

    @property
    def returns_value(self) -> bool:
        return self.return_type != "void"

    @property
    def _slots(self) -> list[tuple[str, str]]:
        slots = [("void *", p.name) for p in self.params]
        slots += [("size_t ", f"{p.name}_len") for p in self.params if p.string]
        return slots

    @property
    def parameter_list(self) -> str:
        return ", ".join(f"{t}{n}" for t, n in self._slots) or "void"

    @property
    def parameter_types(self) -> str:
        return ", ".join(t.strip() for t, _ in self._slots) or "void"

    @property
    def arguments(self) -> str:
        return ", ".join(n for _, n in self._slots)


@dataclass(frozen=True)
class FortranEntry:
    """The coverage status of one Fortran entry point (or missing one)."""

    binding: str
    name: str
    status: str        # wrapped, c-layer, no-pmpi, no-c-wrapper, unsupported,
    detail: str        # not-in-standard, missing


@dataclass
class FortranResult:
    """Everything the Fortran templates need, and the coverage."""

    shims: list[Shim] = field(default_factory=list)
    coverage: list[FortranEntry] = field(default_factory=list)
    layering: str = ""
    strategy: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    modules: tuple[str, ...] = ()      # the MPI's modules the compiler has

    @property
    def calls(self) -> list[FortranCall]:
        """The wrappers whose accounting and hooks Fortran entry points reach."""
        unique = {s.plan.call.name: s.plan.call for s in self.shims if s.plan is not None}
        return [unique[name] for name in sorted(unique)]

    @property
    def sentinel_bindings(self) -> list[dict[str, str]]:
        """The bindings whose sentinels libmpiwatch_f learns at load time."""
        found = [{"routine": "from_mpif_h", "use": "", "title": "mpif.h"}]
        if "mpi" in self.modules:
            found.append({"routine": "from_use_mpi", "use": "mpi", "title": "use mpi"})
        if "mpi_f08" in self.modules or self.shims_of("f08"):
            found.append({"routine": "from_use_mpi_f08", "use": "mpi_f08",
                          "title": "use mpi_f08"})
        return found

    def count(self, status: str, binding: str | None = None) -> int:
        return sum(1 for e in self.coverage
                   if e.status == status and (binding is None or e.binding == binding))

    def shims_of(self, binding: str) -> list[Shim]:
        return [s for s in self.shims if s.binding == binding]

    def spelling_counts(self, binding: str) -> list[tuple[str, int]]:
        """How many entry points are defined under each form of name."""
        counts: dict[str, int] = {}
        for shim in self.shims_of(binding):
            for symbol in shim.symbols:
                form = _spelling_form(symbol)
                counts[form] = counts.get(form, 0) + 1
        return sorted(counts.items())


def _spelling_form(symbol: str) -> str:
    """'mpi_x_', 'mpi_x', 'mpi_x__', 'MPI_X', 'mpi_x_f08ts_large_'... for counting."""
    if symbol.isupper():
        return "MPI_X"
    match = _F08_RE.match(symbol)
    if match:
        return f"mpi_x_{match.group(3)}{match.group(4) or ''}_"
    if symbol.endswith("__"):
        return "mpi_x__"
    return "mpi_x_" if symbol.endswith("_") else "mpi_x"


def _c_name(name: str, taken: set[str]) -> str:
    """A C identifier for a Fortran argument, unique in its function."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", name.lower()) or "arg"
    if name in _C_KEYWORDS or name[0].isdigit():
        name += "_"
    while name in taken or f"{name}_len" in taken:
        name += "_"
    taken.add(name)
    return name


def _params_from_spec(fn: SpecFunction, binding: str, large: bool) -> tuple[ShimParam, ...]:
    spec_binding = "f90" if binding == "mpif" else "f08"
    taken: set[str] = set()
    return tuple(ShimParam(_c_name(p.name, taken), p.kind in STRING_KINDS, p.name, p.kind)
                 for p in fn.params
                 if spec_binding in p.bindings and p.kind != "VARARGS"
                 and (large or not p.large_only))


def _params_from_module(proc: ModuleProcedure) -> tuple[ShimParam, ...]:
    taken: set[str] = set()
    return tuple(ShimParam(_c_name(a.name, taken), a.character) for a in proc.args)


def _plan(wrapper: Wrapper, entry: str, params: tuple[ShimParam, ...],
          lifecycle: str | None) -> tuple[CallPlan | None, str]:
    """How the entry point hands the C wrapper's values over, and a coverage remark."""
    call = FortranCall(wrapper)
    # use mpi_f08's TYPE(*), DIMENSION(..) choice buffers come as descriptors.
    descriptors = "_f08ts" in entry
    args = {p.spec_name: FortranArg(p.name, descriptors and p.kind == "BUFFER")
            for p in params if p.spec_name}
    if lifecycle == "finalize" and (wrapper.before or wrapper.after):
        # MPI_FINALIZE has no arguments to convert: only its hooks to run.
        ierror = args.get("ierror")
        return CallPlan(call, (), (), ierror.slot if ierror else None), ""
    if lifecycle or not call.wanted:
        return None, ""
    plan = plan_call(call, args)
    if isinstance(plan, str):
        return None, f"; bytes not measured: {plan}"
    return plan, ""


def _pick(symbols: set[str], candidates: list[str]) -> str | None:
    return next((c for c in candidates if c in symbols), None)


class _Builder:
    """Reconciles the MPI's Fortran symbols and modules with the spec and the C wrappers."""

    def __init__(self, spec: Spec, reconciled: Reconciled, symbols: set[str],
                 modules: ModuleInterfaces) -> None:
        self.spec = spec
        self.wrappers = {w.name: w for w in reconciled.wrappers}
        self.c_status = {e.name: (e.status, e.detail) for e in reconciled.coverage}
        self.symbols = symbols
        self.modules = modules
        self.by_lower = {name.lower(): fn for name, fn in spec.functions.items()}
        self.result = FortranResult()

    def note(self, binding: str, name: str, status: str, detail: str) -> None:
        self.result.coverage.append(FortranEntry(binding, name, status, detail))

    def _arguments(self, fn: SpecFunction, binding: str, proc_name: str,
                   large: bool) -> tuple[tuple[ShimParam, ...], str] | None:
        """The argument slots, from the module when it declares the procedure."""
        proc = self.modules.get(proc_name)
        from_spec = _params_from_spec(fn, binding, large)
        if proc is None or proc.bind_c:
            return from_spec, "standard"
        if any(a.value for a in proc.args):
            return None
        from_module = _params_from_module(proc)
        if ([p.string for p in from_module] == [p.string for p in from_spec]):
            return from_spec, "standard"
        return from_module, (f"module {proc_name}: {len(from_module)} arguments, "
                             f"the standard {len(from_spec)}")

    def add(self, binding: str, fn: SpecFunction, entry: str, symbols: tuple[str, ...],
            targets: list[str], function: str, proc_name: str, large: bool,
            variant: bool) -> None:
        target = _pick(self.symbols, targets)
        if target is None:
            self.note(binding, entry, "no-pmpi",
                      f"the MPI has no profiling entry point ({' or '.join(targets)})")
            return
        wrapper = self.wrappers.get(function)
        if wrapper is None:
            self.note(binding, entry, "no-c-wrapper", self._why_no_wrapper(fn, function))
            return
        found = self._arguments(fn, binding, proc_name, large)
        if found is None:
            self.note(binding, entry, "unsupported",
                      "the module passes an argument by VALUE; not forwarded opaquely")
            return
        params, source = found
        return_type = "void" if fn.return_role == "error" else wrapper.return_type
        lifecycle = None if variant or large else wrapper.lifecycle
        if (lifecycle == "pcontrol" and not params) or lifecycle == "query_thread":
            lifecycle = None   # the generic shim
        plan, remark = _plan(wrapper, entry, params, lifecycle)
        shim = Shim(binding, entry, function, symbols, target, params, return_type, lifecycle,
                    source, plan)
        self.result.shims.append(shim)
        self.note(binding, entry, "wrapped",
                  f"{function} -> {target} [{' '.join(symbols)}] ({source}){remark}")

    def _why_no_wrapper(self, fn: SpecFunction, function: str) -> str:
        if "c" not in fn.bindings:
            return f"{fn.name} is Fortran-only: no C function to count it as"
        status, _detail = self.c_status.get(function, ("missing", ""))
        reason = {"macro": "a macro in mpi.h", "absent": "absent from the C library",
                  "missing": "not declared by mpi.h"}.get(status, status)
        return f"{function} is {reason}, so it has no C wrapper to count it as"

    def mpif(self) -> None:
        """mpif.h / use mpi: mpi_x_ in four spellings."""
        matched: set[str] = set()
        for name in sorted(self.spec.functions):
            fn = self.spec.functions[name]
            if "f90" not in fn.bindings:
                continue
            lower = name.lower()
            found = False
            for suffix in ("",) + VARIANT_SUFFIXES:
                base = lower + suffix
                spellings = (base, base + "_", base + "__", base.upper())
                if not any(s in self.symbols for s in spellings):
                    if base == _SIZEOF_PREFIX[:-1] and any(
                            s.startswith(_SIZEOF_PREFIX) for s in self.symbols):
                        found = True
                        count = sum(1 for s in self.symbols
                                    if s.startswith(_SIZEOF_PREFIX) and s.endswith("_")
                                    and not s.endswith("__"))
                        self.note("mpif", _SIZEOF_PREFIX + "*", "no-c-wrapper",
                                  f"{count} specific procedures of the generic MPI_SIZEOF, "
                                  "which is Fortran-only and calls nothing")
                    continue
                found = True
                matched.add(base + "_")
                targets = ["p" + base + "_", "p" + base, "p" + base + "__", ("p" + base).upper()]
                self.add("mpif", fn, base + "_", spellings, targets, name, base,
                         large=False, variant=bool(suffix))
            if not found:
                proc = self.modules.get(lower)
                if proc is not None and proc.bind_c:
                    self.note("mpif", lower + "_", "c-layer",
                              f"the module binds it to the C function {proc.bind_c}: "
                              "counted by the C wrapper")
                elif "c" not in fn.bindings:
                    self.note("mpif", lower + "_", "missing",
                              "Fortran-only, and the MPI defines no such entry point")
                else:
                    self.note("mpif", lower + "_", "missing",
                              "the MPI's Fortran libraries define no such entry point")
        for symbol in sorted(self.symbols):
            match = _F77_RE.match(symbol)
            if (match and symbol not in matched and not symbol.endswith("__")
                    and not _F08_RE.match(symbol) and not symbol.startswith(_SIZEOF_PREFIX)):
                self.note("mpif", symbol, "not-in-standard",
                          "not a procedure of the MPI 4.1 standard (removed, an extension "
                          "or a predefined callback): not wrapped")

    def f08(self) -> None:
        """use mpi_f08: the MPI's mpi_x_f08_, mpi_x_f08ts_(large_) entry points."""
        seen: set[str] = set()
        for symbol in sorted(self.symbols):
            match = _F08_RE.match(symbol)
            if not match:
                continue
            base, large = "mpi_" + match.group(2), bool(match.group(4))
            stem = next((base[:-len(s)] for s in VARIANT_SUFFIXES if base.endswith(s)), base)
            fn = self.by_lower.get(stem)
            if match.group(1) or fn is None or "f08" not in fn.bindings:
                self.note("f08", symbol, "not-in-standard",
                          "not a procedure of the MPI 4.1 standard's use mpi_f08: not wrapped")
                continue
            seen.add(fn.name)
            function = fn.name + "_c" if large else fn.name
            targets = ["p" + symbol, "pmpir_" + symbol[len("mpi_"):]]
            self.add("f08", fn, symbol, (symbol,), targets, function, symbol[:-1], large,
                     variant=stem != base)
        for name in sorted(self.spec.functions):
            fn = self.spec.functions[name]
            if "f08" not in fn.bindings or name in seen:
                continue
            lower = name.lower()
            proc = self.modules.get(lower + "_f08") or self.modules.get(lower + "_f08ts")
            if proc is not None and proc.bind_c:
                self.note("f08", lower + "_f08", "c-layer",
                          f"the module binds it to the C function {proc.bind_c}: "
                          "counted by the C wrapper")
            else:
                self.note("f08", lower + "_f08_", "missing",
                          "the MPI's Fortran libraries define no such entry point")


def reconcile_fortran(spec: Spec, reconciled: Reconciled, symbols: set[str],
                      modules: ModuleInterfaces, layering: str) -> FortranResult:
    """Decide, for every Fortran entry point, whether and how it is wrapped.

    reconciled is the C side's result: a Fortran call is counted as the C
    function of the same name, so only functions with a C wrapper qualify.
    """
    builder = _Builder(spec, reconciled, symbols, modules)
    builder.mpif()
    builder.f08()
    result = builder.result
    result.layering = layering
    result.notes = list(modules.notes)
    result.modules = modules.found
    calls = parse_layering(layering)
    c_names = set(builder.wrappers)
    for shim in result.shims:
        clash = [s for s in shim.symbols if s in c_names]
        if clash:
            raise GenError(f"the Fortran entry point {clash[0]} has the name of a C wrapper")
    for binding in BINDINGS:
        if result.shims_of(binding):
            result.strategy[binding] = "forward"
        elif summary(calls[binding]) == "MPI_X":
            result.strategy[binding] = "c-layer"
        elif summary(calls[binding]) == "absent":
            result.strategy[binding] = "absent"
        else:
            result.strategy[binding] = "none"
    result.shims.sort(key=lambda s: (s.binding, s.entry))
    result.coverage.sort(key=lambda e: (e.binding, e.name))
    return result


# ------------------------------------------------------------------ command line


def add_fortran_arguments(parser: argparse.ArgumentParser) -> None:
    """The Fortran options of mpiwatch-gen."""
    group = parser.add_argument_group("Fortran entry points (libmpiwatch_f)")
    group.add_argument("--mpifc", metavar="FC",
                       help="the MPI's Fortran compiler wrapper: also generate the Fortran "
                            "entry points (fortran_*.c, fortran-coverage.txt)")
    group.add_argument("--fortran-layering", metavar="TEXT",
                       help="which layer the MPI's Fortran bindings call, as configure "
                            "measured it (default: measure it now)")
    group.add_argument("--fortran-symbols-file", metavar="FILE",
                       help="take the MPI's Fortran entry points from FILE (one per line) "
                            "instead of reading its Fortran libraries")
    group.add_argument("--fortran-module", action="append", default=[], metavar="FILE",
                       help="read argument lists from this gfortran module file instead of "
                            "the MPI's mpi.mod and mpi_f08.mod (may be repeated)")


def fortran_wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "mpifc", None) or getattr(args, "fortran_symbols_file", None))


def probe_fortran(args: argparse.Namespace) -> tuple[set[str], ModuleInterfaces]:
    """The MPI's Fortran entry points and module interfaces (or those of the
    given files). Needs nothing from the C side, so it may run beside it."""
    from .symbols import fortran_library_symbols, symbols_from_file
    if args.fortran_symbols_file:
        symbols = symbols_from_file(args.fortran_symbols_file)
    else:
        symbols = fortran_library_symbols(args.mpifc)[0]
    if args.fortran_module:
        procedures: dict[str, ModuleProcedure] = {}
        notes = []
        for path in args.fortran_module:
            try:
                found = read_module(path)
            except (OSError, ValueError, EOFError) as err:
                raise GenError(f"cannot read the Fortran module: {err}", path) from None
            notes.append(f"module {path}: {len(found)} interfaces")
            for name, proc in found.items():
                procedures.setdefault(name, proc)
        found_names = tuple(os.path.basename(p).rsplit(".", 1)[0] for p in args.fortran_module)
        modules = ModuleInterfaces(procedures, notes, found_names)
    elif args.mpifc:
        modules = read_mpi_modules(args.mpifc)
    else:
        modules = ModuleInterfaces({}, ["no modules read: the standard's parameter lists "
                                        "are used"])
    return symbols, modules


def fortran_result(args: argparse.Namespace, spec: Spec, reconciled: Reconciled,
                   header: HeaderInfo,
                   probed: tuple[set[str], ModuleInterfaces] | None = None) -> FortranResult:
    """Probe the MPI's Fortran side (unless probed already) and reconcile."""
    symbols, modules = probed or probe_fortran(args)
    layering = args.fortran_layering
    if not layering:
        if args.mpifc:
            layering = probe_layering(args.mpicc, args.mpifc, header)[0]
        else:
            layering = "mpif:unknown;f08:unknown"
    parse_layering(layering)
    return reconcile_fortran(spec, reconciled, symbols, modules, layering)


def fortran_output_files(result: FortranResult, render: Callable[..., str],
                         env: jinja2.Environment, common: dict[str, object]) -> dict[str, str]:
    """File name -> content of the Fortran outputs (render is render.render_template)."""
    values = dict(common, layering=result.layering, layering_text=describe(result.layering),
                  result=result, titles=BINDING_TITLES)
    files = {COVERAGE_FILE: render(env, "fortran/coverage.txt.j2", **values),
             CALLS_FILE: render(env, "fortran/calls.c.j2", calls=result.calls, **values),
             SENTINELS_FILE: render(env, "fortran/sentinels.f90.j2",
                                    bindings=result.sentinel_bindings, **values)}
    for binding, name in OUTPUT_FILES.items():
        files[name] = render(env, "fortran/shims.c.j2", binding=binding,
                             shims=result.shims_of(binding), **values)
    return files
