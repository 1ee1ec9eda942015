"""What a call moves, derived once from the spec's roles and sides.

Every consumer of "what did this call transfer" reads the Moves built here:
the C wrappers (templates/wrapper/generic.c.j2 renders ``traffic.notes``),
the Fortran entry points (fortran_calls.py hands the same statements to
libmpiwatch), and the hooks (HookContext reads the same Binding of roles).

The derivation works in two steps, in the style of a bindings generator
that attaches behaviour to semantic types:

1. ``Binding`` views a call's parameters by role and side (the count of the
   send side, the peer of the receive side, the tag that follows a peer),
   never by the parameters' names, so headers naming them differently and
   the large-count variants all work.
2. A registry of *movements*, one rule per kind of data movement (a
   point-to-point send, a receive, a collective pattern, a one-sided access,
   a file access, a start of persistent requests), each a function from a
   Binding to a frozen Moves. Which rule applies follows from the function's
   category and the operation it performs (Bcast, Gather...); everything the
   rule needs (counts, datatypes, peers, root, the v and w variants from the
   lengths of counts and datatypes, the buffer that may be MPI_IN_PLACE, the
   request a persistent call creates) comes from the roles.

A Moves describes the call; its C statements (``before``, ``notes``) are
rendered from that description, calling the runtime's ``mw_note_*``
functions (runtime/traffic/traffic.h).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum, StrEnum
from typing import Callable, Sequence

from .parameters import WrapperParam
from .spec import SpecFunction, SpecParam


class Side(StrEnum):
    """The half of a transfer a parameter belongs to (docs/spec.md)."""

    SEND = "send"
    RECV = "recv"
    ORIGIN = "origin"
    TARGET = "target"
    RESULT = "result"
    COMPARE = "compare"


class Variant(Enum):
    """How a collective gives its counts and datatypes."""

    SCALAR = ""     # one count and one datatype per side
    V = "v"         # an array of counts on a side
    W = "w"         # arrays of counts and of datatypes


class Kind(StrEnum):
    """The kinds of data movement the runtime notes."""

    NONE = "none"
    SEND = "send"
    PSEND = "psend"
    RECV = "recv"
    PRECV = "precv"
    MRECV = "mrecv"
    SENDRECV = "sendrecv"
    START = "start"
    STARTALL = "startall"
    COLLECTIVE = "collective"
    RMA = "rma"
    IO = "io"


class Frees(Enum):
    """What a call frees that the runtime caches facts about."""

    NOTHING = 0
    HANDLE = 1      # a datatype, communicator or window: all caches forgotten
    REQUEST = 2     # a request: its persistent record forgotten


# Handles whose facts the runtime caches (datatype sizes, communicators'
# ranks, windows' groups): freeing one invalidates the caches.
CACHED_HANDLES = frozenset({"datatype", "comm", "win"})
# Parameter kinds that are semantic types of their own.
PARTITION_KIND = "PARTITION"


# ------------------------------------------------------------------ binding


@dataclass(frozen=True)
class Bound:
    """One parameter as a movement sees it: its C name and the spec's meaning."""

    c_name: str
    spec_name: str
    role: str
    side: Side | None
    direction: str
    array: bool          # a length is given: an array (counts, datatypes, requests)
    length: str | None    # the standard's name of the parameter giving it
    kind: str
    root_only: bool       # significant at the root only


