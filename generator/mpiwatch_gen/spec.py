"""Load and validate the spec: the MPI functions with their parameter roles.

The spec file (spec/mpi-4.1.json, schema ``mpiwatch-spec/1``, see
docs/spec.md) is derived from the MPI Forum's apis.json by
``python3 -m mpiwatch_gen.derive_spec`` and may be edited by hand, so
load_spec() checks everything the later stages rely on and reports a
problem as a GenError naming the file, the function and the parameter.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

from .errors import GenError
from .roles import CATEGORIES, ROLES, SIDES

SCHEMA = "mpiwatch-spec/1"
BINDINGS: frozenset[str] = frozenset({"c", "f08", "f90"})
DIRECTIONS: frozenset[str] = frozenset({"in", "out", "inout"})

_FUNCTION_KEYS = ("category", "large_count", "return", "deprecated",
                  "bindings", "params")
_PARAM_KEYS = ("name", "kind", "role", "side", "direction", "length",
               "const", "large_only", "root_only", "optional", "bindings")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MPI_CONSTANT = re.compile(r"MPI_[A-Z0-9_]+\Z")


@dataclass(frozen=True)
class SpecParam:
    """One parameter of an MPI function, in apis.json order."""

    name: str
    kind: str
    role: str
    side: str | None
    direction: str
    length: str | None
    const: bool
    large_only: bool
    root_only: bool
    optional: bool
    bindings: frozenset[str]


@dataclass(frozen=True)
class SpecFunction:
    """One MPI procedure of the standard, with all its parameters."""

    name: str
    category: str
    large_count: bool
    return_role: str
    deprecated: bool
    bindings: frozenset[str]
    params: tuple[SpecParam, ...]

    def c_params(self, large: bool = False) -> tuple[SpecParam, ...]:
        """Parameters of the C binding, in order.

        Those whose bindings include 'c', and the large_only ones only when
        large is True (the large-count ``_c`` variant).
        """
        return tuple(p for p in self.params
                     if "c" in p.bindings and (large or not p.large_only))


@dataclass(frozen=True)
class Spec:
    """A loaded spec file: its path, attribution and functions by C name."""

    path: str
    source: str
    functions: Mapping[str, SpecFunction] = field(hash=False)

    def lookup(self, c_name: str) -> tuple[SpecFunction | None, bool]:
        """Find the spec entry for a C function name.

        Returns ``(entry, large)``: 'MPI_Send' gives (MPI_Send entry,
        False); 'MPI_Send_c' gives (MPI_Send entry, True) when MPI_Send has
        large_count.  An exact name always wins, so a function whose own
        name ends in ``_c`` is never mistaken for a large-count variant, and
        the ``*_f2c``/``*_c2f`` conversions are found under their own names.
        Anything else (MPIX_*, unknown names, ``_c`` of a function without
        large_count) gives (None, False).
        """
        entry = self.functions.get(c_name)
        if entry is not None:
            return entry, False
        if c_name.endswith("_c"):
            entry = self.functions.get(c_name[:-2])
            if entry is not None and entry.large_count:
                return entry, True
        return None, False


class _JsonObject(dict):  # type: ignore[type-arg]
    """A decoded JSON object that remembers the keys it saw more than once."""

    duplicates: tuple[str, ...] = ()

    @classmethod
    def from_pairs(cls, pairs: list[tuple[str, Any]]) -> "_JsonObject":
        """Build the object from json's key/value pairs (object_pairs_hook)."""
        obj = cls()
        seen: list[str] = []
        for key, value in pairs:
            if key in obj and key not in seen:
                seen.append(key)
            obj[key] = value
        obj.duplicates = tuple(seen)
        return obj


def decode_json(text: str, path: str) -> Any:
    """Decode JSON text, reporting errors as GenError at ``path:line:col``.

    Objects come back as dicts that remember duplicate keys (see
    check_duplicates()), since json otherwise keeps the last one silently.
    """
    try:
        return json.loads(text, object_pairs_hook=_JsonObject.from_pairs)
    except json.JSONDecodeError as err:
        raise GenError(f"invalid JSON: {err.msg}",
                       where=f"{path}:{err.lineno}:{err.colno}") from None
    except RecursionError:
        raise GenError("invalid JSON: nested too deeply", where=path) from None


def check_duplicates(obj: Mapping[str, Any], what: str, where: str) -> None:
    """Raise GenError if the decoded object ``obj`` had a repeated key."""
    duplicates = getattr(obj, "duplicates", ())
    if duplicates:
        raise GenError(f"duplicate {what} '{duplicates[0]}'", where=where)


