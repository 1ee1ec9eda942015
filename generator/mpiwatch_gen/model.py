"""The generator's model of the C side: what each stage hands the next.

Every value here is frozen: reconcile.py builds the wrappers and the
coverage in one pass, hooks.py returns new wrappers carrying the hooks' code
(dataclasses.replace), and the render stage only reads them. The modules
that derive a wrapper's parts (moves.py, inflight.py, trace_notes.py) need only WrapperParam
(parameters.py) and the spec, so they import neither this module nor the
stages that use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .inflight import InFlight
from .moves import MemoUse, Moves
from .parameters import WrapperParam
from .probe import HeaderFunction
from .spec import SpecFunction
from .trace_notes import TraceNotes


class Lifecycle(StrEnum):
    """The wrappers with a part to play in the runtime's life (their template's name)."""

    INIT = "init"
    FINALIZE = "finalize"
    PCONTROL = "pcontrol"
    QUERY_THREAD = "query_thread"
    ABORT = "abort"


LIFECYCLE: dict[str, Lifecycle] = {
    "MPI_Init": Lifecycle.INIT,
    "MPI_Init_thread": Lifecycle.INIT,
    "MPI_Finalize": Lifecycle.FINALIZE,
    "MPI_Pcontrol": Lifecycle.PCONTROL,
    "MPI_Query_thread": Lifecycle.QUERY_THREAD,
    "MPI_Abort": Lifecycle.ABORT,
}


class CoverageStatus(StrEnum):
    """Why an MPI function name is, or is not, wrapped (coverage.txt)."""

    WRAPPED = "wrapped"   # a PMPI_ prototype and symbol, and MPI_X is no macro
    MACRO = "macro"       # the header #defines MPI_X
    ABSENT = "absent"     # declared, but the libraries define no PMPI_ symbol
    MISSING = "missing"   # in the standard's C binding, not in the header


@dataclass(frozen=True)
class Wrapper:
    """Everything needed to render one MPI_X wrapper."""

    name: str
    header: HeaderFunction
    spec: SpecFunction | None
    large: bool
    category: str
    params: tuple[WrapperParam, ...]
    traffic: Moves                 # what the call moves, and the runtime's notes of it
    inflight: InFlight             # what a call in progress shows
    before: str = ""               # hook code run before the PMPI_ call (hooks.py)
    after: str = ""                # hook code run after it
    trace: TraceNotes = TraceNotes()   # what the trace adds: requests, root, polls

    @property
    def id(self) -> str:
        """The C enumerator naming this function in the runtime."""
        return f"MW_ID_{self.name}"

    @property
    def lifecycle(self) -> Lifecycle | None:
        """The wrapper's part in the runtime's life, or None."""
        return LIFECYCLE.get(self.name)

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
    def memo_shape(self) -> MemoUse | None:
        """The call site's memo its calls could use, hooks aside: a function
        that returns its error code and creates no handle the monitor learns
        (runtime/traffic/memo.h). Fortran entry points plan their hand-over
        and slot from this, so that adding a hook does not change them."""
        if not self.returns_value or self.inflight.creates:
            return None
        return self.traffic.memo

    @property
    def memo(self) -> MemoUse | None:
        """The memo its fast bodies use, C and Fortran alike: none when hooked
        (hook code runs between the guard and the clock)."""
        return None if self.before or self.after else self.memo_shape

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
    status: CoverageStatus
    detail: str


@dataclass(frozen=True)
class HookCode:
    """The hooks' file-scope code: declarations and definitions."""

    prelude: str = ""
    definitions: str = ""


@dataclass(frozen=True)
class Reconciled:
    """The result of reconciling one header with the spec; after the hooks
    stage, a copy whose wrappers carry the hooks' code, and that code's
    file-scope parts."""

    wrappers: tuple[Wrapper, ...] = ()
    coverage: tuple[CoverageEntry, ...] = ()
    hooks: HookCode = HookCode()

    def count(self, status: str) -> int:
        return sum(1 for entry in self.coverage if entry.status == status)
