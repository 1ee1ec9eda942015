"""Reconcile stage: join the header's prototypes with the standard's roles.

Every name known to the header, the libraries or the standard ends up with
one coverage status:

- wrapped: a PMPI_ prototype in the header and a PMPI_ symbol in the
  libraries, and MPI_X is not a macro. Functions the standard does not know
  (MPIX_*) are wrapped too, with timing only.
- macro:   the header #defines MPI_X, so it cannot be replaced at link time.
- absent:  declared in the header, but the libraries define no PMPI_ symbol.
- missing: in the standard's C binding, not declared by the header.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import GenError
from .probe import HeaderFunction, HeaderInfo
from .roles import categorize
from .spec import Spec, SpecFunction, SpecParam
from .inflight import InFlight, inflight_of
from .traffic import Traffic, traffic_of

# Functions whose wrapper has a part to play in the runtime's life.
_LIFECYCLE = {
    "MPI_Init": "init",
    "MPI_Init_thread": "init",
    "MPI_Finalize": "finalize",
    "MPI_Pcontrol": "pcontrol",
    "MPI_Query_thread": "query_thread",
}


@dataclass(frozen=True)
class WrapperParam:
    """A wrapper parameter: its declaration from the header, its role from the spec."""

    name: str
    declaration: str
    spec: SpecParam | None


@dataclass
class Wrapper:
    """Everything needed to render one MPI_X wrapper."""

    name: str
    header: HeaderFunction
    spec: SpecFunction | None
    large: bool
    category: str
    params: tuple[WrapperParam, ...]
    before: str = ""      # hook code run before the PMPI_ call
    after: str = ""       # hook code run after it
    traffic: Traffic = field(default_factory=Traffic)   # byte accounting statements
    inflight: InFlight = field(default_factory=InFlight)   # what a call in progress shows

    @property
    def id(self) -> str:
        """The C enumerator naming this function in the runtime."""
        return f"MW_ID_{self.name}"

    @property
    def lifecycle(self) -> str | None:
        """'init', 'finalize', 'pcontrol', 'query_thread' or None."""
        return _LIFECYCLE.get(self.name)

    @property
    def return_type(self) -> str:
        return self.header.return_type

    @property
    def returns_value(self) -> bool:
        return self.header.return_type != "void"

    @property
    def parameter_list(self) -> str:
        """The wrapper's parameter list, exactly as the header declares it."""
        decls = [p.declaration for p in self.params]
        if self.header.variadic:
            decls.append("...")
        return ", ".join(decls) or "void"

    @property
    def arguments(self) -> str:
        """The argument list of the PMPI_ call."""
        return ", ".join(p.name for p in self.params)

    @property
    def summary(self) -> str:
        """A one-line description for the comment above the wrapper."""
        if self.spec is None:
            return "not in the MPI standard: timed and counted only"
        variant = ", large-count variant" if self.large else ""
        return f"{self.category}{variant}"


@dataclass(frozen=True)
class CoverageEntry:
    """The coverage status of one MPI function name."""

    name: str
    status: str          # wrapped, macro, absent, missing
    detail: str


@dataclass
class Reconciled:
    """The result of reconciling one header with the spec."""

    wrappers: list[Wrapper] = field(default_factory=list)
    coverage: list[CoverageEntry] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for entry in self.coverage if entry.status == status)


def _param_names(header: HeaderFunction, spec_params: tuple[SpecParam, ...] | None) -> list[str]:
    """Names for the wrapper's parameters: the header's, else the spec's, else argN."""
    names: list[str] = []
    for index, param in enumerate(header.params):
        name = param.name
        if not name and spec_params is not None:
            name = spec_params[index].name
        if not name or name in names:
            name = f"arg{index}"
        names.append(name)
    return names


def _spec_params(fn: HeaderFunction, spec: SpecFunction | None, large: bool,
                 header_path: str) -> tuple[SpecParam, ...] | None:
    """The spec's C parameters matching the header's, or None if not in the spec."""
    if spec is None:
        return None
    params = tuple(p for p in spec.c_params(large) if p.kind != "VARARGS")
    if len(params) != len(fn.params):
        declared = ", ".join(p.type_text() for p in fn.params) or "void"
        standard = ", ".join(p.name for p in params) or "none"
        raise GenError(f"{fn.name} has {len(fn.params)} parameters ({declared}) but the "
                       f"standard gives {len(params)} ({standard}); fix the spec entry "
                       f"{spec.name} or report the header", fn.location or header_path)
    return params


def _make_wrapper(fn: HeaderFunction, spec: Spec, header_path: str) -> Wrapper:
    """Join one header prototype with its spec entry."""
    entry, large = spec.lookup(fn.name)
    spec_params = _spec_params(fn, entry, large, header_path)
    names = _param_names(fn, spec_params)
    params = tuple(
        WrapperParam(name, hp.declaration(name), spec_params[i] if spec_params else None)
        for i, (name, hp) in enumerate(zip(names, fn.params)))
    category = entry.category if entry is not None else categorize(fn.name)
    wrapper = Wrapper(fn.name, fn, entry, large, category, params)
    wrapper.traffic = traffic_of(wrapper)
    wrapper.inflight = inflight_of(wrapper)
    return wrapper


def _standard_c_names(spec: Spec) -> list[str]:
    """Every C function name the standard defines, large-count variants included."""
    names: list[str] = []
    for entry in spec.functions.values():
        if "c" not in entry.bindings:
            continue
        names.append(entry.name)
        if entry.large_count:
            names.append(entry.name + "_c")
    return names


def reconcile(header: HeaderInfo, spec: Spec, symbols: set[str] | None) -> Reconciled:
    """Decide, for every function, whether it is wrapped and why not."""
    result = Reconciled()
    for name in sorted(header.functions):
        fn = header.functions[name]
        macro = header.macros.get(name)
        if macro is not None:
            result.coverage.append(CoverageEntry(name, "macro", macro.text))
        elif symbols is not None and "P" + name not in symbols:
            result.coverage.append(CoverageEntry(
                name, "absent", f"declared at {fn.location}, but the MPI libraries "
                                f"define no P{name} symbol"))
        else:
            result.wrappers.append(_make_wrapper(fn, spec, header.header))
            source = "standard" if spec.lookup(name)[0] else "not in the standard"
            result.coverage.append(CoverageEntry(name, "wrapped", source))
    for name in sorted(set(_standard_c_names(spec)) - set(header.functions)):
        macro = header.macros.get(name)
        if macro is not None:
            result.coverage.append(CoverageEntry(name, "macro", macro.text))
        else:
            result.coverage.append(CoverageEntry(name, "missing", "not declared by the header"))
    result.coverage.sort(key=lambda entry: entry.name)
    return result
