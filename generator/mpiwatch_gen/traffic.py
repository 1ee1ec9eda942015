"""What each wrapper tells the runtime about the data its call moved.

A wrapper of a function that transfers data calls one ``mw_note_*`` runtime
function after a successful call (runtime/traffic/traffic.h): bytes sent and
received, the peer, the tag. Which one, and with which arguments, follows
from the function's category and base name, and the arguments are found by
the standard's parameter names (so headers that name parameters
differently still work). Functions that free a handle the runtime caches
facts about invalidate those caches before the call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # reconcile imports this module
    from .reconcile import Wrapper

# Collective base name -> (runtime note, arguments by the standard's names).
# "large" stands for the large-count flag; counts arrays are int[] or MPI_Count[].
_COLLECTIVES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Bcast": ("mw_note_bcast", ("count", "datatype", "root", "comm")),
    "Gather": ("mw_note_gather", ("sendbuf", "sendcount", "sendtype", "recvcount", "recvtype",
                                  "root", "comm")),
    "Gatherv": ("mw_note_gatherv", ("sendbuf", "sendcount", "sendtype", "recvcounts", "large",
                                    "recvtype", "root", "comm")),
    "Scatter": ("mw_note_scatter", ("sendcount", "sendtype", "recvbuf", "recvcount", "recvtype",
                                    "root", "comm")),
    "Scatterv": ("mw_note_scatterv", ("sendcounts", "large", "sendtype", "recvbuf", "recvcount",
                                      "recvtype", "root", "comm")),
    "Allgather": ("mw_note_allgather", ("sendbuf", "sendcount", "sendtype", "recvcount",
                                        "recvtype", "comm")),
    "Allgatherv": ("mw_note_allgatherv", ("sendbuf", "sendcount", "sendtype", "recvcounts",
                                          "large", "recvtype", "comm")),
    "Alltoall": ("mw_note_alltoall", ("sendbuf", "sendcount", "sendtype", "recvcount",
                                      "recvtype", "comm")),
    "Alltoallv": ("mw_note_alltoallv", ("sendbuf", "sendcounts", "sendtype", "recvcounts",
                                        "recvtype", "large", "comm")),
    "Alltoallw": ("mw_note_alltoallw", ("sendbuf", "sendcounts", "sendtypes", "recvcounts",
                                        "recvtypes", "large", "comm")),
    "Reduce": ("mw_note_reduce", ("count", "datatype", "root", "comm")),
    "Allreduce": ("mw_note_allreduce", ("count", "datatype", "comm")),
    "Scan": ("mw_note_allreduce", ("count", "datatype", "comm")),
    "Exscan": ("mw_note_allreduce", ("count", "datatype", "comm")),
    "Reduce_scatter_block": ("mw_note_reduce_scatter_block", ("recvcount", "datatype", "comm")),
    "Reduce_scatter": ("mw_note_reduce_scatter", ("recvcounts", "large", "datatype", "comm")),
}

# One-sided base name -> (bytes sent, bytes received), {names} being the
# standard's parameter names.
_ORIGIN = "mw_bytes({origin_count}, {origin_datatype})"
_ONE = "mw_bytes(1, {datatype})"
_RMA: dict[str, tuple[str, str]] = {
    "Put": (_ORIGIN, "0"),
    "Get": ("0", _ORIGIN),
    "Accumulate": (_ORIGIN, "0"),
    # With MPI_NO_OP the origin buffer is ignored: nothing is sent.
    "Get_accumulate": ("({op} == MPI_NO_OP ? 0 : " + _ORIGIN + ")",
                       "mw_bytes({result_count}, {result_datatype})"),
    "Fetch_and_op": ("({op} == MPI_NO_OP ? 0 : " + _ONE + ")", _ONE),
    "Compare_and_swap": ("2 * " + _ONE, _ONE),
}

# Functions that free a handle: invalidate cached facts first.
_FREES_HANDLE = {"MPI_Type_free", "MPI_Comm_free", "MPI_Comm_disconnect", "MPI_Win_free"}


@dataclass(frozen=True)
class Traffic:
    """The C statements a wrapper adds for the runtime's byte accounting."""

    before: tuple[str, ...] = ()   # run before the call, profiled or not
    notes: tuple[str, ...] = ()    # run after a successful call
    persistent: bool = False       # an *_init call: its request is remembered even
                                   # when the call itself is not profiled

    @property
    def transfers(self) -> bool:
        """True when the wrapper leaves with mw_exit_xfer."""
        return bool(self.notes)


class _Args:
    """C expressions for the standard's parameter names of one wrapper."""

    def __init__(self, wrapper: Wrapper) -> None:
        self._by_spec = {p.spec.name: p.name for p in wrapper.params if p.spec is not None}
        self.large = "1" if wrapper.large else "0"

    def has(self, *names: str) -> bool:
        return all(n in self._by_spec for n in names)

    def __getitem__(self, name: str) -> str:
        return self.large if name == "large" else self._by_spec[name]

    def call(self, function: str, names: tuple[str, ...]) -> str:
        return f"{function}(&call, {', '.join(self[n] for n in names)})"


