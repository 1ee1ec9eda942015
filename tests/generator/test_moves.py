"""Tests of the one derivation of what a call moves (moves.py).

Each behaviour of the registry has a test here that fails without it. The
calls are built straight from the shipped spec, with parameter names of
our own ("c_<name>"), so that a rule reading a parameter by its standard
name instead of its role would be caught.
"""

from __future__ import annotations

import unittest

from support import shipped_spec

from mpiwatch_gen.parameters import WrapperParam
from mpiwatch_gen.moves import (COLLECTIVES, MOVEMENTS, Binding, Frees, Kind, Moves,
                                Operation, Side, Variant, derive)


def params(name: str, large: bool = False) -> tuple[WrapperParam, ...]:
    """A call's parameters as a header naming them differently would give them."""
    fn = shipped_spec().functions[name]
    return tuple(WrapperParam(f"c_{p.name}", "", p) for p in fn.c_params(large)
                 if p.kind != "VARARGS")


def moves(name: str) -> Moves:
    """What a call of MPI_X (or MPI_X_c) moves."""
    entry, large = shipped_spec().lookup(name)
    assert entry is not None, name
    return derive(name, entry, large, entry.category, params(entry.name, large))


class BindingTest(unittest.TestCase):
    """Parameters are found by role and side, never by name."""

    def test_a_tag_takes_the_side_of_the_peer_before_it(self):
        binding = Binding(params("MPI_Sendrecv"), False)
        self.assertEqual(binding.on("tag", Side.SEND).c_name, "c_sendtag")
        self.assertEqual(binding.on("tag", Side.RECV).c_name, "c_recvtag")

    def test_a_role_without_the_side_falls_back_to_the_only_one(self):
        # MPI_Precv_init's count is on the send side in the standard's data.
        binding = Binding(params("MPI_Precv_init"), False)
        self.assertEqual(binding.get("count", Side.RECV).c_name, "c_count")
        self.assertIsNone(binding.on("count", Side.RECV))

    def test_two_parameters_of_a_role_without_a_side_are_ambiguous(self):
        self.assertIsNone(Binding(params("MPI_Sendrecv"), False).get("peer"))


class OperationTest(unittest.TestCase):

    def test_nonblocking_persistent_large(self):
        self.assertEqual(Operation.of("MPI_Ibcast", False), Operation("Bcast", True, False))
        self.assertEqual(Operation.of("MPI_Bcast_init_c", True), Operation("Bcast", False, True))
        self.assertEqual(Operation.of("MPI_Rget_accumulate", False),
                         Operation("Get_accumulate", True, False))

    def test_variants_belong_to_their_family(self):
        self.assertEqual(Operation.of("MPI_Igatherv", False).family, "Gather")
        self.assertEqual(Operation.of("MPI_Alltoallw", False).family, "Alltoall")
        self.assertEqual(Operation.of("MPI_Reduce_scatter_block", False).family, "Reduce_scatter")
        self.assertIsNone(Operation.of("MPI_Neighbor_allgather", False).family)
        self.assertIsNone(Operation.of("MPI_Ineighbor_alltoall", False).family)

    def test_registry_covers_the_moving_categories(self):
        self.assertEqual(set(MOVEMENTS), {"send", "recv", "sendrecv", "completion",
                                          "collective", "rma", "io"})
        self.assertIn("Alltoall", COLLECTIVES)