class Binding:
    """A call's parameters by role and side, for the movements' rules."""

    def __init__(self, params: Sequence[WrapperParam], large: bool) -> None:
        bound: list[Bound] = []
        peer_side: Side | None = None
        for param in params:
            spec: SpecParam | None = param.spec
            if spec is None:
                continue
            side = Side(spec.side) if spec.side else None
            if spec.role == "peer":
                peer_side = side
            elif spec.role == "tag" and side is None:
                side = peer_side     # a tag belongs to the peer before it (sendtag, recvtag)
            bound.append(Bound(param.name, spec.name, spec.role, side, spec.direction,
                               spec.length is not None, spec.length, spec.kind,
                               spec.root_only))
        self.params: tuple[Bound, ...] = tuple(bound)
        self.large = large

    def all(self, role: str, side: Side | None = None) -> list[Bound]:
        """Every parameter with the role (and the side, if given)."""
        return [p for p in self.params if p.role == role and (side is None or p.side == side)]

    def get(self, role: str, side: Side | None = None) -> Bound | None:
        """The parameter with the role on the side; without a side, or when
        no parameter has it, the only parameter with the role, else None."""
        if side is not None:
            found = self.all(role, side)
            if len(found) == 1:
                return found[0]
        found = self.all(role)
        return found[0] if len(found) == 1 else None

    def on(self, role: str, side: Side) -> Bound | None:
        """The parameter with the role on exactly this side, else None."""
        found = self.all(role, side)
        return found[0] if len(found) == 1 else None

    def kind(self, kind: str) -> Bound | None:
        found = [p for p in self.params if p.kind == kind]
        return found[0] if len(found) == 1 else None

    @property
    def large_flag(self) -> str:
        """The runtime's flag for arrays of MPI_Count (the _c variants)."""
        return "1" if self.large else "0"

    def status(self) -> str:
        """The status the call fills in, or NULL."""
        status = self.get("status")
        return status.c_name if status is not None and not status.array else "NULL"

    def sides(self) -> list[Side]:
        """The sides that have a count or a buffer, in their order in the call."""
        found: list[Side] = []
        for p in self.params:
            if p.side is not None and p.role in ("buffer", "count") and p.side not in found:
                found.append(p.side)
        return found


# ------------------------------------------------------------------ what a call moves


@dataclass(frozen=True)
class SideMoves:
    """One side of a transfer: its element count and datatype (C expressions)."""

    count: str
    datatype: str
    counts_array: bool = False
    datatypes_array: bool = False
    buffer: str | None = None    # the buffer a caller may give as MPI_IN_PLACE


@dataclass(frozen=True)
class MemoUse:
    """The arguments a fast body keys its call site's memo with, and keeps
    across the call (C expressions, the parameters of those roles): built by
    the movement's own rule, which knows them by role."""

    kind: str                    # the runtime's MW_MEMO_* constant
    end: str                     # its mw_xfer_end_* function's suffix
    datatype: str
    comm: str
    count: str
    peer: str
    count2: str | None = None    # a send-receive's receive side
    peer2: str | None = None
    status: str = "NULL"
    datatype2: str | None = None  # must equal datatype for the memo to serve
    tag: str | None = None       # a send's or receive's tag: the trace records it


@dataclass(frozen=True)
class Moves:
    """What one call moves, and the runtime statements that record it."""

    kind: Kind = Kind.NONE
    note: str = ""                       # the runtime's mw_note_* function
    arguments: tuple[str, ...] = ()      # its arguments after &call
    frees: Frees = Frees.NOTHING
    freed: str | None = None             # the request a Request_free frees
    persistent_request: str | None = None   # the request an *_init call creates
    send: SideMoves | None = None
    recv: SideMoves | None = None
    peer: str | None = None
    root: str | None = None
    variant: Variant = Variant.SCALAR
    # Set by the movement's rule: its notes read only the call's arguments
    # and cached facts (no status), and the memo its calls can use.
    arguments_only: bool = False
    memo_use: MemoUse | None = None

    @property
    def before(self) -> tuple[str, ...]:
        """C statements run before the call, profiled or not."""
        if self.frees is Frees.HANDLE:
            return ("mw_handles_forget();",)
        if self.frees is Frees.REQUEST and self.freed:
            return (f"mw_forget_request(*{self.freed});",)
        return ()

    @property
    def notes(self) -> tuple[str, ...]:
        """C statements run after a successful call."""
        if self.kind is Kind.NONE:
            return ()
        notes = [f"{self.note}({', '.join(('&call',) + self.arguments)});"]
        if self.persistent_request is not None:
            notes.append(f"mw_persist(&call, *{self.persistent_request});")
        return tuple(notes)

    @property
    def persistent(self) -> bool:
        """An *_init call: its request is remembered even when the call
        itself is not profiled."""
        return self.persistent_request is not None

    @property
    def noted_before_call(self) -> bool:
        """The notes read only the call's arguments and cached facts (a send, a
        reduction to all, a receive without a status), so the wrapper can take
        them before the call: fewer values kept across it, outside the timed
        span."""
        return self.arguments_only and self.persistent_request is None

    @property
    def memo(self) -> MemoUse | None:
        """How the fast body reads this call through its site's memo
        (runtime/traffic/memo.h), or None when it cannot: the commonest notes
        only, never for a call that creates a persistent request."""
        return None if self.persistent_request is not None else self.memo_use

    @property
    def transfers(self) -> bool:
        """True when the wrapper leaves with mw_exit_xfer."""
        return self.kind is not Kind.NONE