def _base_name(wrapper: Wrapper) -> tuple[str, bool, bool]:
    """('Bcast', nonblocking, persistent) for MPI_Ibcast, MPI_Bcast_init_c..."""
    base = wrapper.name.split("_", 1)[1]
    if wrapper.large and base.endswith("_c"):
        base = base[:-2]
    persistent = base.endswith("_init")
    if persistent:
        base = base[: -len("_init")]
    # MPI_Ibcast, MPI_Rput: the prefix, then the blocking name uncapitalised.
    nonblocking = False
    for prefix, table in (("I", _COLLECTIVES), ("R", _RMA)):
        rest = base[1:].capitalize()
        if base.startswith(prefix) and base[1:2].islower() and rest in table:
            base, nonblocking = rest, True
    return base, nonblocking, persistent


def _status(args: _Args) -> str:
    return args["status"] if args.has("status") else "NULL"


def _p2p(wrapper: Wrapper, args: _Args, base: str) -> list[str]:
    """Notes for sends, receives and send-receives."""
    category = wrapper.category
    if category == "send" and args.has("partitions"):
        return [args.call("mw_note_psend", ("partitions", "count", "datatype", "dest", "tag",
                                            "comm"))]
    if category == "send" and args.has("count", "datatype", "dest", "tag", "comm"):
        return [args.call("mw_note_send", ("count", "datatype", "dest", "tag", "comm"))]
    if category == "recv" and args.has("partitions"):
        return [args.call("mw_note_precv", ("partitions", "count", "datatype", "source", "tag",
                                            "comm"))]
    if category == "recv" and args.has("message"):
        return [f"mw_note_mrecv(&call, {args['count']}, {args['datatype']}, {_status(args)})"]
    if category == "recv" and args.has("count", "datatype", "source", "tag", "comm"):
        return [f"mw_note_recv(&call, {args['count']}, {args['datatype']}, {args['source']}, "
                f"{args['tag']}, {args['comm']}, {_status(args)})"]
    if category == "sendrecv" and args.has("sendcount"):
        return [f"mw_note_sendrecv(&call, {args['sendcount']}, {args['sendtype']}, "
                f"{args['dest']}, {args['sendtag']}, {args['recvcount']}, {args['recvtype']}, "
                f"{args['source']}, {args['comm']}, {_status(args)})"]
    if category == "sendrecv" and args.has("count"):
        return [f"mw_note_sendrecv(&call, {args['count']}, {args['datatype']}, "
                f"{args['dest']}, {args['sendtag']}, {args['count']}, {args['datatype']}, "
                f"{args['source']}, {args['comm']}, {_status(args)})"]
    return []


def _notes(wrapper: Wrapper, args: _Args) -> list[str]:
    """The note statements for one wrapper, without persistence."""
    base, _, _ = _base_name(wrapper)
    category = wrapper.category
    if category in ("send", "recv", "sendrecv"):
        return _p2p(wrapper, args, base)
    if category == "completion" and base == "Start" and args.has("request"):
        return [f"mw_note_start(&call, *{args['request']})"]
    if category == "completion" and base == "Startall" and args.has("count", "array_of_requests"):
        return [f"mw_note_startall(&call, {args['count']}, {args['array_of_requests']})"]
    if category == "collective" and base in _COLLECTIVES:
        function, names = _COLLECTIVES[base]
        if args.has(*(n for n in names if n != "large")):
            return [args.call(function, names)]
    if category == "rma" and base in _RMA and args.has("target_rank", "win"):
        try:
            sent, recv = (e.format_map(args) for e in _RMA[base])
        except KeyError:
            return []
        return [f"mw_note_rma(&call, {sent}, {recv}, {args['target_rank']}, {args['win']})"]
    if category == "io" and not base.endswith("_end") and args.has("count", "datatype"):
        moved = f"mw_bytes({args['count']}, {args['datatype']})"
        if "write" in base:
            return [f"mw_note_io(&call, {moved}, 0)"]
        if "read" in base:
            return [f"mw_note_io(&call, 0, {moved})"]
    return []


def traffic_of(wrapper: Wrapper) -> Traffic:
    """The byte-accounting statements for one wrapper (none for most)."""
    if wrapper.spec is None:
        return Traffic()
    args = _Args(wrapper)
    before: list[str] = []
    if wrapper.name in _FREES_HANDLE:
        before.append("mw_handles_forget();")
    if wrapper.name == "MPI_Request_free" and args.has("request"):
        before.append(f"mw_forget_request(*{args['request']});")
    notes = _notes(wrapper, args)
    _, _, persistent = _base_name(wrapper)
    persistent = bool(notes) and persistent and args.has("request")
    if persistent:
        notes.append(f"mw_persist(&call, *{args['request']})")
    return Traffic(tuple(before), tuple(f"{n};" for n in notes), persistent)
