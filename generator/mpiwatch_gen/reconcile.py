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

import re

from .errors import GenError
from .inflight import inflight_of
from .model import CoverageEntry, CoverageStatus, Reconciled, Wrapper
from .parameters import WrapperParam
from .moves import derive
from .probe import HeaderFunction, HeaderInfo
from .roles import categorize
from .spec import Spec, SpecFunction, SpecParam
from .trace_notes import trace_notes_of

__all__ = ["CoverageEntry", "CoverageStatus", "Reconciled", "Wrapper", "WrapperParam",
           "reconcile"]


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
    traffic = derive(fn.name, entry, large, category, params)
    return Wrapper(fn.name, fn, entry, large, category, params, traffic=traffic,
                   inflight=inflight_of(fn.name, entry, large, category, params),
                   trace=trace_notes_of(fn.name, entry, large, category, params, traffic))


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


def _version(text: str) -> tuple[int, ...]:
    """(major, minor) from "MPI 4.1"-like text, () when none."""
    found = re.search(r"\bMPI (\d+)\.(\d+)", text)
    return (int(found.group(1)), int(found.group(2))) if found else ()


def _not_in_spec(header: HeaderInfo, spec: Spec) -> str:
    """The coverage detail of a wrapped function the spec lacks: a header of a
    newer standard than the spec's (MPI 5.0's MPI_Abi_*, MPI_X_toint) has
    functions of the standard that the spec cannot know."""
    ours, theirs = _version(header.version), _version(spec.source)
    if ours and theirs and ours > theirs:
        return (f"not in the spec (MPI {theirs[0]}.{theirs[1]}; the header is "
                f"MPI {ours[0]}.{ours[1]})")
    return "not in the standard"


def reconcile(header: HeaderInfo, spec: Spec, symbols: set[str] | None) -> Reconciled:
    """Decide, for every function, whether it is wrapped and why not."""
    not_in_spec = _not_in_spec(header, spec)
    wrappers: list[Wrapper] = []
    coverage: list[CoverageEntry] = []
    for name in sorted(header.functions):
        fn = header.functions[name]
        macro = header.macros.get(name)
        if macro is not None:
            coverage.append(CoverageEntry(name, CoverageStatus.MACRO, macro.text))
        elif symbols is not None and "P" + name not in symbols:
            coverage.append(CoverageEntry(
                name, CoverageStatus.ABSENT, f"declared at {fn.location}, but the MPI "
                                             f"libraries define no P{name} symbol"))
        else:
            wrappers.append(_make_wrapper(fn, spec, header.header))
            source = "standard" if spec.lookup(name)[0] else not_in_spec
            coverage.append(CoverageEntry(name, CoverageStatus.WRAPPED, source))
    for name in sorted(set(_standard_c_names(spec)) - set(header.functions)):
        macro = header.macros.get(name)
        if macro is not None:
            coverage.append(CoverageEntry(name, CoverageStatus.MACRO, macro.text))
        else:
            coverage.append(CoverageEntry(name, CoverageStatus.MISSING,
                                          "not declared by the header"))
    coverage.sort(key=lambda entry: entry.name)
    return Reconciled(tuple(wrappers), tuple(coverage))