# ------------------------------------------------------------------ operations


@dataclass(frozen=True)
class Pattern:
    """A collective's pattern of movement, and the runtime's notes of it."""

    notes: dict[Variant, str]     # note function for each variant it has
    sides: tuple[Side, ...]       # the sides whose counts and datatypes it reads
    in_place: bool = False        # passes the buffer that may be MPI_IN_PLACE


_ALLGATHER_LIKE = (Side.SEND, Side.RECV)
# The collective operations (I* and *_init forms included) and their
# patterns; the variant is read from the roles (an array of counts: v; of
# datatypes: w), so Gather and Gatherv are one operation here.
COLLECTIVES: dict[str, Pattern] = {
    "Bcast": Pattern({Variant.SCALAR: "mw_note_bcast"}, (Side.SEND,)),
    "Gather": Pattern({Variant.SCALAR: "mw_note_gather", Variant.V: "mw_note_gatherv"},
                      _ALLGATHER_LIKE, in_place=True),
    "Scatter": Pattern({Variant.SCALAR: "mw_note_scatter", Variant.V: "mw_note_scatterv"},
                       _ALLGATHER_LIKE, in_place=True),
    "Allgather": Pattern({Variant.SCALAR: "mw_note_allgather",
                          Variant.V: "mw_note_allgatherv"}, _ALLGATHER_LIKE, in_place=True),
    "Alltoall": Pattern({Variant.SCALAR: "mw_note_alltoall", Variant.V: "mw_note_alltoallv",
                         Variant.W: "mw_note_alltoallw"}, _ALLGATHER_LIKE, in_place=True),
    "Reduce": Pattern({Variant.SCALAR: "mw_note_reduce"}, (Side.RECV,)),
    "Allreduce": Pattern({Variant.SCALAR: "mw_note_allreduce"}, (Side.RECV,)),
    "Scan": Pattern({Variant.SCALAR: "mw_note_allreduce"}, (Side.RECV,)),
    "Exscan": Pattern({Variant.SCALAR: "mw_note_allreduce"}, (Side.RECV,)),
    "Reduce_scatter": Pattern({Variant.SCALAR: "mw_note_reduce_scatter_block",
                               Variant.V: "mw_note_reduce_scatter"}, (Side.RECV,)),
}
# One-sided operations (with their R* forms).
RMA_OPERATIONS = frozenset({"Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op",
                            "Compare_and_swap"})
# Operations that activate persistent requests.
STARTS = frozenset({"Start", "Startall"})
_VARIANT_SUFFIX = re.compile(r"^(?P<op>.+?)(?:v|w|_block)$")


@dataclass(frozen=True)
class Operation:
    """A function's operation: MPI_Ibcast_init_c is Bcast, nonblocking, persistent."""

    base: str
    nonblocking: bool
    persistent: bool

    @classmethod
    def of(cls, name: str, large: bool) -> Operation:
        base = name.split("_", 1)[1] if "_" in name else name
        if large and base.endswith("_c"):
            base = base[:-2]
        persistent = base.endswith("_init")
        if persistent:
            base = base[: -len("_init")]
        nonblocking = False
        for prefix, known in (("I", _collective_family), ("R", RMA_OPERATIONS.__contains__)):
            rest = base[1:].capitalize()
            if base.startswith(prefix) and base[1:2].islower() and known(rest):
                base, nonblocking = rest, True
        return cls(base, nonblocking, persistent)

    @property
    def family(self) -> str | None:
        """The collective operation it belongs to (Gatherv: Gather), or None."""
        return _collective_family(self.base)