class PointToPointTest(unittest.TestCase):

    def test_send(self):
        got = moves("MPI_Isend")
        self.assertEqual(got.kind, Kind.SEND)
        self.assertEqual(got.notes, ("mw_note_send(&call, c_count, c_datatype, c_dest, c_tag, "
                                     "c_comm);",))

    def test_notes_taken_before_the_call_read_no_status(self):
        for name in ("MPI_Send", "MPI_Isend", "MPI_Allreduce", "MPI_Irecv"):
            self.assertTrue(moves(name).noted_before_call, name)
        for name in ("MPI_Recv", "MPI_Sendrecv", "MPI_Send_init", "MPI_Bcast", "MPI_Comm_rank"):
            self.assertFalse(moves(name).noted_before_call, name)

    def test_memo_keys_and_kept_values_come_from_the_roles(self):
        send = moves("MPI_Isend").memo
        self.assertEqual((send.kind, send.datatype, send.comm, send.count, send.peer),
                         ("MW_MEMO_SEND", "c_datatype", "c_comm", "c_count", "c_dest"))
        recv = moves("MPI_Recv").memo
        self.assertEqual((recv.kind, recv.peer, recv.status),
                         ("MW_MEMO_RECV", "c_source", "c_status"))
        both = moves("MPI_Sendrecv").memo
        self.assertEqual((both.kind, both.count2, both.peer2, both.datatype2),
                         ("MW_MEMO_SENDRECV", "c_recvcount", "c_source", "c_recvtype"))
        # One datatype both ways: nothing to compare.
        self.assertIsNone(moves("MPI_Sendrecv_replace").memo.datatype2)
        self.assertEqual(moves("MPI_Allreduce").memo.kind, "MW_MEMO_ALLREDUCE")
        for name in ("MPI_Send_init", "MPI_Bcast", "MPI_Mrecv", "MPI_Comm_rank", "MPI_Put"):
            self.assertIsNone(moves(name).memo, name)

    def test_partitioned_send_by_the_partition_kind(self):
        self.assertEqual(moves("MPI_Psend_init").notes[0],
                         "mw_note_psend(&call, c_partitions, c_count, c_datatype, c_dest, "
                         "c_tag, c_comm);")

    def test_receive_with_its_status(self):
        self.assertEqual(moves("MPI_Recv").notes,
                         ("mw_note_recv(&call, c_count, c_datatype, c_source, c_tag, c_comm, "
                          "c_status);",))
        self.assertIn("c_comm, NULL);", moves("MPI_Irecv").notes[0])

    def test_matched_receive(self):
        self.assertEqual(moves("MPI_Mrecv").notes,
                         ("mw_note_mrecv(&call, c_count, c_datatype, c_status);",))

    def test_sendrecv_sides(self):
        self.assertEqual(moves("MPI_Sendrecv").notes[0],
                         "mw_note_sendrecv(&call, c_sendcount, c_sendtype, c_dest, c_sendtag, "
                         "c_recvcount, c_recvtype, c_source, c_comm, c_status);")

    def test_sendrecv_replace_receives_what_it_sends(self):
        self.assertEqual(moves("MPI_Sendrecv_replace").notes[0],
                         "mw_note_sendrecv(&call, c_count, c_datatype, c_dest, c_sendtag, "
                         "c_count, c_datatype, c_source, c_comm, c_status);")


class PersistentTest(unittest.TestCase):

    def test_an_init_call_remembers_its_request(self):
        got = moves("MPI_Send_init")
        self.assertTrue(got.persistent)
        self.assertEqual(got.notes[-1], "mw_persist(&call, *c_request);")

    def test_a_nonblocking_call_is_not_persistent(self):
        self.assertFalse(moves("MPI_Isend").persistent)

    def test_start_and_startall(self):
        self.assertEqual(moves("MPI_Start").notes, ("mw_note_start(&call, *c_request);",))
        self.assertEqual(moves("MPI_Startall").notes,
                         ("mw_note_startall(&call, c_count, c_array_of_requests);",))

    def test_waits_move_nothing(self):
        self.assertEqual(moves("MPI_Wait"), Moves())


