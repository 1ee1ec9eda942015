"""What the trace adds to a call's record, from the standard's roles.

The profile's notes (moves.py) say what a call moved; the trace also needs
what joins calls to each other (docs/trace.md, "What is recorded per call"):

- the request a non-blocking call starts, so that the wait or test that
  completes it is found (an MPI_Irecv's source, tag and bytes come from the
  completion's status);
- the requests a wait or test completes: the request handles are read
  before the call (the call sets them to MPI_REQUEST_NULL), the indices,
  flag and statuses after it;
- the root of a rooted collective, taken from the profile's own derivation
  (Moves.root), so that the root is found once;
- whether a poll (a test or an MPI_Iprobe, MPI_Improbe) found nothing, so
  that the trace folds a polling loop into one record;
- a send-receive's own receive (the profile's record keeps the send's
  peer), from the profile's derivation of its receive side (Moves.recv):
  its source, tag and bytes, as a completion of request 0.

The statements call runtime/trace/notes.h. They run in the slow body only,
and only while the trace records (mw_trace_listening), so that tracing off
changes no body.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .moves import Binding, Kind, Moves, Operation, Side
from .parameters import WrapperParam
from .spec import SpecFunction

# How a completion call says which of its requests completed
# (runtime/trace/notes.h, MW_TRACE_DONE_*).
ONE, ALL = "MW_TRACE_DONE_ONE", "MW_TRACE_DONE_ALL"
ANY, SOME = "MW_TRACE_DONE_ANY", "MW_TRACE_DONE_SOME"


@dataclass(frozen=True)
class Completion:
    """A wait or test, by the standard's names of its parameters ("" none)."""

    form: str
    count: str
    requests: str
    flag: str
    index: str        # Waitany's index; Waitsome's outcount
    indices: str
    statuses: str


@dataclass(frozen=True)
class TraceNotes:
    """C statements a slow body runs for the trace (none: the call has nothing to add),
    and what they were made from, by the standard's parameter names, for the Fortran
    entry points (fortran_trace.py)."""

    before: tuple[str, ...] = ()   # before the call (the requests it may complete)
    after: tuple[str, ...] = ()    # after it, with ret
    root: str = ""                 # after it: the root (also run by the Fortran bodies)
    receive: str = ""              # after it: a send-receive's own receive (likewise)
    start: tuple[str, str, bool] | None = None   # request, comm ("" none), receives
    start_request: str = ""        # the C parameter of the request it starts
    completion: Completion | None = None
    poll_flag: str = ""            # a non-blocking probe's flag

    @property
    def any(self) -> bool:
        return bool(self.before or self.after or self.root or self.receive)

    @property
    def completes(self) -> bool:
        """Whether the call leaves completions for its record (mw_wrap.h's MW_TRACED_DONE)."""
        return bool(self.completion or self.receive)


def _start(b: Binding, op: Operation, category: str) -> str:
    """A call that starts one request (MPI_Isend, MPI_Irecv, MPI_Ibcast...)."""
    request = b.get("request")
    if request is None or request.array or request.direction != "out" or op.persistent:
        return ""
    comm = b.get("comm")
    return (f"mw_trace_note_request(ret, *{request.c_name}, "
            f"{comm.c_name if comm is not None else 'MPI_COMM_NULL'}, {int(category == 'recv')});")


