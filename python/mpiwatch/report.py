"""One JSON report (docs/report-format.md) as tables.

:func:`load` reads a report; the :class:`Report` it returns keeps the JSON as
``doc`` and gives its tables as pandas DataFrames when pandas is installed
(:data:`HAVE_PANDAS`), else as lists of dicts, one per row, with the same
columns. Each table's rows are made here from the JSON and nowhere else.
"""
from __future__ import annotations

import json
import warnings
from typing import Any

_pd = None        # the pandas module, once have_pandas() imported it
_have_pandas = None


def have_pandas() -> bool:
    """Whether pandas can be imported; imported on first need only (it takes
    seconds to import, which ``mpiwatch --diff`` does not spend)."""
    global _pd, _have_pandas
    if _have_pandas is None:
        try:
            import pandas
            _pd, _have_pandas = pandas, True
        except ImportError:   # plain lists instead; load() says so once
            _have_pandas = False
    return _have_pandas


def __getattr__(name: str):
    if name == "HAVE_PANDAS":   # True when the tables are DataFrames
        return have_pandas()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# The schema's family: its name and version have one home, the C header
# include/mpiwatch_report.h (MW_REPORT_SCHEMA); a version keeps the meaning of
# every key, so any version is read here by the keys it has.
SCHEMA_FAMILY = "mpiwatch-report/"

# The header's facts a comparison names each run by.
HEADER_KEYS = ("program", "label", "ranks", "nodes", "hosts", "command", "build_id", "mpi",
               "library", "start", "end", "timer")

# The columns of each table, in order (docs/python.md lists what each means).
_SPREAD = ("rank_time_min", "rank_time_min_rank", "rank_time_mean", "rank_time_max",
           "rank_time_max_rank", "rank_time_cv")
COLUMNS = {
    "functions": ("function", "category", "calls", "time", "min", "max", "bytes_sent",
                  "bytes_recv", "mpi_time") + _SPREAD,
    "ranks": ("rank", "app", "mpi", "init"),
    "rank_functions": ("rank", "function", "calls", "time", "bytes_sent", "bytes_recv"),
    "callsites": ("function", "caller", "file", "line", "module", "offset", "ranks", "calls",
                  "time", "min", "max", "bytes_sent", "bytes_recv") + _SPREAD,
    "regions": ("region", "ranks", "entries", "calls", "wall_sum", "wall_max", "mpi_sum",
                "mpi_max"),
    "matrix": ("from", "to", "bytes", "messages"),
    "histograms": ("function", "low", "high", "calls"),
}

_told_no_pandas = False


class ReportError(Exception):
    """A file that is not a readable mpiwatch JSON report; the message names it and why."""


def _spread(rt: dict | None) -> dict:
    rt = rt or {}
    return {"rank_time_min": rt.get("min"), "rank_time_min_rank": rt.get("min_rank"),
            "rank_time_mean": rt.get("mean"), "rank_time_max": rt.get("max"),
            "rank_time_max_rank": rt.get("max_rank"), "rank_time_cv": rt.get("cv")}


def _rows(doc: dict) -> dict[str, list[dict]]:
    """Every table of the report as a list of row dicts."""
    t: dict[str, list[dict]] = {k: [] for k in COLUMNS}
    for name, f in doc.get("functions", {}).items():
        row = {"function": name}
        row.update({k: f.get(k) for k in ("category", "calls", "time", "min", "max", "bytes_sent",
                                          "bytes_recv", "mpi_time")})
        row.update(_spread(f.get("rank_time")))
        t["functions"].append(row)
        for low, high, calls in f.get("sizes", []):
            t["histograms"].append({"function": name, "low": low, "high": high, "calls": calls})
    for r in doc.get("rank_times", []):
        t["ranks"].append({k: r.get(k) for k in COLUMNS["ranks"]})
    rf = doc.get("rank_functions") or {}
    names = rf.get("functions", [])
    for r in rf.get("ranks", []):
        for i, name in enumerate(names):
            t["rank_functions"].append({"rank": r["rank"], "function": name, "calls": r["calls"][i],
                                        "time": r["time"][i], "bytes_sent": r["bytes_sent"][i],
                                        "bytes_recv": r["bytes_recv"][i]})
    for s in (doc.get("callsites") or {}).get("sites", []):
        row = {k: s.get(k) for k in COLUMNS["callsites"] if not k.startswith("rank_time")}
        row.update(_spread(s.get("rank_time")))
        t["callsites"].append(row)
    for name, g in (doc.get("regions") or {}).items():
        t["regions"].append({"region": name, "ranks": g.get("ranks"), "entries": g.get("entries"),
                             "calls": g.get("calls"), "wall_sum": g.get("wall", {}).get("sum"),
                             "wall_max": g.get("wall", {}).get("max"),
                             "mpi_sum": g.get("mpi", {}).get("sum"),
                             "mpi_max": g.get("mpi", {}).get("max")})
    for p in doc.get("pairs", []):
        t["matrix"].append({k: p.get(k) for k in COLUMNS["matrix"]})
    return t


