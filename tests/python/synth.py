"""Synthetic reports for the unit tests: tests/client/synth-report.py's, by rank count."""
import copy
import importlib.util
import os

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "synth_report", os.path.join(_here, "..", "client", "synth-report.py"))
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
_cache = {}


def report(n: int) -> dict:
    """A fresh copy of the synthetic report of n ranks."""
    if n not in _cache:
        _cache[n] = _mod.report(n)
    return copy.deepcopy(_cache[n])
