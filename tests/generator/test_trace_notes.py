"""Tests of what the trace notes beyond the profile (trace_notes.py).

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import unittest

from support import reconciled, wrapper

from mpiwatch_gen.fortran_trace import fortran_trace_of
from mpiwatch_gen.layering import FortranBinding
from mpiwatch_gen.trace_notes import TraceNotes


def notes(name: str) -> TraceNotes:
    """The trace's notes of one function of trace_notes.h."""
    return wrapper(reconciled("trace_notes.h"), name).trace


class TraceNotesTest(unittest.TestCase):
    """Requests, completions, polls and roots come from the roles."""

    def test_a_receive_starts_a_request_whose_status_says_its_source(self):
        got = notes("MPI_Irecv")
        self.assertEqual(got.after, ("mw_trace_note_request(ret, *request, comm, 1);",))
        self.assertEqual((got.before, got.root), ((), ""))

    def test_a_send_starts_a_request(self):
        self.assertEqual(notes("MPI_Isend").after,
                         ("mw_trace_note_request(ret, *request, comm, 0);",))

    def test_a_wait_reads_its_request_before_the_call(self):
        got = notes("MPI_Wait")
        self.assertEqual(got.before, ("mw_trace_note_completing(1, request);",))
        self.assertEqual(got.after, ("mw_trace_note_completed(ret, MW_TRACE_DONE_ONE, NULL, "
                                     "NULL, NULL, status);",))

    def test_a_test_passes_its_flag(self):
        self.assertIn("MW_TRACE_DONE_ONE, flag,", notes("MPI_Test").after[0])

    def test_each_form_of_completion(self):
        self.assertEqual(notes("MPI_Waitall").before,
                         ("mw_trace_note_completing(count, array_of_requests);",))
        self.assertIn("MW_TRACE_DONE_ALL, NULL, NULL, NULL, array_of_statuses",
                      notes("MPI_Waitall").after[0])
        self.assertIn("MW_TRACE_DONE_ANY, flag, index, NULL, status", notes("MPI_Testany").after[0])
        self.assertIn("MW_TRACE_DONE_SOME, NULL, outcount, array_of_indices, array_of_statuses",
                      notes("MPI_Waitsome").after[0])

    def test_a_probe_is_a_poll(self):
        self.assertEqual(notes("MPI_Iprobe").after, ("mw_trace_note_poll(ret, flag);",))

    def test_rooted_collectives_note_their_root(self):
        self.assertEqual(notes("MPI_Bcast").root, "mw_trace_note_root(root, comm);")
        got = notes("MPI_Ibcast")
        self.assertEqual(got.root, "mw_trace_note_root(root, comm);")
        self.assertEqual(got.after, ("mw_trace_note_request(ret, *request, comm, 0);",))

    def test_a_cheap_call_adds_nothing(self):
        self.assertFalse(notes("MPI_Comm_rank").any)

    def test_a_send_receive_notes_its_receive_half(self):
        got = notes("MPI_Sendrecv")
        self.assertEqual(got.receive, "mw_trace_note_received(ret, source, recvtag, recvcount, "
                                      "recvtype, comm, status);")
        self.assertTrue(got.completes)
        # one buffer: its count and datatype are the receive's too
        self.assertEqual(notes("MPI_Sendrecv_replace").receive,
                         "mw_trace_note_received(ret, source, recvtag, count, datatype, comm, "
                         "status);")
        self.assertFalse(notes("MPI_Isend").completes or notes("MPI_Isend").receive)



def fortran(name: str, binding: FortranBinding = FortranBinding.MPIF):
    """A Fortran entry point's trace statements, its slots named f_<standard's name>."""
    w = wrapper(reconciled("trace_notes.h"), name)
    slots = [(p.spec.name, "f_" + p.spec.name) for p in w.params if p.spec is not None]
    return fortran_trace_of(binding, w.trace, slots + [("ierror", "f_ierror")], name,
                            w.inflight.creates)


class FortranTraceTest(unittest.TestCase):
    """The Fortran entry points note the same, over their own arguments."""

    def test_a_receive_starts_a_request(self):
        self.assertEqual(fortran("MPI_Irecv").after,
                         "mpiwatch_fortran_trace_request(f_ierror, f_request, f_comm, 1);")

    def test_a_wait_some_passes_its_count_indices_and_statuses(self):
        got = fortran("MPI_Waitsome")
        self.assertEqual(got.before, "mpiwatch_fortran_trace_completing(f_incount, "
                                     "f_array_of_requests);")
        self.assertEqual(got.after, "mpiwatch_fortran_trace_completed(f_ierror, "
                                    "MW_TRACE_DONE_SOME, f_incount, NULL, f_outcount, "
                                    "f_array_of_indices, f_array_of_statuses);")

    def test_a_probe_is_a_poll(self):
        self.assertEqual(fortran("MPI_Iprobe").after,
                         "mpiwatch_fortran_trace_poll(f_ierror, f_flag);")

    def test_a_new_communicator_is_defined(self):
        self.assertEqual(fortran("MPI_Comm_split").after,
                         "mpiwatch_fortran_trace_comm(f_ierror, f_newcomm);")

    def test_an_idup_communicator_is_not(self):
        self.assertNotIn("trace_comm", fortran("MPI_Comm_idup").after)

    def test_use_mpi_f08_notes_its_requests_as_mpif(self):
        got = fortran("MPI_Irecv", FortranBinding.F08)
        self.assertEqual((got.before, got.after),
                         ("", "mpiwatch_fortran_trace_request(f_ierror, f_request, f_comm, 1);"))

    def test_use_mpi_f08_completions_read_no_status(self):
        got = fortran("MPI_Waitsome", FortranBinding.F08)
        self.assertEqual(got.before, "mpiwatch_fortran_trace_completing(f_incount, "
                                     "f_array_of_requests);")
        self.assertEqual(got.after, "mpiwatch_fortran_trace_completed(f_ierror, "
                                    "MW_TRACE_DONE_SOME, f_incount, NULL, f_outcount, "
                                    "f_array_of_indices, NULL);")
        self.assertEqual(fortran("MPI_Test", FortranBinding.F08).after,
                         "mpiwatch_fortran_trace_completed(f_ierror, MW_TRACE_DONE_ONE, NULL, "
                         "f_flag, NULL, NULL, NULL);")

    def test_use_mpi_f08_defines_a_new_communicator(self):
        got = fortran("MPI_Comm_split", FortranBinding.F08)
        self.assertEqual((got.before, got.after),
                         ("", "mpiwatch_fortran_trace_comm(f_ierror, f_newcomm);"))
        self.assertNotIn("trace_comm", fortran("MPI_Comm_idup", FortranBinding.F08).after)


if __name__ == "__main__":
    unittest.main()
