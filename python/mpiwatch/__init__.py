"""mpiwatch's reports in Python: load one, compare two, export to Hatchet.

    >>> import mpiwatch
    >>> r = mpiwatch.load("mpiwatch-ring-4r-20261126-231328-29132.json")
    >>> r.functions            # a pandas DataFrame (a list of dicts without pandas)
    >>> d = mpiwatch.diff("before.json", "after.json")
    >>> print(d.text())        # what `mpiwatch --diff before.json after.json` prints

Standard library only; pandas is used when it can be imported
(``mpiwatch.HAVE_PANDAS``, looked up on first use: importing pandas takes
seconds, which ``mpiwatch --diff`` does not spend). docs/python.md is the guide. The command
``mpiwatch --diff`` and ``mpiwatch --report R.json --hatchet OUT.json`` run
this same package (:mod:`mpiwatch.cli`).
"""
from .report import Report, ReportError, have_pandas, load
from .compare import Diff, diff
from .gate import Threshold, GateError, parse_threshold
from .hatchet import to_literal

__all__ = ["HAVE_PANDAS", "have_pandas", "Report", "ReportError", "load", "Diff", "diff", "Threshold",
           "GateError", "parse_threshold", "to_literal"]


def __getattr__(name: str):
    if name == "HAVE_PANDAS":   # True when load() gives DataFrames
        return have_pandas()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
