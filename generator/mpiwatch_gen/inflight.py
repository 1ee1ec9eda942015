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
from typing import TYPE_CHECKING

if TYPE_CHECKING:   # reconcile imports this module
    from .reconcile import Wrapper

# The protocol's flags (include/mpiwatch_protocol.h), and the runtime's own
# bits above them saying which fields the call publishes.
SENDS, RECEIVES, COLLECTIVE, COMPLETES = 1, 2, 4, 16
HAS_PEER, HAS_TAG, HAS_ROOT, HAS_COMM = 1 << 8, 1 << 9, 1 << 10, 1 << 11

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
    flags: int = 0
    creates: str | None = None   # an output communicator the call creates


    @property
    def publishes(self) -> bool:
        """True when the call has more than its function id to publish."""
        return any(v is not None for v in (self.comm, self.peer, self.tag, self.root))


def _inputs(wrapper: Wrapper, role: str) -> dict[str, str]:
    """The scalar input parameters with this role: the standard's name -> the C name."""
    return {p.spec.name: p.name for p in wrapper.params
            if p.spec is not None and p.spec.role == role and p.spec.direction == "in"
            and p.spec.length is None}


def _outputs(wrapper: Wrapper, role: str) -> dict[str, str]:
    """The scalar output parameters with this role: the standard's name -> the C name."""
    return {p.spec.name: p.name for p in wrapper.params
            if p.spec is not None and p.spec.role == role and p.spec.direction == "out"
            and p.spec.length is None}


def _pick(found: dict[str, str], prefer: tuple[str, ...]) -> str | None:
    """The first of the preferred names found, else any, else None."""
    for name in prefer:
        if name in found:
            return found[name]
    return next(iter(found.values()), None)


def _waits(wrapper: Wrapper) -> int:
    """How the call waits, as protocol flags."""
    stem = wrapper.name.split("_", 1)[1].lower()
    category = wrapper.category
    if category == "send":
        return SENDS
    if category in ("recv", "probe", "sendrecv"):
        return RECEIVES
    if category == "collective" and "neighbor" not in stem:
        return COLLECTIVE
    if wrapper.name in _COLLECTIVE_CONSTRUCTORS:
        return COLLECTIVE
    if category == "completion" and stem.startswith(("wait", "test")):
        return COMPLETES
    return 0


def inflight_of(wrapper: Wrapper) -> InFlight:
    """The values one wrapper publishes while its call is in progress."""
    if wrapper.spec is None:
        return InFlight()
    comm = _pick(_inputs(wrapper, "comm"), ("comm",))
    # A send-receive waits on what it receives: its source and receive tag.
    peers = _inputs(wrapper, "peer")
    receives = "source" in peers
    peer = _pick(peers, ("source", "dest"))
    tag = _pick(_inputs(wrapper, "tag"), ("recvtag", "tag") if receives else ("sendtag", "tag"))
    root = _pick(_inputs(wrapper, "root"), ("root",))
    creates = _pick(_outputs(wrapper, "comm"), ())
    if comm is None:   # peers, tags and roots mean nothing without it (windows, files)
        peer = tag = root = None
    flags = _waits(wrapper)
    for value, bit in ((comm, HAS_COMM), (peer, HAS_PEER), (tag, HAS_TAG), (root, HAS_ROOT)):
        if value is not None:
            flags |= bit
    return InFlight(comm, peer, tag, root, flags, creates)
