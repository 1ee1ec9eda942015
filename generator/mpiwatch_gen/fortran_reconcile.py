"""Fortran reconcile stage: which Fortran entry points libmpiwatch_f defines, and how.

A Fortran program calls the MPI's Fortran entry points (``mpi_send_``,
``mpi_send_f08_``...), which a C-only profiling layer may never see: Open MPI
implements them on ``PMPI_X``. So libmpiwatch_f defines every Fortran entry
point the MPI defines and the standard describes, each forwarding its
arguments *untouched* to the MPI's own Fortran profiling entry point
(``pmpi_send_``, ``pmpi_send_f08_``, MPICH's ``pmpir_send_f08ts_``), and
counting the call through libmpiwatch's re-entry guard. docs/fortran.md has
the details.

What is generated, per entry point, comes from three sources, all probed
before this stage runs (fortran_probe.py):

- the MPI's Fortran libraries: which entry points and profiling entry points
  exist;
- the MPI's modules (fmodule), when readable: the argument lists callers are
  compiled against, and the procedures bound directly to C;
- the spec: the standard's parameter lists (those with the f90 or f08
  binding; CHARACTER kinds get a hidden length each), and the return type
  of the few Fortran functions (MPI_WTIME, MPI_AINT_ADD...).

The result is frozen, built in one pass; render.py renders it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Mapping

from .errors import GenError
from .fmodule import ModuleInterfaces, ModuleProcedure
from .fortran_calls import CallPlan, FortranArg, FortranCall, plan_call
from .fortran_trace import FortranTrace, fortran_trace_of
from .layering import FortranBinding, Layering
from .model import CoverageStatus, Lifecycle, Reconciled, Wrapper
from .spec import Spec, SpecFunction

STRING_KINDS = frozenset({"STRING", "STRING_ARRAY", "STRING_2DARRAY"})
# Specific procedures some MPIs add to a generic of ``use mpi`` under another
# name, with the same arguments (Open MPI: MPI_ALLOC_MEM with a TYPE(C_PTR)).
VARIANT_SUFFIXES = ("_cptr",)
_F08_RE = re.compile(r"^mpi(x?)_([a-z0-9_]+?)_(f08(?:ts)?)(_large)?_$")
_F77_RE = re.compile(r"^mpix?_([a-z0-9_]+)_$")
# MPI_SIZEOF is a generic: each MPI names its many specific procedures as it likes.
_SIZEOF_PREFIX = "mpi_sizeof_"
_C_KEYWORDS = frozenset({
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "ret"})


class FortranStatus(StrEnum):
    """Why a Fortran entry point is, or is not, defined by libmpiwatch_f."""

    WRAPPED = "wrapped"                  # forwards to the MPI's profiling entry point
    C_LAYER = "c-layer"                  # the module calls the C function: counted there
    NO_PMPI = "no-pmpi"                  # no Fortran profiling entry point to forward to
    NO_C_WRAPPER = "no-c-wrapper"        # no C wrapper to count it as
    UNSUPPORTED = "unsupported"          # cannot be forwarded opaquely
    NOT_IN_STANDARD = "not-in-standard"  # defined by the MPI, not in the standard
    MISSING = "missing"                  # in the standard's binding, not defined


class Strategy(StrEnum):
    """How a binding's calls are counted."""

    FORWARD = "forward"      # libmpiwatch_f's entry points
    C_LAYER = "c-layer"      # the binding calls MPI_X: the C wrappers count them
    ABSENT = "absent"        # the MPI has no such binding
    NONE = "none"            # not counted


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

    binding: FortranBinding
    entry: str                     # the MPI's entry point, e.g. "mpi_send_"
    function: str                  # the C function it is counted as, e.g. "MPI_Send"
    symbols: tuple[str, ...]       # the names it is defined under
    target: str                    # the MPI's profiling entry point it calls
    params: tuple[ShimParam, ...]
    return_type: str               # "void" for a subroutine
    lifecycle: Lifecycle | None    # init, finalize, pcontrol or None (the generic shim)
    source: str                    # where the arguments come from: standard or module
    plan: CallPlan | None = None   # how it hands the C wrapper's values to libmpiwatch
    trace: FortranTrace = FortranTrace()   # what its profiled body tells the trace

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
    def gated(self) -> bool:
        """A generic entry point that needs nothing of libmpiwatch while
        profiling is off (no persistent request or freed handle to note):
        its gate sends the call straight to the MPI then (fortran/gate.h)."""
        return self.lifecycle is None and not (
            self.plan and (self.plan.call.prepare or self.plan.call.unprofiled))

    @property
    def has_fast_body(self) -> bool:
        """A subroutine only counted, or ending in its wrapper's statements
        without before-hooks: it has a fast body in libmpiwatch
        (generated/fortran_calls.c), which its slot points at in the usual
        profiled case."""
        call = self.plan.call if self.plan else None
        return (self.gated and not self.returns_value
                and (call is None or (bool(call.after) and not call.before)))

    @property
    def has_handoff(self) -> bool:
        """A fast body whose wrapper keeps a call-site memo: it has a hand-over
        stub, and where the probe finds that the MPI's binding reaches the C
        wrapper, its slot points at the stub, and the C wrapper's fast body
        counts the call (runtime/core/handoff.h). Hooks aside: a hooked
        wrapper keeps no memo, so its entry point never probes (calls.c.j2),
        but its stub and slot-table entry stay, so that a hook file changes
        neither generated/fortran_mpif.c nor fortran_f08.c."""
        return self.has_fast_body and bool(self.plan and self.plan.memo_shape)

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

    binding: FortranBinding
    name: str
    status: FortranStatus
    detail: str