def _collective_family(base: str) -> str | None:
    if base in COLLECTIVES:
        return base
    match = _VARIANT_SUFFIX.match(base)
    if match and match.group("op") in COLLECTIVES:
        return match.group("op")
    return None


# ------------------------------------------------------------------ the registry

Rule = Callable[[Binding, Operation], "Moves | None"]
MOVEMENTS: dict[str, Rule] = {}


def movement(category: str) -> Callable[[Rule], Rule]:
    """Register the rule deriving the movement of a category's calls."""
    def register(rule: Rule) -> Rule:
        MOVEMENTS[category] = rule
        return rule
    return register


def _names(*params: Bound | None) -> tuple[str, ...] | None:
    """The C names, or None when any parameter is missing."""
    if any(p is None for p in params):
        return None
    return tuple(p.c_name for p in params if p is not None)


@movement("send")
def _send(b: Binding, op: Operation) -> Moves | None:
    count, datatype = b.get("count", Side.SEND), b.get("datatype", Side.SEND)
    peer, tag, comm = b.get("peer", Side.SEND), b.get("tag", Side.SEND), b.get("comm")
    partitions = b.kind(PARTITION_KIND)
    side = SideMoves(count.c_name, datatype.c_name) if count and datatype else None
    if partitions is not None:
        args = _names(partitions, count, datatype, peer, tag, comm)
        return args and Moves(Kind.PSEND, "mw_note_psend", args, send=side,
                              peer=peer.c_name if peer else None)
    args = _names(count, datatype, peer, tag, comm)
    if args is None:
        return None
    count_, datatype_, peer_, tag_, comm_ = args
    return Moves(Kind.SEND, "mw_note_send", args, send=side, peer=peer_, arguments_only=True,
                 memo_use=MemoUse("MW_MEMO_SEND", "send", datatype=datatype_, comm=comm_,
                                  count=count_, peer=peer_, tag=tag_))


@movement("recv")
def _recv(b: Binding, op: Operation) -> Moves | None:
    count, datatype = b.get("count", Side.RECV), b.get("datatype", Side.RECV)
    peer, tag, comm = b.get("peer", Side.RECV), b.get("tag", Side.RECV), b.get("comm")
    side = SideMoves(count.c_name, datatype.c_name) if count and datatype else None
    source = peer.c_name if peer else None
    if b.kind(PARTITION_KIND) is not None:
        args = _names(b.kind(PARTITION_KIND), count, datatype, peer, tag, comm)
        return args and Moves(Kind.PRECV, "mw_note_precv", args, recv=side, peer=source)
    if b.get("message") is not None:
        args = _names(count, datatype)
        return args and Moves(Kind.MRECV, "mw_note_mrecv", args + (b.status(),), recv=side)
    args = _names(count, datatype, peer, tag, comm)
    if args is None:
        return None
    count_, datatype_, source_, tag_, comm_ = args
    status = b.status()
    return Moves(Kind.RECV, "mw_note_recv", args + (status,), recv=side, peer=source,
                 arguments_only=status == "NULL",
                 memo_use=MemoUse("MW_MEMO_RECV", "recv", datatype=datatype_, comm=comm_,
                                  count=count_, peer=source_, status=status, tag=tag_))