def read_text(path: str, what: str) -> str:
    """Read a UTF-8 text file, reporting failures as GenError."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError as err:
        raise GenError(f"cannot read {what}: {err.strerror or err}",
                       where=path) from None
    except UnicodeDecodeError as err:
        raise GenError(f"cannot read {what}: not UTF-8 ({err.reason})",
                       where=path) from None


def load_spec(path: str) -> Spec:
    """Read and validate a spec file; raise GenError naming what is wrong.

    The error's location names the file, the function and the parameter,
    e.g. ``spec/mpi-4.1.json: MPI_Send: parameter 'count'``; JSON syntax
    errors are located as ``file:line:column``.
    """
    return parse_spec(read_text(path, "spec"), path)


def parse_spec(text: str, path: str) -> Spec:
    """Validate the JSON text of a spec file read from ``path``."""
    doc = decode_json(text, path)
    if not isinstance(doc, dict):
        raise GenError("the spec must be a JSON object", where=path)
    check_duplicates(doc, "key", path)
    schema = doc.get("schema")
    if schema != SCHEMA:
        raise GenError(f"unknown schema {_show(schema)}, expected "
                       f"\"{SCHEMA}\"",
                       where=path)
    source = _typed(_required(doc, "source", path), str, "'source'", path)
    functions = _typed(_required(doc, "functions", path), dict,
                       "'functions'", path)
    check_duplicates(functions, "function entry", path)
    parsed = {name: _function(name, entry, path)
              for name, entry in functions.items()}
    return Spec(path=path, source=source,
                functions=MappingProxyType(parsed))


def _required(obj: Mapping[str, Any], key: str, where: str) -> Any:
    """Return obj[key], or raise GenError if the key is missing."""
    if key not in obj:
        raise GenError(f"missing required key '{key}'", where=where)
    return obj[key]


def _show(value: Any) -> str:
    """A short JSON rendering of ``value`` for error messages."""
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


def _typed(value: Any, kind: type, key: str, where: str) -> Any:
    """Return ``value`` if it is of JSON type ``kind``, else raise GenError."""
    names = {str: "a string", bool: "true or false", dict: "an object",
             list: "an array"}
    if not isinstance(value, kind):
        raise GenError(f"{key} must be {names[kind]}, not {_show(value)}",
                       where=where)
    return value


def _choice(value: Any, known: frozenset[str], key: str, what: str,
            where: str) -> str:
    """Return ``value`` if it is one of ``known``, else raise GenError."""
    if not isinstance(value, str) or value not in known:
        raise GenError(f"unknown {what} {_show(value)} in '{key}' "
                       f"(known: {', '.join(sorted(known))})",
                       where=where)
    return value


def _bindings(value: Any, where: str) -> frozenset[str]:
    """Validate a list of binding names ("c", "f08", "f90")."""
    _typed(value, list, "'bindings'", where)
    for item in value:
        _choice(item, BINDINGS, "bindings", "binding", where)
    return frozenset(value)


def _function(name: str, entry: Any, path: str) -> SpecFunction:
    """Validate one function entry of the spec."""
    if not _IDENTIFIER.match(name):
        raise GenError(f"function name {name!r} is not a C identifier",
                       where=path)
    where = f"{path}: {name}"
    _typed(entry, dict, "a function entry", where)
    check_duplicates(entry, "key", where)
    for key in _FUNCTION_KEYS:
        _required(entry, key, where)
    params_data = _typed(entry["params"], list, "'params'", where)
    params = tuple(_param(index, data, where)
                   for index, data in enumerate(params_data))
    large_count = _typed(entry["large_count"], bool, "'large_count'",
                         where)
    _check_params(params, large_count, where)
    return SpecFunction(
        name=name,
        category=_choice(entry["category"], frozenset(CATEGORIES),
                         "category", "category", where),
        large_count=large_count,
        return_role=_choice(entry["return"], ROLES, "return", "role", where),
        deprecated=_typed(entry["deprecated"], bool, "'deprecated'", where),
        bindings=_bindings(entry["bindings"], where),
        params=params,
    )


def _param(index: int, data: Any, fwhere: str) -> SpecParam:
    """Validate one parameter (syntax only; cross-checks come later)."""
    where = f"{fwhere}: parameter #{index + 1}"
    _typed(data, dict, "a parameter", where)
    name = data.get("name")
    if isinstance(name, str) and _IDENTIFIER.match(name):
        where = f"{fwhere}: parameter '{name}'"
    check_duplicates(data, "key", where)
    for key in _PARAM_KEYS:
        _required(data, key, where)
    if not isinstance(name, str) or not _IDENTIFIER.match(name):
        raise GenError(f"parameter name {_show(name)} is not a C identifier",
                       where=where)
    side = data["side"]
    length = data["length"]
    return SpecParam(
        name=name,
        kind=_typed(data["kind"], str, "'kind'", where),
        role=_choice(data["role"], ROLES, "role", "role", where),
        side=None if side is None else _choice(side, SIDES, "side", "side",
                                               where),
        direction=_choice(data["direction"], DIRECTIONS, "direction",
                          "direction", where),
        length=None if length is None else _typed(length, str, "'length'",
                                                  where),
        const=_typed(data["const"], bool, "'const'", where),
        large_only=_typed(data["large_only"], bool, "'large_only'", where),
        root_only=_typed(data["root_only"], bool, "'root_only'", where),
        optional=_typed(data["optional"], bool, "'optional'", where),
        bindings=_bindings(data["bindings"], where),
    )


def _check_params(params: tuple[SpecParam, ...], large_count: bool,
                  fwhere: str) -> None:
    """Cross-check parameters: unique names, valid lengths, large_only."""
    names: set[str] = set()
    for param in params:
        if param.name in names:
            raise GenError("duplicate parameter name",
                           where=f"{fwhere}: parameter '{param.name}'")
        names.add(param.name)
    for param in params:
        where = f"{fwhere}: parameter '{param.name}'"
        if not _valid_length(param.length, names):
            raise GenError(
                f"length {_show(param.length)} names no parameter of this "
                "function (expected null, \"*\", a parameter name or an "
                "MPI_ constant)", where=where)
        if param.large_only and not large_count:
            raise GenError("large_only parameter in a function without "
                           "large_count", where=where)


def _valid_length(length: str | None, names: set[str]) -> bool:
    """True if ``length`` is null, "*", a parameter or an MPI_ constant."""
    return (length is None or length == "*" or length in names
            or bool(_MPI_CONSTANT.match(length)))
