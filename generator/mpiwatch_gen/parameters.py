"""A wrapper's parameter: what the stages that derive a call's parts read.

Its own module, below the model, so that the modules deriving a wrapper's
parts (moves.py, inflight.py) and the model that holds their results import
it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from .spec import SpecParam


@dataclass(frozen=True)
class WrapperParam:
    """A wrapper parameter: its declaration from the header, its role from the spec."""

    name: str
    declaration: str
    spec: SpecParam | None
