"""What a Fortran call tells libmpiwatch: the C wrapper's own accounting and hooks.

A C wrapper notes what its call moved (moves.py) and runs the user's hooks
(hooks.py), both as C statements over its parameters. A Fortran entry point
of the same function must record exactly the same, so nothing is derived a
second time: libmpiwatch gets, per wrapper, small exported functions that
run those very statements (generated/fortran_calls.c, from
templates/fortran/calls.c.j2), and the Fortran entry point calls them with
its arguments converted to the C wrapper's parameters (C expressions over
the Fortran arguments, built here from the C declarations; the helpers are
in runtime/fortran/convert.h).

Only the parameters that those statements use are converted; the others are
passed as zeros. An entry point whose used parameters cannot all be
converted (a string, a callback, an array of statuses) is counted and timed
only, and the coverage says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .model import Wrapper
from .parameters import WrapperParam

# Handle types, with the MPI's conversion from a Fortran INTEGER handle.
_F2C = {
    "MPI_Comm": "PMPI_Comm_f2c", "MPI_Datatype": "PMPI_Type_f2c",
    "MPI_Group": "PMPI_Group_f2c", "MPI_Request": "PMPI_Request_f2c",
    "MPI_File": "PMPI_File_f2c", "MPI_Win": "PMPI_Win_f2c", "MPI_Op": "PMPI_Op_f2c",
    "MPI_Info": "PMPI_Info_f2c", "MPI_Errhandler": "PMPI_Errhandler_f2c",
    "MPI_Message": "PMPI_Message_f2c", "MPI_Session": "PMPI_Session_f2c",
}
# Arrays of handles the runtime has a converter for (convert.h).
_ARRAYS = {"MPI_Datatype": "mw_f_datatype_array", "MPI_Request": "mw_f_request_array"}
# Fortran INTEGERs of these kinds are read as the C type of the same width.
_INTEGERS = {"int", "MPI_Count", "MPI_Aint", "MPI_Offset", "MPI_Fint"}
_DECLARATION_RE = re.compile(r"^(?P<type>.*?)\b(?P<name>\w+)\s*(?P<array>(\[[^\]]*\])*)\s*$")


@dataclass(frozen=True)
class CType:
    """A C parameter's type, as far as the conversion cares."""

    base: str          # "int", "MPI_Comm", "void"...
    const: bool
    pointers: int      # '*' count, an array counting as one
    array: bool

    @property
    def text(self) -> str:
        return f"{'const ' if self.const else ''}{self.base} {'*' * self.pointers}".strip()


def c_type(param: WrapperParam) -> CType | None:
    """The type of a wrapper parameter, from its declaration."""
    match = _DECLARATION_RE.match(param.declaration)
    if match is None or match.group("name") != param.name:
        return None
    words = match.group("type").replace("*", " * ").split()
    const = "const" in words
    pointers = words.count("*")
    base = " ".join(w for w in words if w not in ("const", "*"))
    array = bool(match.group("array"))
    return CType(base, const, pointers + (1 if array else 0), array)


def _zero(ctype: CType) -> str:
    """A harmless value for a parameter the statements do not use."""
    return "NULL" if ctype.pointers else f"({ctype.base})0"


@dataclass(frozen=True)
class FortranArg:
    """Where a C parameter's value comes from in a Fortran entry point."""

    slot: str            # the entry point's argument (a void *)
    descriptor: bool     # a choice buffer passed as an array descriptor


