"""mpiwatch.load: the tables equal the JSON's values, for 1, 4 and 1,024 ranks."""
import json
import os
import tempfile
import unittest
import warnings

import mpiwatch
from mpiwatch import report as report_module

import synth


def rows(table):
    """A table's rows as dicts, whether a DataFrame or a list."""
    if isinstance(table, list):
        return table
    return [{k: (None if v != v else v) for k, v in r.items()}   # NaN -> None
            for r in table.to_dict("records")]


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and abs(a - b) <= 1e-12 * max(1, abs(a), abs(b))
    return a == b


class LoadTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, doc, name="r.json"):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def check_rank_count(self, n):
        doc = synth.report(n)
        doc["label"], doc["build_id"], doc["nodes"] = "nightly", "ab12", 1
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            r = mpiwatch.load(self.write(doc))
        self.assertEqual(r.pandas, mpiwatch.HAVE_PANDAS)
        kind = list if not mpiwatch.HAVE_PANDAS else report_module._pd.DataFrame
        for name in report_module.COLUMNS:
            self.assertIsInstance(getattr(r, name), kind, name)
            if mpiwatch.HAVE_PANDAS:
                self.assertEqual(list(getattr(r, name).columns), list(report_module.COLUMNS[name]))
        self.assertEqual(r.header["label"], "nightly")
        self.assertEqual(r.header["ranks"], n)
        self.assertEqual(r.header["build_id"], "ab12")
        # functions and their histograms
        f = {x["function"]: x for x in rows(r.functions)}
        self.assertEqual(set(f), set(doc["functions"]))
        for name, j in doc["functions"].items():
            for k in ("calls", "time", "bytes_sent", "bytes_recv", "min", "max", "category"):
                self.assertTrue(same(f[name][k], j[k]), (name, k, f[name][k], j[k]))
            for k in ("min", "min_rank", "mean", "max", "max_rank", "cv"):
                self.assertTrue(same(f[name]["rank_time_" + k], j["rank_time"][k]), (name, k))
        hist = [(h["function"], h["low"], h["high"], h["calls"]) for h in rows(r.histograms)]
        self.assertEqual(hist, [(name, lo, hi, c) for name, j in doc["functions"].items()
                                for lo, hi, c in j["sizes"]])
        # ranks
        self.assertEqual(len(rows(r.ranks)), n)
        for got, j in zip(rows(r.ranks), doc["rank_times"]):
            for k in ("rank", "app", "mpi", "init"):
                self.assertTrue(same(got[k], j[k]), (k, got[k], j[k]))
        # rank x function, long: one row per rank and function, same values
        rf = doc["rank_functions"]
        got = rows(r.rank_functions)
        self.assertEqual(len(got), n * len(rf["functions"]))
        i = 0
        for row in rf["ranks"]:
            for fi, name in enumerate(rf["functions"]):
                g = got[i]
                i += 1
                self.assertEqual((g["rank"], g["function"]), (row["rank"], name))
                for k in ("calls", "time", "bytes_sent", "bytes_recv"):
                    self.assertTrue(same(g[k], row[k][fi]), (row["rank"], name, k))
        # call sites, regions, matrix
        sites = rows(r.callsites)
        self.assertEqual(len(sites), len(doc["callsites"]["sites"]))
        for g, j in zip(sites, doc["callsites"]["sites"]):
            for k in ("function", "caller", "file", "line", "calls", "time", "bytes_sent", "bytes_recv"):
                self.assertTrue(same(g[k], j[k]), k)
            self.assertEqual(g["rank_time_max_rank"], j["rank_time"]["max_rank"])
        regions = rows(r.regions)
        self.assertEqual([g["region"] for g in regions], list(doc["regions"]))
        for g in regions:
            j = doc["regions"][g["region"]]
            self.assertEqual((g["entries"], g["calls"]), (j["entries"], j["calls"]))
            self.assertTrue(same(g["mpi_sum"], j["mpi"]["sum"]) and same(g["wall_max"], j["wall"]["max"]))
        matrix = rows(r.matrix)
        self.assertEqual([(m["from"], m["to"], m["bytes"], m["messages"]) for m in matrix],
                         [(p["from"], p["to"], p["bytes"], p["messages"]) for p in doc["pairs"]])

    def test_one_rank(self):
        self.check_rank_count(1)

    def test_four_ranks(self):
        self.check_rank_count(4)

    def test_1024_ranks(self):
        self.check_rank_count(1024)

    def test_lists_when_asked(self):
        r = mpiwatch.load(self.write(synth.report(4)), use_pandas=False)
        self.assertFalse(r.pandas)
        self.assertIsInstance(r.functions, list)

    @unittest.skipIf(mpiwatch.HAVE_PANDAS, "pandas is installed (the run without it checks this)")
    def test_says_when_pandas_is_missing(self):
        report_module._told_no_pandas = False
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            mpiwatch.load(self.write(synth.report(1)))
            mpiwatch.load(self.write(synth.report(1)))
        said = [str(w.message) for w in caught if "pandas" in str(w.message)]
        self.assertEqual(len(said), 1, said)
        self.assertIn("lists of dicts", said[0])

    def test_not_a_report(self):
        for text, why in (("{", "Expecting"), ('{"schema": "other/1"}', "not an mpiwatch JSON report"),
                          ("[1]", "not an mpiwatch JSON report")):
            path = os.path.join(self.dir.name, "bad.json")
            with open(path, "w") as f:
                f.write(text)
            with self.assertRaises(mpiwatch.ReportError) as e:
                mpiwatch.load(path)
            self.assertIn(path, str(e.exception))
            self.assertIn(why, str(e.exception))
        with self.assertRaises(mpiwatch.ReportError) as e:
            mpiwatch.load(os.path.join(self.dir.name, "missing.json"))
        self.assertIn("missing.json", str(e.exception))


if __name__ == "__main__":
    unittest.main()