class CollectiveTest(unittest.TestCase):

    def test_rooted_and_not(self):
        self.assertEqual(moves("MPI_Bcast").notes[0],
                         "mw_note_bcast(&call, c_count, c_datatype, c_root, c_comm);")
        self.assertEqual(moves("MPI_Scan").notes[0],
                         "mw_note_allreduce(&call, c_count, c_datatype, c_comm);")

    def test_in_place_buffer_is_the_side_every_rank_gives(self):
        self.assertEqual(moves("MPI_Gather").send.buffer, "c_sendbuf")
        self.assertEqual(moves("MPI_Scatter").recv.buffer, "c_recvbuf")
        # Its recvbuf is marked root-only too in the standard's data.
        self.assertEqual(moves("MPI_Scatterv_init").recv.buffer, "c_recvbuf")
        self.assertIsNone(moves("MPI_Reduce").recv.buffer)

    def test_variants_from_the_lengths_of_counts_and_datatypes(self):
        self.assertEqual(moves("MPI_Allgather").variant, Variant.SCALAR)
        self.assertEqual(moves("MPI_Allgatherv").variant, Variant.V)
        self.assertEqual(moves("MPI_Alltoallw").variant, Variant.W)
        self.assertEqual(moves("MPI_Reduce_scatter").note, "mw_note_reduce_scatter")
        self.assertEqual(moves("MPI_Reduce_scatter_block").note, "mw_note_reduce_scatter_block")

    def test_large_flag_after_the_one_array_or_after_both_sides(self):
        self.assertEqual(moves("MPI_Gatherv_c").notes[0],
                         "mw_note_gatherv(&call, c_sendbuf, c_sendcount, c_sendtype, "
                         "c_recvcounts, 1, c_recvtype, c_root, c_comm);")
        self.assertEqual(moves("MPI_Alltoallv").notes[0],
                         "mw_note_alltoallv(&call, c_sendbuf, c_sendcounts, c_sendtype, "
                         "c_recvcounts, c_recvtype, 0, c_comm);")

    def test_neighbour_collectives_and_barriers_are_not_noted(self):
        self.assertEqual(moves("MPI_Neighbor_allgather").kind, Kind.NONE)
        self.assertEqual(moves("MPI_Ibarrier").kind, Kind.NONE)


class OneSidedTest(unittest.TestCase):

    def test_direction_of_the_origin_buffer(self):
        self.assertEqual(moves("MPI_Put").arguments[:2], ("mw_bytes(c_origin_count, "
                                                          "c_origin_datatype)", "0"))
        self.assertEqual(moves("MPI_Rget").arguments[:2], ("0", "mw_bytes(c_origin_count, "
                                                               "c_origin_datatype)"))

    def test_a_fetching_operation_sends_nothing_with_no_op(self):
        self.assertEqual(moves("MPI_Get_accumulate").arguments[0],
                         "(c_op == MPI_NO_OP ? 0 : mw_bytes(c_origin_count, "
                         "c_origin_datatype))")
        self.assertEqual(moves("MPI_Accumulate").arguments[0],
                         "mw_bytes(c_origin_count, c_origin_datatype)")

    def test_single_elements_of_the_only_datatype(self):
        self.assertEqual(moves("MPI_Compare_and_swap").arguments,
                         ("2 * mw_bytes(1, c_datatype)", "mw_bytes(1, c_datatype)",
                          "c_target_rank", "c_win"))
        self.assertEqual(moves("MPI_Fetch_and_op").arguments[:2],
                         ("(c_op == MPI_NO_OP ? 0 : mw_bytes(1, c_datatype))",
                          "mw_bytes(1, c_datatype)"))


class FileTest(unittest.TestCase):

    def test_write_sends_and_read_receives(self):
        self.assertEqual(moves("MPI_File_write_at").arguments,
                         ("mw_bytes(c_count, c_datatype)", "0"))
        self.assertEqual(moves("MPI_File_iread_shared").arguments,
                         ("0", "mw_bytes(c_count, c_datatype)"))

    def test_the_end_of_a_split_access_has_no_count(self):
        self.assertEqual(moves("MPI_File_read_all_end").kind, Kind.NONE)


class FreesTest(unittest.TestCase):

    def test_freeing_a_cached_handle_forgets_the_caches(self):
        for name in ("MPI_Type_free", "MPI_Comm_free", "MPI_Comm_disconnect", "MPI_Win_free"):
            self.assertEqual(moves(name).before, ("mw_handles_forget();",), name)

    def test_freeing_a_request(self):
        got = moves("MPI_Request_free")
        self.assertEqual(got.frees, Frees.REQUEST)
        self.assertEqual(got.before, ("mw_forget_request(*c_request);",))

    def test_other_frees_are_not_cached(self):
        for name in ("MPI_Group_free", "MPI_Info_free", "MPI_Op_free", "MPI_Comm_free_keyval"):
            self.assertEqual(moves(name).before, (), name)


if __name__ == "__main__":
    unittest.main()