def _completion(b: Binding, name: str) -> tuple[str, str]:
    """A wait or test: the requests before the call, what completed after it."""
    stem = name.split("_", 1)[1].lower() if "_" in name else ""
    request = b.get("request")
    if not stem.startswith(("wait", "test")) or request is None or request.direction != "inout":
        return "", ""
    flag = next((p.c_name for p in b.all("flag") if p.direction == "out"), "NULL")
    status = b.get("status")
    statuses = status.c_name if status is not None else "MPI_STATUSES_IGNORE"
    if not request.array:
        return (f"mw_trace_note_completing(1, {request.c_name});",
                f"mw_trace_note_completed(ret, {ONE}, {flag}, NULL, NULL, {statuses});")
    count = next((p for p in b.params if p.spec_name == request.length), None)
    if count is None:
        return "", ""
    indices = [p for p in b.all("index") if p.direction == "out"]
    if not indices:
        form, index, array = ALL, "NULL", "NULL"
    elif not indices[0].array:
        form, index, array = ANY, indices[0].c_name, "NULL"
    else:
        outcount = next((p for p in b.params if p.direction == "out" and p.role == "value"
                         and not p.array), None)
        if outcount is None:
            return "", ""
        form, index, array = SOME, outcount.c_name, indices[0].c_name
    return (f"mw_trace_note_completing({count.c_name}, {request.c_name});",
            f"mw_trace_note_completed(ret, {form}, {flag}, {index}, {array}, {statuses});")


def _probe(b: Binding, category: str) -> str:
    """A non-blocking probe: a poll that may find nothing."""
    flag = next((p.c_name for p in b.all("flag") if p.direction == "out"), None)
    if category != "probe" or flag is None:
        return ""
    return f"mw_trace_note_poll(ret, {flag});"


def _receive(b: Binding, moves: Moves) -> str:
    """A send-receive's receive half, by the roles its profile note used."""
    source, tag, comm = b.on("peer", Side.RECV), b.on("tag", Side.RECV), b.get("comm")
    if moves.kind is not Kind.SENDRECV or moves.recv is None or None in (source, tag, comm):
        return ""
    return (f"mw_trace_note_received(ret, {source.c_name}, {tag.c_name}, {moves.recv.count}, "
            f"{moves.recv.datatype}, {comm.c_name}, {b.status()});")


def _start_names(b: Binding, op: Operation, category: str) -> tuple[str, str, bool] | None:
    request = b.get("request")
    if request is None or request.array or request.direction != "out" or op.persistent:
        return None
    comm = b.get("comm")
    return (request.spec_name, comm.spec_name if comm is not None else "", category == "recv")


def _completion_names(b: Binding, after: str) -> Completion | None:
    """The same wait or test as _completion, by the standard's names."""
    if not after:
        return None
    form = next(f for f in (ONE, ALL, ANY, SOME) if f in after)
    request = b.get("request")
    flag = next((p.spec_name for p in b.all("flag") if p.direction == "out"), "")
    status = b.get("status")
    count = next((p.spec_name for p in b.params if request and p.spec_name == request.length), "")
    indices = [p for p in b.all("index") if p.direction == "out"]
    index = indices_name = ""
    if form == ANY:
        index = indices[0].spec_name
    elif form == SOME:
        index = next(p.spec_name for p in b.params if p.direction == "out" and p.role == "value"
                     and not p.array)
        indices_name = indices[0].spec_name
    return Completion(form, count, request.spec_name if request else "", flag, index,
                      indices_name, status.spec_name if status else "")


def trace_notes_of(name: str, spec: SpecFunction | None, large: bool, category: str,
                   params: Sequence[WrapperParam], moves: Moves) -> TraceNotes:
    """The statements that give the trace one call's requests, root and polls."""
    if spec is None:
        return TraceNotes()
    b = Binding(params, large)
    op = Operation.of(name, large)
    comm = b.get("comm")
    root = (f"mw_trace_note_root({moves.root}, {comm.c_name});"
            if moves.root is not None and comm is not None else "")
    before, completed = _completion(b, name) if category == "completion" else ("", "")
    after = tuple(s for s in (_start(b, op, category), completed, _probe(b, category)) if s)
    probe = _probe(b, category)
    return TraceNotes(before=(before,) if before else (), after=after, root=root,
                      receive=_receive(b, moves),
                      start=_start_names(b, op, category),
                      start_request=b.get("request").c_name if _start(b, op, category) else "",
                      completion=_completion_names(b, completed),
                      poll_flag=next((p.spec_name for p in b.all("flag")
                                      if p.direction == "out"), "") if probe else "")
