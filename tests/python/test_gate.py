"""--fail-if: the grammar, both sides of each threshold, exit statuses 0, 2 and 3."""
import contextlib
import io
import json
import os
import tempfile
import unittest

import mpiwatch
from mpiwatch import cli

import synth


def scaled(**changes):
    """Two synthetic reports of 4 ranks, B changed: mpi=factor on every rank's
    MPI time, fn=(name, key, factor), site=(index, key, factor)."""
    a, b = synth.report(4), synth.report(4)
    if "mpi" in changes:
        for t in b["rank_times"]:
            t["mpi"] *= changes["mpi"]
    if "fn" in changes:
        name, key, f = changes["fn"]
        b["functions"][name][key] *= f
    if "site" in changes:
        i, key, f = changes["site"]
        b["callsites"]["sites"][i][key] *= f
    return a, b


class GrammarTest(unittest.TestCase):
    def test_good(self):
        for text, kind, name, metric, op, value, unit in (
                ("mpi_time>+10%", None, None, "mpi_time", ">", 10, "%"),
                ("site_time>+50ms", "site", None, "time", ">", 0.05, "abs"),
                ("function:MPI_Allreduce.time>+20%", "function", "MPI_Allreduce", "time", ">", 20, "%"),
                ("function_calls<-100", "function", None, "calls", "<", -100, "abs"),
                ("site:src/a.c:42.bytes > 1MiB", "site", "src/a.c:42", "bytes", ">", 1 << 20, "abs"),
                ("region:solve phase.time>1.5x", "region", "solve phase", "time", ">", 1.5, "x"),
                ("mpi_share>+2pp", None, None, "mpi_share", ">", 0.02, "abs")):
            t = mpiwatch.parse_threshold(text)
            self.assertEqual((t.kind, t.name, t.metric, t.op, t.unit), (kind, name, metric, op, unit), text)
            self.assertAlmostEqual(t.value, value)

    def test_bad_named(self):
        for text, why in (("mpi_time", "not TARGET>CHANGE"), ("mpi_time>+10ms%", "unit 'ms%' does not fit time"),
                          ("cpu_time>+10%", "unknown target"), ("function_speed>1%", "unknown metric"),
                          ("function:MPI_Send>1%", "KIND:NAME.METRIC"), ("site:foo.time>1%", "FILE:LINE"),
                          ("function_calls>5ms", "unit 'ms' does not fit calls"),
                          ("mpi_time>5MB", "does not fit time"), ("site_bytes>+5", "unit 'none'")):
            with self.assertRaises(mpiwatch.GateError) as e:
                mpiwatch.parse_threshold(text)
            self.assertIn(repr(text), str(e.exception))
            self.assertIn(why, str(e.exception))


class CrossingTest(unittest.TestCase):
    def crossed(self, expr, a, b):
        return mpiwatch.parse_threshold(expr).check(mpiwatch.diff(a, b))

    def test_both_sides_of_each_threshold(self):
        cases = [  # expression, changes of B, crossed?
            ("mpi_time>+10%", {"mpi": 1.09}, False), ("mpi_time>+10%", {"mpi": 1.11}, True),
            ("mpi_time<-10%", {"mpi": 0.91}, False), ("mpi_time<-10%", {"mpi": 0.89}, True),
            ("function:MPI_Allreduce.time>+20%", {"fn": ("MPI_Allreduce", "time", 1.19)}, False),
            ("function:MPI_Allreduce.time>+20%", {"fn": ("MPI_Allreduce", "time", 1.21)}, True),
            ("function:MPI_Bcast.calls>1.5x", {"fn": ("MPI_Bcast", "calls", 1.4)}, False),
            ("function:MPI_Bcast.calls>1.5x", {"fn": ("MPI_Bcast", "calls", 1.6)}, True),
            ("function_bytes>+50%", {"fn": ("MPI_Send", "bytes_sent", 1.4)}, False),
            ("function_bytes>+50%", {"fn": ("MPI_Send", "bytes_sent", 2.2)}, True),
        ]
        a = synth.report(4)
        site_t = a["callsites"]["sites"][3]["time"]   # 0.4 s
        cases += [("site_time>+50ms", {"site": (3, "time", (site_t + 0.049) / site_t)}, False),
                  ("site_time>+50ms", {"site": (3, "time", (site_t + 0.051) / site_t)}, True)]
        s = a["callsites"]["sites"][3]
        where = f"site:{s['file']}:{s['line']}.time>+50ms"
        cases += [(where, {"site": (3, "time", (site_t + 0.049) / site_t)}, False),
                  (where, {"site": (3, "time", (site_t + 0.051) / site_t)}, True)]
        for expr, change, expect in cases:
            with self.subTest(expr=expr, change=change):
                got = self.crossed(expr, *scaled(**change))
                self.assertEqual(bool(got), expect, got)
                if expect:
                    self.assertIn(expr, got[0])

    def test_unknown_entry_is_an_error(self):
        with self.assertRaises(mpiwatch.GateError) as e:
            self.crossed("function:MPI_Snd.time>+1%", synth.report(4), synth.report(4))
        self.assertIn("no function MPI_Snd in either run", str(e.exception))


class CommandTest(unittest.TestCase):
    """mpiwatch.cli.main, which `mpiwatch --diff` runs: its exit statuses."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        a, b = scaled(mpi=1.5)
        self.a, self.b = self.write(a, "a.json"), self.write(b, "b.json")

    def tearDown(self):
        self.dir.cleanup()

    def write(self, doc, name):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def run_cli(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main(list(args))
        return rc, out.getvalue(), err.getvalue()

    def test_statuses(self):
        self.assertEqual(self.run_cli("--diff", self.a, self.b)[0], 0)
        self.assertEqual(self.run_cli("--diff", self.a, self.b, "--fail-if", "mpi_time>+60%")[0], 0)
        rc, _, err = self.run_cli("--diff", self.a, self.b, "--fail-if", "mpi_time>+40%")
        self.assertEqual(rc, cli.CROSSED)
        self.assertIn("mpi_time>+40%: mpi_time", err)
        rc, _, err = self.run_cli("--diff", self.a, self.b, "--fail-if", "mpi_time>+4O%")
        self.assertEqual(rc, 2)
        self.assertIn("'mpi_time>+4O%'", err)
        rc, _, err = self.run_cli("--diff", self.a, self.b, "--fail-if=function:MPI_Nope.time>1%")
        self.assertEqual(rc, 2)
        self.assertIn("MPI_Nope", err)
        self.assertEqual(self.run_cli("--diff", self.a)[0], 2)
        self.assertEqual(self.run_cli("--diff", self.a, self.b, "--bogus")[0], 2)
        rc, _, err = self.run_cli("--diff", self.a, os.path.join(self.dir.name, "none.json"))
        self.assertEqual(rc, 1)
        self.assertIn("none.json", err)

    def test_json_output(self):
        rc, out, _ = self.run_cli("--diff", self.a, self.b, "--json")
        self.assertEqual(rc, 0)
        doc = json.loads(out)
        self.assertAlmostEqual(doc["job"]["mpi_time"]["change"]["factor"], 1.5)


if __name__ == "__main__":
    unittest.main()
