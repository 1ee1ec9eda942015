"""The Hatchet literal graph, checked field by field against Hatchet's literal
format (hatchet/readers/literal_reader.py, GraphFrame.from_literal): a list
of root nodes; each node a dict with "frame" (a dict with a string "name"
and "type", every value hashable, since a Frame is keyed by its items),
"metrics" (a dict of numbers, the same keys on every node, inclusive ones
ending in " (inc)") and, optionally, "children" (a list of nodes); nothing
else. Hatchet is not packaged for Debian, so this is the check."""
import json
import unittest

import mpiwatch

import synth

NODE_KEYS = {"frame", "metrics", "children"}


class LiteralTest(unittest.TestCase):
    def walk(self, node, depth, seen):
        self.assertIsInstance(node, dict)
        self.assertLessEqual(set(node), NODE_KEYS)
        self.assertIn("frame", node)
        self.assertIn("metrics", node)
        frame = node["frame"]
        self.assertIsInstance(frame, dict)
        self.assertIsInstance(frame.get("name"), str)
        self.assertTrue(frame["name"])
        self.assertIsInstance(frame.get("type"), str)
        for k, v in frame.items():
            self.assertIsInstance(k, str)
            self.assertIsInstance(v, (str, int, float), k)   # hashable, JSON
        m = node["metrics"]
        seen.append((depth, frame["type"], frame["name"], m))
        self.assertEqual(set(m), set(mpiwatch.hatchet.METRIC_KEYS))
        for k, v in m.items():
            self.assertIsInstance(v, (int, float), k)
            self.assertFalse(isinstance(v, bool), k)
            self.assertGreaterEqual(v, 0, k)
        self.assertGreaterEqual(m["time (inc)"] + 1e-9, m["time"])
        kids = node.get("children", [])
        self.assertIsInstance(kids, list)
        if "children" in node:
            self.assertTrue(kids, "an empty children list")
        for c in kids:
            self.walk(c, depth + 1, seen)
        if kids and frame["type"] != "job":
            self.assertAlmostEqual(m["time (inc)"], m["time"] + sum(c["metrics"]["time (inc)"] for c in kids))

    def check(self, n):
        doc = synth.report(n)
        doc["label"], doc["build_id"], doc["nodes"] = "run 1", "00ff", 2
        # As in a real report, a function's sites hold at most its time (the
        # synthetic ones do not): half of it, shared among them.
        sites = doc["callsites"]["sites"]
        for s in sites:
            same = [x for x in sites if x["function"] == s["function"]]
            s["time"] = doc["functions"][s["function"]]["time"] / (2 * len(same))
        lit = json.loads(json.dumps(mpiwatch.to_literal(doc)))   # as written to the file
        self.assertIsInstance(lit, list)
        self.assertEqual(len(lit), 1)
        seen = []
        self.walk(lit[0], 0, seen)
        root = lit[0]["frame"]
        self.assertEqual((root["type"], root["ranks"], root["label"], root["build_id"], root["nodes"]),
                         ("job", n, "run 1", "00ff", 2))
        self.assertEqual(root["command"], doc["command"])
        types = {(d, t) for d, t, _, _ in seen}
        self.assertEqual(types, {(0, "job"), (1, "region"), (1, "function"), (2, "callsite")})
        fns = {name: m for d, t, name, m in seen if t == "function"}
        self.assertEqual(set(fns), set(doc["functions"]))
        for name, f in doc["functions"].items():
            self.assertAlmostEqual(fns[name]["time (inc)"], f["time"])
        sites = [(name, m) for d, t, name, m in seen if t == "callsite"]
        self.assertEqual(len(sites), len(doc["callsites"]["sites"]))
        self.assertEqual(sum(m["calls"] for _, m in sites),
                         sum(s["calls"] for s in doc["callsites"]["sites"]))
        s0 = doc["callsites"]["sites"][0]
        self.assertIn(f"{s0['file']}:{s0['line']} ({s0['caller']})", [name for name, _ in sites])
        self.assertAlmostEqual(lit[0]["metrics"]["time (inc)"], sum(f["time"] for f in doc["functions"].values()))
        regions = {name: m for d, t, name, m in seen if t == "region"}
        self.assertEqual(regions["solve"]["time"], doc["regions"]["solve"]["mpi"]["sum"])

    def test_one_rank(self):
        self.check(1)

    def test_four_ranks(self):
        self.check(4)

    def test_1024_ranks(self):
        self.check(1024)


if __name__ == "__main__":
    unittest.main()