@dataclass(frozen=True)
class FortranResult:
    """Everything the Fortran templates need, and the coverage."""

    shims: tuple[Shim, ...]
    coverage: tuple[FortranEntry, ...]
    layering: str
    strategy: Mapping[FortranBinding, Strategy]
    notes: tuple[str, ...]
    modules: tuple[str, ...]       # the MPI's modules the compiler has

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
        if "mpi_f08" in self.modules or self.shims_of(FortranBinding.F08):
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


def _params_from_spec(fn: SpecFunction, binding: FortranBinding, large: bool) -> tuple[ShimParam, ...]:
    spec_binding = "f90" if binding == MPIF else "f08"
    taken: set[str] = set()
    return tuple(ShimParam(_c_name(p.name, taken), p.kind in STRING_KINDS, p.name, p.kind)
                 for p in fn.params
                 if spec_binding in p.bindings and p.kind != "VARARGS"
                 and (large or not p.large_only))


def _params_from_module(proc: ModuleProcedure) -> tuple[ShimParam, ...]:
    taken: set[str] = set()
    return tuple(ShimParam(_c_name(a.name, taken), a.character) for a in proc.args)


def _plan(wrapper: Wrapper, entry: str, params: tuple[ShimParam, ...],
          lifecycle: Lifecycle | None) -> tuple[CallPlan | None, str]:
    """How the entry point hands the C wrapper's values over, and a coverage remark."""
    call = FortranCall(wrapper)
    # use mpi_f08's TYPE(*), DIMENSION(..) choice buffers come as descriptors.
    descriptors = "_f08ts" in entry
    args = {p.spec_name: FortranArg(p.name, descriptors and p.kind == "BUFFER")
            for p in params if p.spec_name}
    if lifecycle is Lifecycle.FINALIZE and (wrapper.before or wrapper.after):
        # MPI_FINALIZE has no arguments to convert: only its hooks to run.
        ierror = args.get("ierror")
        return CallPlan(call, (), (), ierror.slot if ierror else None), ""
    if lifecycle or not call.wanted:
        return None, ""
    plan = plan_call(call, args)
    if isinstance(plan, str):
        return None, f"; bytes not measured: {plan}"
    return plan, ""


