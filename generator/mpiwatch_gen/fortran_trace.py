"""What a Fortran entry point tells the trace (docs/trace.md): the request a
non-blocking call starts, the requests a wait or test completes, a poll's
flag, as the C wrapper's slow body notes them (trace_notes.py), from the
same description, over the entry point's Fortran arguments. The statements
call runtime/fortran/bridge.h's mpiwatch_fortran_trace_*, which convert the
handles, indices and statuses and do nothing unless the trace records. For
mpif.h and use mpi (INTEGER handles and statuses), and for use mpi_f08: a
TYPE(MPI_Comm) or TYPE(MPI_Request) is, as the standard defines it, its one
INTEGER MPI_VAL, so the entry point's argument points at the Fortran handle
as mpif.h's does (an array of them at the handles), and its ierror is
optional: NULL when absent, which the bridge reads as success. A
TYPE(MPI_Status) is the MPI's own layout, which the bridge does not read: an
f08 completion is noted as with MPI_STATUSES_IGNORE (the readers take a
receive's source, tag and bytes from its start). (A rooted collective's root
is noted in libmpiwatch's end of the call, templates/fortran/calls.c.j2.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .layering import FortranBinding
from .trace_notes import TraceNotes


@dataclass(frozen=True)
class FortranTrace:
    """C statements of an entry point's profiled body ("" none)."""

    before: str = ""   # before the MPI's call
    after: str = ""    # after it, before the call's end is recorded


def fortran_trace_of(binding: FortranBinding, notes: TraceNotes,
                     slots: Sequence[tuple[str | None, str]],
                     function: str = "", creates: str | None = None) -> FortranTrace:
    """slots: (the standard's name, the entry point's argument) of each argument;
    creates: the communicator the call (function) outputs, if any (InFlight)."""
    slot = {spec: name for spec, name in slots if spec}
    ierror = slot.get("ierror", "NULL")
    # As the C wrapper's (generic.c.j2): not MPI_Comm_idup's, unusable before it completes.
    created = (f"mpiwatch_fortran_trace_comm({ierror}, {slot[creates]});"
               if creates in slot and "idup" not in function.lower() else "")
    f08 = binding is not FortranBinding.MPIF

    def arg(spec: str) -> str:
        return slot[spec] if spec else "NULL"

    before, after = "", []
    if notes.start and notes.start[0] in slot:
        request, comm, receives = notes.start
        after.append(f"mpiwatch_fortran_trace_request({ierror}, {slot[request]}, "
                     f"{arg(comm) if comm in slot else 'NULL'}, {int(receives)});")
    c = notes.completion
    if c and all(not n or n in slot for n in (c.count, c.requests, c.flag, c.index, c.indices,
                                               c.statuses)):
        before = f"mpiwatch_fortran_trace_completing({arg(c.count)}, {slot[c.requests]});"
        statuses = "NULL" if f08 else arg(c.statuses)
        after.append(f"mpiwatch_fortran_trace_completed({ierror}, {c.form}, {arg(c.count)}, "
                     f"{arg(c.flag)}, {arg(c.index)}, {arg(c.indices)}, {statuses});")
    if notes.poll_flag in slot:
        after.append(f"mpiwatch_fortran_trace_poll({ierror}, {slot[notes.poll_flag]});")
    if created:
        after.append(created)
    return FortranTrace(before, "\n".join(after))
