"""mpiwatch's reports in Python: load one, compare two, export to Hatchet.

    >>> import mpiwatch
    >>> r = mpiwatch.load("mpiwatch-ring-4r-20261126-231328-29132.json")
    >>> r.functions            # a pandas DataFrame (a list of dicts without pandas)
    >>> d = mpiwatch.diff("before.json", "after.json")
    >>> print(d.text())        # what `mpiwatch --diff before.json after.json` prints

Standard library only; pandas is used when it can be imported
(:data:`HAVE_PANDAS`). docs/python.md is the guide. The command
``mpiwatch --diff`` and ``mpiwatch --report R.json --hatchet OUT.json`` run
this same package (:mod:`mpiwatch.cli`).
"""
from .report import HAVE_PANDAS, Report, ReportError, load
from .compare import Diff, diff
from .gate import Threshold, GateError, parse_threshold
from .hatchet import to_literal

__all__ = ["HAVE_PANDAS", "Report", "ReportError", "load", "Diff", "diff", "Threshold",
           "GateError", "parse_threshold", "to_literal"]
