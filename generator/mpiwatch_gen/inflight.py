"""What a call in progress tells the live monitor (INFLIGHT frames).

While the monitor is on, each profiled call publishes, before it enters the
MPI, the values a hang diagnosis needs: its communicator, peer, tag and
root, taken by the standard's roles (docs/protocol.md, "6 INFLIGHT"). The
flags say how the call waits: for a peer to receive (sends), for a peer's
message (receives, probes), for every member of its communicator
(collectives), or for requests (waits and tests). A call that creates a
communicator has its ranks translated to world ranks at once, so that a call
in progress on it shows world ranks from its first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .moves import Binding, Side
from .parameters import WrapperParam
from .spec import SpecFunction

# The protocol's flags (include/mpiwatch_protocol.h, MWP_IF_*) and the
# runtime's bits above them saying which fields the call publishes
# (templates/functions.h.j2, MW_INFLIGHT_HAS_*), by their C names: their
# values are defined there, once, and the generated C names them.
SENDS, RECEIVES = "MWP_IF_SENDS", "MWP_IF_RECEIVES"
COLLECTIVE, COMPLETES = "MWP_IF_COLLECTIVE", "MWP_IF_COMPLETES"
HAS_PEER, HAS_TAG = "MW_INFLIGHT_HAS_PEER", "MW_INFLIGHT_HAS_TAG"
HAS_ROOT, HAS_COMM = "MW_INFLIGHT_HAS_ROOT", "MW_INFLIGHT_HAS_COMM"

# Communicator constructors: collective over their input communicator.
_COLLECTIVE_CONSTRUCTORS = frozenset({
    "MPI_Comm_dup", "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type",
    "MPI_Comm_create", "MPI_Intercomm_merge", "MPI_Cart_create", "MPI_Graph_create",
    "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent",
})


@dataclass(frozen=True)
class InFlight:
    """C expressions a wrapper publishes for its call in progress."""

    comm: str | None = None
    peer: str | None = None
    tag: str | None = None
    root: str | None = None
    flags: tuple[str, ...] = ()  # how it waits, then which fields it publishes
    creates: str | None = None   # an output communicator the call creates

    @property
    def flags_c(self) -> str:
        """The flags as a C constant expression: their names or'ed, or 0."""
        return " | ".join(self.flags) or "0"


    @property
    def publishes(self) -> bool:
        """True when the call has more than its function id to publish."""
        return any(v is not None for v in (self.comm, self.peer, self.tag, self.root))


def _scalars(binding: Binding, role: str, direction: str) -> dict[str, str]:
    """The scalar parameters with this role and direction: the standard's name -> the C name."""
    return {p.spec_name: p.c_name for p in binding.all(role)
            if p.direction == direction and not p.array}


def _pick(found: dict[str, str], prefer: tuple[str, ...]) -> str | None:
    """The first of the preferred names found, else any, else None."""
    for name in prefer:
        if name in found:
            return found[name]
    return next(iter(found.values()), None)


def _waits(name: str, category: str) -> tuple[str, ...]:
    """How the call waits, as protocol flags (none, or one)."""
    stem = name.split("_", 1)[1].lower()
    if category == "send":
        return (SENDS,)
    if category in ("recv", "probe", "sendrecv"):
        return (RECEIVES,)
    if category == "collective" and "neighbor" not in stem:
        return (COLLECTIVE,)
    if name in _COLLECTIVE_CONSTRUCTORS:
        return (COLLECTIVE,)
    if category == "completion" and stem.startswith(("wait", "test")):
        return (COMPLETES,)
    return ()


def inflight_of(name: str, spec: SpecFunction | None, large: bool, category: str,
                params: Sequence[WrapperParam]) -> InFlight:
    """The values one wrapper publishes while its call is in progress."""
    if spec is None:
        return InFlight()
    binding = Binding(params, large)
    comm = _pick(_scalars(binding, "comm", "in"), ("comm",))
    # A send-receive waits on what it receives: its source and receive tag
    # (a tag is on the side of the peer before it, see moves.Binding).
    peer_param = next((p for side in (Side.RECV, Side.SEND, None)
                       for p in binding.all("peer", side)
                       if p.direction == "in" and not p.array), None)
    peer = peer_param.c_name if peer_param else None
    tags = [p for p in binding.all("tag") if p.direction == "in" and not p.array]
    tag_param = next((p for p in tags if peer_param and p.side == peer_param.side),
                     tags[0] if tags else None)
    tag = tag_param.c_name if tag_param else None
    root = _pick(_scalars(binding, "root", "in"), ("root",))
    creates = _pick(_scalars(binding, "comm", "out"), ())
    if comm is None:   # peers, tags and roots mean nothing without it (windows, files)
        peer = tag = root = None
    flags = _waits(name, category) + tuple(
        bit for value, bit in ((comm, HAS_COMM), (peer, HAS_PEER), (tag, HAS_TAG), (root, HAS_ROOT))
        if value is not None)
    return InFlight(comm, peer, tag, root, flags, creates)