class _Converter:
    """C expressions for one wrapper's parameters, from one entry point's arguments."""

    def __init__(self, wrapper: Wrapper, args: dict[str, FortranArg]) -> None:
        self.wrapper = wrapper
        ierror = args.get("ierror")
        self.ok = f"mw_f_error({ierror.slot}) == MPI_SUCCESS" if ierror else "0"
        self.args = args
        self.locals: list[str] = []
        self.type_arrays = 0        # scratch slots taken (MPI_ALLTOALLW converts two)

    def expression(self, param: WrapperParam) -> str | None:
        ctype = c_type(param)
        if ctype is None or param.spec is None or param.spec.name not in self.args:
            return None
        arg = self.args[param.spec.name]
        f = arg.slot
        base, pointers = ctype.base, ctype.pointers
        if base in _INTEGERS and pointers == 0:
            return f"*(const {base} *){f}"
        if base in _INTEGERS and pointers == 1:
            return f"({ctype.text}){f}"
        if base == "void" and pointers == 1:
            return f"mw_f_buffer({f}, {1 if arg.descriptor else 0})"
        if base in _F2C and pointers == 0:
            return f"{_F2C[base]}(*(const MPI_Fint *){f})"
        if base == "MPI_Status" and pointers == 1 and not ctype.array:
            local = f"mw_{param.name}"
            self.locals.append(f"MPI_Status {local};")
            return f"mw_f_status({f}, &{local})"
        if base in _F2C and pointers == 1 and not ctype.array:
            local = f"mw_{param.name}"
            self.locals.append(f"{base} {local};")
            return f"({local} = {_F2C[base]}(*(const MPI_Fint *){f}), &{local})"
        if base in _ARRAYS and pointers == 1:
            return self._array(param, base, f)
        return None

    def _array(self, param: WrapperParam, base: str, f: str) -> str | None:
        length = param.spec.length if param.spec else None
        if length == "*":
            comm = next((p for p in self.wrapper.params
                         if p.spec is not None and p.spec.name == "comm"), None)
            count = self.expression(comm) if comm is not None else None
            count = f"mpiwatch_fortran_comm_peers({count})" if count else None
        else:
            counted = next((p for p in self.wrapper.params
                            if p.spec is not None and p.spec.name == length), None)
            count = self.expression(counted) if counted is not None else None
        if count is None:
            return None
        # Converted only after a successful call: a failed one may have
        # passed handles that the MPI's calls would reject.
        if base == "MPI_Datatype":
            self.type_arrays += 1
            array = f"{_ARRAYS[base]}({self.type_arrays - 1}, {count}, (const MPI_Fint *){f})"
        else:
            array = f"{_ARRAYS[base]}({count}, (const MPI_Fint *){f})"
        return f"({self.ok} ? {array} : NULL)"


@dataclass(frozen=True)
class FortranCall:
    """The exported functions libmpiwatch has for the Fortran calls of one wrapper."""

    wrapper: Wrapper

    @property
    def name(self) -> str:
        return self.wrapper.name

    @property
    def prepare(self) -> bool:
        """Statements run before the call, profiled or not (handles freed)."""
        return bool(self.wrapper.traffic.before)

    @property
    def before(self) -> bool:
        return bool(self.wrapper.before)

    @property
    def after(self) -> bool:
        """Traffic notes or hooks: the call ends in libmpiwatch's function."""
        return bool(self.wrapper.traffic.notes or self.wrapper.after or self.wrapper.before)

    @property
    def unprofiled(self) -> bool:
        """An *_init call: its request is remembered even when not profiled."""
        return self.wrapper.traffic.persistent

    @property
    def wanted(self) -> bool:
        return self.prepare or self.after or self.unprofiled

    def used_parameters(self) -> list[WrapperParam]:
        """The parameters the statements mention (by name, as C identifiers)."""
        text = "\n".join(self.wrapper.traffic.before + self.wrapper.traffic.notes
                         + (self.wrapper.before, self.wrapper.after, self.wrapper.trace.receive))
        words = set(re.findall(r"\b[A-Za-z_]\w*\b", text))
        return [p for p in self.wrapper.params if p.name in words]


