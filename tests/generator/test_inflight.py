"""Tests of what a call in progress publishes for the live monitor (inflight.py).

Run from the top of the tree:
    PYTHONPATH=generator python3 -m unittest discover -s tests/generator \
        -p 'test_*.py'
"""

from __future__ import annotations

import unittest

from support import reconciled, wrapper

from mpiwatch_gen.inflight import (COLLECTIVE, COMPLETES, HAS_COMM, HAS_PEER, HAS_ROOT,
                                   HAS_TAG, RECEIVES, SENDS, InFlight)


def inflight(name: str) -> InFlight:
    """The in-flight description of one function of inflight.h."""
    return wrapper(reconciled("inflight.h"), name).inflight


class InFlightTest(unittest.TestCase):
    """Fields and flags come from the standard's roles, not from positions."""

    def test_receive_waits_for_its_source(self):
        got = inflight("MPI_Recv")
        self.assertEqual((got.comm, got.peer, got.tag, got.root), ("comm", "source", "tag", None))
        self.assertEqual(got.flags, (RECEIVES, HAS_COMM, HAS_PEER, HAS_TAG))
        self.assertEqual(got.flags_c, "MWP_IF_RECEIVES | MW_INFLIGHT_HAS_COMM | "
                                      "MW_INFLIGHT_HAS_PEER | MW_INFLIGHT_HAS_TAG")

    def test_send_waits_for_its_destination(self):
        got = inflight("MPI_Ssend")
        self.assertEqual((got.peer, got.tag), ("dest", "tag"))
        self.assertEqual(got.flags[0], SENDS)

    def test_send_receive_shows_what_it_receives(self):
        got = inflight("MPI_Sendrecv")
        self.assertEqual((got.peer, got.tag), ("source", "recvtag"))
        self.assertEqual(got.flags[0], RECEIVES)

    def test_collectives_and_roots(self):
        self.assertEqual(inflight("MPI_Bcast").root, "root")
        self.assertEqual(inflight("MPI_Bcast").flags, (COLLECTIVE, HAS_COMM, HAS_ROOT))
        self.assertEqual(inflight("MPI_Barrier").flags, (COLLECTIVE, HAS_COMM))
        self.assertEqual(inflight("MPI_Comm_dup").flags, (COLLECTIVE, HAS_COMM))

    def test_constructors_name_the_communicator_they_create(self):
        self.assertEqual(inflight("MPI_Comm_dup").creates, "newcomm")
        self.assertIsNone(inflight("MPI_Barrier").creates)

    def test_neighbourhood_collectives_do_not_wait_for_everyone(self):
        self.assertEqual(inflight("MPI_Neighbor_allgather").flags, (HAS_COMM,))

    def test_wait_completes_requests(self):
        got = inflight("MPI_Wait")
        self.assertEqual(got.flags, (COMPLETES,))
        self.assertFalse(got.publishes)

    def test_one_sided_peer_is_not_a_communicator_rank(self):
        got = inflight("MPI_Put")
        self.assertEqual((got.comm, got.peer, got.flags, got.flags_c), (None, None, (), "0"))

    def test_cheap_call_publishes_its_communicator_only(self):
        got = inflight("MPI_Comm_rank")
        self.assertEqual((got.comm, got.peer, got.tag, got.flags), ("comm", None, None, (HAS_COMM,)))


if __name__ == "__main__":
    unittest.main()
