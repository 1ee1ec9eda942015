"""The one exception type the generator raises for bad input.

Every stage reports problems with the user's input (header, spec, template,
hook, command line) as a GenError carrying where it happened; the command
line prints it as a single line and exits non-zero, never a traceback.
"""

from __future__ import annotations


class GenError(Exception):
    """A problem with the generator's input, located as precisely as known.

    ``where`` is a location prefix such as ``"mpi.h:123"`` or
    ``"spec/mpi-4.1.json: MPI_Send: parameter 'count'"``.
    """

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message