@movement("sendrecv")
def _sendrecv(b: Binding, op: Operation) -> Moves | None:
    scount, stype = b.get("count", Side.SEND), b.get("datatype", Side.SEND)
    # Sendrecv_replace: one buffer, whose count and datatype serve both sides.
    rcount = b.on("count", Side.RECV) or scount
    rtype = b.on("datatype", Side.RECV) or stype
    dest, source = b.on("peer", Side.SEND), b.on("peer", Side.RECV)
    sendtag, comm = b.on("tag", Side.SEND), b.get("comm")
    args = _names(scount, stype, dest, sendtag, rcount, rtype, source, comm)
    if args is None or scount is None or stype is None or rcount is None or rtype is None:
        return None
    status = b.status()
    count_, datatype_, dest_, _, count2, datatype2, source_, comm_ = args
    return Moves(Kind.SENDRECV, "mw_note_sendrecv", args + (status,),
                 send=SideMoves(scount.c_name, stype.c_name),
                 recv=SideMoves(rcount.c_name, rtype.c_name),
                 peer=source.c_name if source else None,
                 memo_use=MemoUse("MW_MEMO_SENDRECV", "sendrecv", datatype=datatype_,
                                  comm=comm_, count=count_, peer=dest_, count2=count2,
                                  peer2=source_, status=status,
                                  datatype2=datatype2 if datatype2 != datatype_ else None))


@movement("completion")
def _start(b: Binding, op: Operation) -> Moves | None:
    if op.base not in STARTS:
        return None
    request = b.get("request")
    if request is None:
        return None
    if not request.array:
        return Moves(Kind.START, "mw_note_start", (f"*{request.c_name}",))
    count = next((p for p in b.params if p.spec_name == request.length), None)
    args = _names(count, request)
    return args and Moves(Kind.STARTALL, "mw_note_startall", args)


def _collective_side(b: Binding, side: Side, in_place: bool,
                     large_here: bool) -> tuple[list[str], SideMoves] | None:
    count, datatype = b.get("count", side), b.get("datatype", side)
    if count is None or datatype is None:
        return None
    args = [count.c_name]
    if large_here:
        args.append(b.large_flag)
    args.append(datatype.c_name)
    buffer = b.on("buffer", side) if in_place else None
    if buffer is not None:
        args.insert(0, buffer.c_name)
    return args, SideMoves(count.c_name, datatype.c_name, count.array, datatype.array,
                           buffer.c_name if buffer else None)


@movement("collective")
def _collective(b: Binding, op: Operation) -> Moves | None:
    family = op.family
    if family is None:
        return None
    pattern = COLLECTIVES[family]
    counts = {s: b.get("count", s) for s in pattern.sides}
    types = {s: b.get("datatype", s) for s in pattern.sides}
    if any(c is None for c in counts.values()) or any(t is None for t in types.values()):
        return None
    arrays = [s for s in pattern.sides if counts[s].array]   # type: ignore[union-attr]
    variant = (Variant.W if any(t.array for t in types.values())   # type: ignore[union-attr]
               else Variant.V if arrays else Variant.SCALAR)
    note = pattern.notes.get(variant)
    if note is None:
        return None
    # The buffer that may be MPI_IN_PLACE: that of the side all ranks give
    # (Gather's send side, Scatter's receive side: the side whose datatype is
    # not significant at the root only), else the send side's.
    root_only = {p.side for p in b.params if p.role == "datatype" and p.root_only}
    in_place_side = next((s for s in pattern.sides if s not in root_only), None) \
        if pattern.in_place else None
    args: list[str] = []
    moved: dict[Side, SideMoves] = {}
    for side in pattern.sides:
        found = _collective_side(b, side, side == in_place_side, arrays == [side])
        if found is None:
            return None
        args += found[0]
        moved[side] = found[1]
    if len(arrays) > 1:
        args.append(b.large_flag)     # once, after both sides' arrays
    root = b.get("root")
    if root is not None:
        args.append(root.c_name)
    comm = b.get("comm")
    if comm is None:
        return None
    args.append(comm.c_name)
    # The reductions to all keep their counts in and out: noted from the
    # arguments alone, and through a memo.
    to_all = note == "mw_note_allreduce"
    recv = moved.get(Side.RECV)
    memo = (MemoUse("MW_MEMO_ALLREDUCE", "allreduce", datatype=recv.datatype,
                    comm=comm.c_name, count=recv.count, peer="0")
            if to_all and recv is not None else None)
    return Moves(Kind.COLLECTIVE, note, tuple(args), send=moved.get(Side.SEND),
                 recv=recv, root=root.c_name if root else None,
                 variant=variant, arguments_only=to_all, memo_use=memo)