class Report:
    """A JSON report and its tables.

    Attributes:
        doc: the JSON document as Python objects, untouched.
        path: where it was read from (``None`` when made from a dict).
        header: the run's facts (:data:`HEADER_KEYS`: program, label, ranks,
            nodes, build-id, command, MPI, library, start time...), ``None``
            for what the report does not have.
        pandas: True when the tables are DataFrames, False when lists of dicts.
        functions, ranks, rank_functions, callsites, regions, matrix,
        histograms: the tables (:data:`COLUMNS` names their columns);
            ``rank_functions`` is long (one row per rank and function),
            ``matrix`` the bytes and messages between world ranks, and
            ``histograms`` the message-size ranges of each function.
    """

    def __init__(self, doc: dict, path: str | None = None, use_pandas: bool | None = None):
        got = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        if not isinstance(got, str) or not got.startswith(SCHEMA_FAMILY):
            raise ReportError(f"{path or 'the document'}: not an mpiwatch JSON report "
                              f"(its schema is {got!r})")
        self.doc = doc
        self.path = path
        self.header = {k: doc.get(k) for k in HEADER_KEYS}
        self.pandas = have_pandas() if use_pandas is None else (use_pandas and have_pandas())
        self._tables = None
        if use_pandas is not False:
            self._make_tables()   # a malformed table is found at load time

    def _make_tables(self) -> dict:
        if self._tables is None:
            try:
                rows = _rows(self.doc)
            except (AttributeError, KeyError, TypeError, IndexError, ValueError) as e:
                raise ReportError(f"{self.path or 'the document'}: a table of the report is "
                                  f"malformed ({type(e).__name__}: {e})") from None
            self._tables = {name: _pd.DataFrame(table, columns=list(COLUMNS[name])) if self.pandas
                            else table for name, table in rows.items()}
        return self._tables

    def __getattr__(self, name: str):
        # The tables, made on first use when the report was read for a comparison.
        if name in COLUMNS:
            return self._make_tables()[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def name(self) -> str:
        """How the run is named in a comparison: its label, else its file or program."""
        return self.header.get("label") or self.path or self.header.get("program") or "?"

    def __repr__(self) -> str:
        return (f"<mpiwatch.Report {self.name!r}: {self.header.get('program')}, "
                f"{self.header.get('ranks')} ranks, {len(self.doc.get('functions', {}))} functions>")


def load(path: str, use_pandas: bool | None = None) -> Report:
    """Read the JSON report at ``path`` (a file written by mpiwatch) into a :class:`Report`.

    Tables are pandas DataFrames when pandas is installed, else lists of
    dicts; without pandas a warning says so once. ``use_pandas=False``
    asks for lists even when pandas is there. Raises :class:`ReportError`
    (naming the file) for a file that cannot be read or is not a report.
    """
    global _told_no_pandas
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ReportError(f"{path}: {e}") from None
    if use_pandas is not False and not have_pandas() and not _told_no_pandas:
        _told_no_pandas = True
        warnings.warn("mpiwatch: pandas is not installed: the report's tables are lists of dicts "
                      "(Debian: apt-get install python3-pandas)", stacklevel=2)
    return Report(doc, path, use_pandas)


def as_report(x: Any) -> Report:
    """A Report from a Report, a path, or a report's dict."""
    if isinstance(x, Report):
        return x
    if isinstance(x, dict):
        return Report(x, use_pandas=False)
    return load(str(x), use_pandas=False)