MPIF, F08 = FortranBinding.MPIF, FortranBinding.F08


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
        self.shims: list[Shim] = []
        self.coverage: list[FortranEntry] = []

    def note(self, binding: FortranBinding, name: str, status: FortranStatus,
             detail: str) -> None:
        self.coverage.append(FortranEntry(binding, name, status, detail))

    def _arguments(self, fn: SpecFunction, binding: FortranBinding, proc_name: str,
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

    def add(self, binding: FortranBinding, fn: SpecFunction, entry: str, symbols: tuple[str, ...],
            targets: list[str], function: str, proc_name: str, large: bool,
            variant: bool) -> None:
        target = _pick(self.symbols, targets)
        if target is None:
            self.note(binding, entry, FortranStatus.NO_PMPI,
                      f"the MPI has no profiling entry point ({' or '.join(targets)})")
            return
        wrapper = self.wrappers.get(function)
        if wrapper is None:
            self.note(binding, entry, FortranStatus.NO_C_WRAPPER, self._why_no_wrapper(fn, function))
            return
        found = self._arguments(fn, binding, proc_name, large)
        if found is None:
            self.note(binding, entry, FortranStatus.UNSUPPORTED,
                      "the module passes an argument by VALUE; not forwarded opaquely")
            return
        params, source = found
        return_type = "void" if fn.return_role == "error" else wrapper.return_type
        lifecycle = None if variant or large else wrapper.lifecycle
        if (lifecycle is Lifecycle.PCONTROL and not params) or lifecycle is Lifecycle.QUERY_THREAD:
            lifecycle = None   # the generic shim
        plan, remark = _plan(wrapper, entry, params, lifecycle)
        trace = fortran_trace_of(binding, wrapper.trace,
                                 [(p.spec_name, p.name) for p in params],
                                 function, wrapper.inflight.creates)
        shim = Shim(binding, entry, function, symbols, target, params, return_type, lifecycle,
                    source, plan, trace)
        self.shims.append(shim)
        self.note(binding, entry, FortranStatus.WRAPPED,
                  f"{function} -> {target} [{' '.join(symbols)}] ({source}){remark}")

    def _why_no_wrapper(self, fn: SpecFunction, function: str) -> str:
        if "c" not in fn.bindings:
            return f"{fn.name} is Fortran-only: no C function to count it as"
        status, _detail = self.c_status.get(function, (CoverageStatus.MISSING, ""))
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
                        self.note(MPIF, _SIZEOF_PREFIX + "*", FortranStatus.NO_C_WRAPPER,
                                  f"{count} specific procedures of the generic MPI_SIZEOF, "
                                  "which is Fortran-only and calls nothing")
                    continue
                found = True
                matched.add(base + "_")
                targets = ["p" + base + "_", "p" + base, "p" + base + "__", ("p" + base).upper()]
                self.add(MPIF, fn, base + "_", spellings, targets, name, base,
                         large=False, variant=bool(suffix))
            if not found:
                proc = self.modules.get(lower)
                if proc is not None and proc.bind_c:
                    self.note(MPIF, lower + "_", FortranStatus.C_LAYER,
                              f"the module binds it to the C function {proc.bind_c}: "
                              "counted by the C wrapper")
                elif "c" not in fn.bindings:
                    self.note(MPIF, lower + "_", FortranStatus.MISSING,
                              "Fortran-only, and the MPI defines no such entry point")
                else:
                    self.note(MPIF, lower + "_", FortranStatus.MISSING,
                              "the MPI's Fortran libraries define no such entry point")
        for symbol in sorted(self.symbols):
            match = _F77_RE.match(symbol)
            if (match and symbol not in matched and not symbol.endswith("__")
                    and not _F08_RE.match(symbol) and not symbol.startswith(_SIZEOF_PREFIX)):
                self.note(MPIF, symbol, FortranStatus.NOT_IN_STANDARD,
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
                self.note(F08, symbol, FortranStatus.NOT_IN_STANDARD,
                          "not a procedure of the MPI 4.1 standard's use mpi_f08: not wrapped")
                continue
            seen.add(fn.name)
            function = fn.name + "_c" if large else fn.name
            targets = ["p" + symbol, "pmpir_" + symbol[len("mpi_"):]]
            self.add(F08, fn, symbol, (symbol,), targets, function, symbol[:-1], large,
                     variant=stem != base)
        for name in sorted(self.spec.functions):
            fn = self.spec.functions[name]
            if "f08" not in fn.bindings or name in seen:
                continue
            lower = name.lower()
            proc = self.modules.get(lower + "_f08") or self.modules.get(lower + "_f08ts")
            if proc is not None and proc.bind_c:
                self.note(F08, lower + "_f08", FortranStatus.C_LAYER,
                          f"the module binds it to the C function {proc.bind_c}: "
                          "counted by the C wrapper")
            else:
                self.note(F08, lower + "_f08_", FortranStatus.MISSING,
                          "the MPI's Fortran libraries define no such entry point")


def _strategy(binding: FortranBinding, shims: list[Shim], layering: Layering) -> Strategy:
    """How the binding's calls are counted."""
    if any(s.binding == binding for s in shims):
        return Strategy.FORWARD
    word = layering.summary(binding)
    if word == "MPI_X":
        return Strategy.C_LAYER
    if word == "absent":
        return Strategy.ABSENT
    return Strategy.NONE


def reconcile_fortran(spec: Spec, reconciled: Reconciled, symbols: set[str] | frozenset[str],
                      modules: ModuleInterfaces, layering: str) -> FortranResult:
    """Decide, for every Fortran entry point, whether and how it is wrapped.

    reconciled is the C side's result (with its hooks): a Fortran call is
    counted as the C function of the same name, so only functions with a C
    wrapper qualify. Everything else was probed before (fortran_probe.py).
    """
    parsed = Layering.parse(layering)
    builder = _Builder(spec, reconciled, set(symbols), modules)
    builder.mpif()
    builder.f08()
    c_names = set(builder.wrappers)
    for shim in builder.shims:
        clash = [s for s in shim.symbols if s in c_names]
        if clash:
            raise GenError(f"the Fortran entry point {clash[0]} has the name of a C wrapper")
    return FortranResult(
        shims=tuple(sorted(builder.shims, key=lambda s: (s.binding, s.entry))),
        coverage=tuple(sorted(builder.coverage, key=lambda e: (e.binding, e.name))),
        layering=layering,
        strategy=MappingProxyType({b: _strategy(b, builder.shims, parsed)
                                   for b in FortranBinding}),
        notes=tuple(modules.notes),
        modules=tuple(modules.found))