@movement("rma")
def _rma(b: Binding, op: Operation) -> Moves | None:
    if op.base not in RMA_OPERATIONS:
        return None
    target, win = b.on("peer", Side.TARGET), b.get("win")
    if target is None or win is None:
        return None
    sent: list[str] = []
    received: list[str] = []
    datatypes = b.all("datatype")
    for side in (Side.ORIGIN, Side.COMPARE, Side.RESULT):
        buffer = b.on("buffer", side)
        if buffer is None:
            continue
        count = b.on("count", side)
        datatype = b.on("datatype", side) or (
            next((d for d in datatypes if d.side != Side.TARGET), None))
        if datatype is None:
            return None
        moved = f"mw_bytes({count.c_name if count else 1}, {datatype.c_name})"
        (received if buffer.direction == "out" else sent).append(moved)
    op_param = b.get("op")
    sent_text = _sum(sent)
    if received and op_param is not None and sent:
        # A fetching operation with MPI_NO_OP ignores its origin buffer.
        sent_text = f"({op_param.c_name} == MPI_NO_OP ? 0 : {sent_text})"
    return Moves(Kind.RMA, "mw_note_rma", (sent_text, _sum(received), target.c_name,
                                           win.c_name), peer=target.c_name)


def _sum(terms: list[str]) -> str:
    """A C sum of byte counts; repeated terms as a product."""
    if not terms:
        return "0"
    if len(set(terms)) == 1 and len(terms) > 1:
        return f"{len(terms)} * {terms[0]}"
    return " + ".join(terms)


@movement("io")
def _io(b: Binding, op: Operation) -> Moves | None:
    for side, sent in ((Side.SEND, True), (Side.RECV, False)):
        buffer, count, datatype = b.on("buffer", side), b.on("count", side), b.on("datatype", side)
        if buffer is None or count is None or datatype is None:
            continue
        moved = f"mw_bytes({count.c_name}, {datatype.c_name})"
        args = (moved, "0") if sent else ("0", moved)
        side_moves = SideMoves(count.c_name, datatype.c_name)
        return Moves(Kind.IO, "mw_note_io", args, send=side_moves if sent else None,
                     recv=None if sent else side_moves)
    return None


# ------------------------------------------------------------------ entry point


def _frees(name: str, b: Binding) -> tuple[Frees, str | None]:
    """Whether the call frees a handle the runtime caches facts about."""
    stem = name.split("_", 1)[1].lower() if "_" in name else name
    if not stem.endswith(("_free", "_disconnect")):
        return Frees.NOTHING, None
    freed = [p for p in b.params if p.direction == "inout" and not p.array]
    if len(freed) != 1:
        return Frees.NOTHING, None
    if freed[0].role in CACHED_HANDLES:
        return Frees.HANDLE, None
    if freed[0].role == "request":
        return Frees.REQUEST, freed[0].c_name
    return Frees.NOTHING, None


def derive(name: str, spec: SpecFunction | None, large: bool, category: str,
           params: Sequence[WrapperParam]) -> Moves:
    """What a call of this function moves, from its parameters' roles and sides."""
    if spec is None:
        return Moves()
    binding = Binding(params, large)
    op = Operation.of(name, large)
    rule = MOVEMENTS.get(category)
    moves = (rule(binding, op) if rule is not None else None) or Moves()
    frees, freed = _frees(name, binding)
    request = binding.get("request")
    persistent = (op.persistent and moves.kind is not Kind.NONE and request is not None
                  and request.direction == "out")
    return replace(moves, frees=frees, freed=freed,
                   persistent_request=request.c_name if persistent and request else None)
