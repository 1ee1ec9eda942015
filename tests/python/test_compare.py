"""mpiwatch.diff: changes found and ranked, sites matched by name not address."""
import math
import unittest

import mpiwatch

import synth


def edited(n=4):
    """A synthetic report of n ranks, and a copy where the busiest site's bytes
    are 4 times larger and MPI_Bcast is called twice as often."""
    a = synth.report(n)
    b = synth.report(n)
    site = b["callsites"]["sites"][0]
    site["bytes_sent"] *= 4
    site["bytes_recv"] *= 4
    fn = b["functions"][site["function"]]
    fn["bytes_sent"] += 3 * a["callsites"]["sites"][0]["bytes_sent"]
    fn["bytes_recv"] += 3 * a["callsites"]["sites"][0]["bytes_recv"]
    b["functions"]["MPI_Bcast"]["calls"] *= 2
    return a, b


class DiffTest(unittest.TestCase):
    def test_against_itself_no_change(self):
        a = synth.report(4)
        d = mpiwatch.diff(a, synth.report(4))
        self.assertEqual(d.changes, [])
        self.assertEqual(d.basis, "totals")
        self.assertIn("No change above noise", d.text())
        self.assertTrue(all(e["side"] == "both" for e in d.functions + d.sites + d.regions))

    def test_largest_changes_named_with_factors(self):
        a, b = edited()
        d = mpiwatch.diff(a, b)
        site = a["callsites"]["sites"][0]
        names = [(e["kind"], e["name"]) for e in d.changes]
        self.assertEqual(len(names), 3, names)
        self.assertEqual(d.changes[0]["kind"], "site")
        self.assertEqual(d.changes[0]["site"]["line"], site["line"])
        self.assertAlmostEqual(d.changes[0]["change"]["bytes"]["factor"], 4.0)
        self.assertEqual(d.changes[0]["above_noise"], ["bytes"])
        bcast = [e for e in d.changes if e["name"] == "MPI_Bcast"][0]
        self.assertAlmostEqual(bcast["change"]["calls"]["factor"], 2.0)
        self.assertIn(("function", site["function"]), names)

    def test_time_noise(self):
        a, b = synth.report(4), synth.report(4)
        b["functions"]["MPI_Send"]["time"] *= 1.1           # within 25%: noise
        b["functions"]["MPI_Allreduce"]["time"] *= 3        # a real change
        d = mpiwatch.diff(a, b)
        self.assertEqual([e["name"] for e in d.changes], ["MPI_Allreduce"])
        self.assertEqual(d.changes[0]["above_noise"], ["time"])

    def test_moved_lines_still_match(self):
        a, b = synth.report(4), synth.report(4)
        for s in b["callsites"]["sites"]:
            s["line"] += 1 + s["line"] % 3          # lines inserted above each call
            s["offset"] = hex(int(s["offset"], 16) + 0x40)   # and a new address
        d = mpiwatch.diff(a, b)
        self.assertEqual(d.changes, [])
        self.assertEqual(len(d.sites), len(a["callsites"]["sites"]))
        self.assertTrue(all(e["side"] == "both" and e["moved"] for e in d.sites))

    def test_same_name_many_addresses_is_one_site(self):
        a, b = synth.report(4), synth.report(4)
        s = b["callsites"]["sites"][0]
        twin = dict(s, offset=hex(int(s["offset"], 16) + 0x20), calls=s["calls"] // 2,
                    bytes_sent=s["bytes_sent"] // 2, bytes_recv=s["bytes_recv"] // 2, time=s["time"] / 2)
        s.update(calls=s["calls"] - twin["calls"], bytes_sent=s["bytes_sent"] - twin["bytes_sent"],
                 bytes_recv=s["bytes_recv"] - twin["bytes_recv"], time=s["time"] / 2)
        b["callsites"]["sites"].append(twin)     # an unrolled loop: two addresses, one line
        d = mpiwatch.diff(a, b)
        self.assertEqual(d.changes, [])
        self.assertEqual(len(d.sites), len(a["callsites"]["sites"]))
        first = [e for e in d.sites if e["site"]["line"] == s["line"] and e["site"]["file"] == s["file"]]
        self.assertEqual([e["b"]["addresses"] for e in first], [2])

    def test_startup_time_never_counts(self):
        a, b = synth.report(4), synth.report(4)
        b["functions"]["MPI_Init"]["time"] *= 5
        self.assertEqual(mpiwatch.diff(a, b).changes, [])

    def test_one_side_only(self):
        a, b = synth.report(4), synth.report(4)
        gone = b["callsites"]["sites"].pop(5)
        del b["functions"]["MPI_Alltoall"]
        b["regions"]["io"] = dict(b["regions"]["solve"])
        d = mpiwatch.diff(a, b)
        sides = {(e["kind"], e["name"]): e["side"] for e in d.changes}
        self.assertEqual(sides[("function", "MPI_Alltoall")], "a only")
        self.assertEqual(sides[("region", "io")], "b only")
        self.assertEqual([e["site"]["line"] for e in d.changes if e["kind"] == "site"], [gone["line"]])
        text = d.text()
        self.assertIn("[only in A]", text)
        self.assertIn("[only in B]", text)

    def test_different_rank_counts_per_rank_means(self):
        a, b = synth.report(4), synth.report(8)
        d = mpiwatch.diff(a, b)
        self.assertEqual(d.basis, "per-rank means")
        self.assertIn("different rank counts (4 and 8)", d.text())
        send = [e for e in d.functions if e["name"] == "MPI_Send"][0]
        self.assertAlmostEqual(send["a"]["calls"], a["functions"]["MPI_Send"]["calls"] / 4)
        self.assertAlmostEqual(send["b"]["calls"], b["functions"]["MPI_Send"]["calls"] / 8)
        self.assertEqual(send["b"]["total"]["calls"], b["functions"]["MPI_Send"]["calls"])

    def test_imbalance_and_ranks(self):
        a = synth.report(4)
        d = mpiwatch.diff(a, a)
        send = [e for e in d.functions if e["name"] == "MPI_Send"][0]
        rt = a["functions"]["MPI_Send"]["rank_time"]
        self.assertAlmostEqual(send["a"]["imbalance"], round(rt["max"] / rt["mean"], 4))
        self.assertEqual(send["a"]["slowest_rank"], rt["max_rank"])
        self.assertEqual(send["a"]["fastest_rank"], rt["min_rank"])
        self.assertAlmostEqual(send["a"]["share"], rt["mean"] * 4 / sum(t["app"] for t in a["rank_times"]))

    def test_json_is_plain(self):
        a, b = edited()
        b["functions"]["MPI_Foo"] = dict(b["functions"]["MPI_Send"])
        import json
        doc = json.loads(mpiwatch.diff(a, b).json())
        self.assertEqual(doc["basis"], "totals")
        self.assertEqual(doc["changes"][0]["kind"], "function")   # one side only: first
        self.assertTrue(all(isinstance(e["score"], (int, float)) or e["score"] is None
                            for e in doc["functions"]))


if __name__ == "__main__":
    unittest.main()