@dataclass(frozen=True)
class FortranMemo:
    """The call site's memo of a fast Fortran body (runtime/traffic/memo.h):
    keyed by the Fortran handles as they are, so that a call that hits it
    converts nothing. C expressions over the entry point's arguments."""

    kind: str                      # the C wrapper's MW_MEMO_*, marked Fortran
    end: str
    datatype: str
    comm: str
    count: str
    peer: str
    count2: str | None = None
    peer2: str | None = None
    datatype2: str | None = None
    # A receive from MPI_ANY_SOURCE (or MPI_PROC_NULL) takes the general way,
    # which reads the matched source from the converted status.
    known_source: bool = False
    # The handles' Fortran arguments, as pointers: the fast body's look-up
    # reads them only once the call site has matched (mw_memo_hit_fortran).
    datatype_at: str = ""
    comm_at: str = ""


def plan_memo(call: FortranCall, args: dict[str, FortranArg]) -> FortranMemo | None:
    """The memo of a fast body, when its wrapper has one, hooks aside: a
    hooked wrapper keeps no memo, but whether the entry point could use one
    must not depend on the hooks (its hand-over stub and slot-table entry stay
    the same, so that adding a hook compiles only what the hook changes)."""
    wrapper = call.wrapper
    memo = wrapper.memo_shape
    if memo is None:
        return None
    by_name = {p.name: p for p in wrapper.params}

    def raw(expression: str | None) -> str | None:
        param = by_name.get(expression or "")
        if param is None or param.spec is None or param.spec.name not in args:
            return None
        ctype = c_type(param)
        slot = args[param.spec.name].slot
        if ctype is None or ctype.pointers != 0:
            return None
        if ctype.base in ("MPI_Datatype", "MPI_Comm"):
            return f"(uintptr_t)(unsigned)*(const MPI_Fint *){slot}"
        return f"*(const {ctype.base} *){slot}" if ctype.base in _INTEGERS else None

    keys = [raw(memo.datatype), raw(memo.comm), raw(memo.count)]
    peer = "0" if memo.peer == "0" else raw(memo.peer)
    sides = [raw(memo.count2), raw(memo.peer2)] if memo.count2 else []
    type2 = raw(memo.datatype2) if memo.datatype2 else None
    if None in keys + sides or peer is None or (memo.datatype2 and type2 is None):
        return None
    return FortranMemo(memo.kind + " | MW_MEMO_FORTRAN", memo.end, keys[0], keys[1], keys[2],
                       peer, *(sides or [None, None]), type2,
                       known_source=memo.kind == "MW_MEMO_RECV",
                       datatype_at=f"(const MPI_Fint *){args[by_name[memo.datatype].spec.name].slot}",
                       comm_at=f"(const MPI_Fint *){args[by_name[memo.comm].spec.name].slot}")


@dataclass(frozen=True)
class CallPlan:
    """How one Fortran entry point calls its wrapper's FortranCall."""

    call: FortranCall
    arguments: tuple[str, ...]     # the C arguments, converted or zero
    locals: tuple[str, ...]        # declarations the conversions need
    ierror: str | None             # the entry point's ierror argument
    memo_shape: FortranMemo | None = None   # its wrapper's memo, hooks aside

    @property
    def memo(self) -> FortranMemo | None:
        """Its fast body's memo: where the C wrapper's fast body has one
        (Wrapper.memo, the one decision both read)."""
        return self.memo_shape if self.call.wrapper.memo is not None else None


def plan_call(call: FortranCall, args: dict[str, FortranArg]) -> CallPlan | str:
    """The conversion of one entry point's arguments, or why there is none."""
    converter = _Converter(call.wrapper, args)
    used = {p.name for p in call.used_parameters()}
    expressions = []
    for param in call.wrapper.params:
        ctype = c_type(param)
        if ctype is None:
            return f"cannot read the C declaration '{param.declaration}'"
        if param.name not in used:
            expressions.append(_zero(ctype))
            continue
        expression = converter.expression(param)
        if expression is None:
            return f"its argument {param.name} ({ctype.text}) has no conversion from Fortran"
        expressions.append(expression)
    ierror = args.get("ierror")
    if call.after and ierror is None:
        return "it has no ierror argument to tell success"
    return CallPlan(call, tuple(expressions), tuple(converter.locals),
                    ierror.slot if ierror else None, plan_memo(call, args))
