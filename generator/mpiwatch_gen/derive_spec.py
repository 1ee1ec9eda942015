"""Derive the project's spec file from the MPI Forum's apis.json.

Usage (from the top of the source tree)::

    PYTHONPATH=generator python3 -m mpiwatch_gen.derive_spec \\
        ../shared/mpi-standard/apis.json -o spec/mpi-4.1.json

Keeps the procedures (not the callback prototypes or predefined callback
functions), gives every parameter a role (roles.param_role) and, for the
transfer parameters, a side, and writes deterministic JSON in the
``mpiwatch-spec/1`` schema described in docs/spec.md.  The result is
validated with the same checks as spec.load_spec() before it is written.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from .errors import GenError
from .roles import categorize, param_role, return_role
from .sysio import write_if_changed
from .spec import (SCHEMA, check_duplicates, decode_json, parse_spec,
                   read_text)

PROG = "mpiwatch-derive-spec"
DEFAULT_SOURCE = (
    "derived from the MPI Forum's apis.json, MPI 4.1, distributed with "
    "pympistandard (repository mpi-forum/pympistandard, file "
    "src/pympistandard/data/apis.json, commit bfd10e9, February 2024; "
    "MIT license)")
BINDING_ORDER = ("c", "f08", "f90")

_MPI_CONSTANT = re.compile(r"MPI_[A-Z0-9_]+\Z")
_SIDE_PREFIXES = (("target_", "target"), ("origin_", "origin"),
                  ("result_", "result"), ("compare_", "compare"),
                  ("send", "send"), ("recv", "recv"))
_SHORT_SIDES = (
    (re.compile(r"s(?:counts?|types?|displs?)\Z"), "send"),
    (re.compile(r"r(?:counts?|types?|displs?)\Z"), "recv"),
)
_PEER_SIDES = MappingProxyType(
    {"dest": "send", "source": "recv", "target_rank": "target"})
_DIRECTION_SIDES = MappingProxyType(
    {"in": "send", "out": "recv", "inout": "send"})
_TRANSFER_ROLES = frozenset({"count", "datatype", "displacement"})


def is_procedure(entry: Mapping[str, Any]) -> bool:
    """False for apis.json callbacks and predefined functions."""
    attributes = entry.get("attributes")
    if not isinstance(attributes, dict):
        return True
    return not (attributes.get("callback")
                or attributes.get("predefined_function"))


def name_side(name: str) -> str | None:
    """The side a parameter's name announces (sendcount, origin_addr...)."""
    for prefix, side in _SIDE_PREFIXES:
        if name.startswith(prefix):
            return side
    for pattern, side in _SHORT_SIDES:
        if pattern.match(name):
            return side
    return None


def param_side(role: str, name: str, direction: str,
               buffer_side: str | None) -> str | None:
    """The side of one parameter.

    A buffer's side comes from its name (origin_addr, result_addr,
    compare_addr, sendbuf, recvbuf) or else its direction (in and inout:
    send, out: recv).  A count, datatype or displacement takes the side its
    name announces (target_*, origin_*, result_*, send*/s*, recv*/r*), or
    else ``buffer_side``, the side of the nearest preceding buffer.  A peer
    is send (dest), recv (source) or target (target_rank).  Anything else
    has no side.
    """
    if role == "buffer":
        return name_side(name) or _DIRECTION_SIDES.get(direction)
    if role in _TRANSFER_ROLES:
        return name_side(name) or buffer_side
    if role == "peer":
        return _PEER_SIDES.get(name)
    return None


def param_bindings(suppress: str,
                   function_bindings: Sequence[str]) -> list[str]:
    """Bindings that have the parameter: the function's minus suppressed."""
    tokens = suppress.split()
    return [b for b in function_bindings if f"{b}_parameter" not in tokens]


def normalize_length(length: Any, names: Sequence[str],
                     where: str) -> str | None:
    """Normalize a ``length`` to null, "*", a parameter or an MPI_ constant.

    An empty string (array_of_errcodes of MPI_Comm_spawn and
    MPI_Comm_spawn_multiple: its length is maxprocs, or the sum of
    array_of_maxprocs) becomes "*"; a two-dimensional length such as
    ``["n", "3"]`` (ranges of MPI_Group_range_incl/excl) becomes its outer
    dimension ``"n"``.
    """
    if isinstance(length, list) and length and isinstance(length[0], str):
        length = length[0]
    if length is None or length == "*" or length in names:
        return length
    if length == "":
        return "*"
    if isinstance(length, str) and _MPI_CONSTANT.match(length):
        return length
    raise GenError(f"cannot interpret length {length!r}", where=where)


def _field(obj: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    """obj[key] checked against a JSON type; GenError if missing or wrong."""
    if key not in obj:
        raise GenError(f"missing key '{key}'", where=where)
    value = obj[key]
    if not isinstance(value, kind):
        raise GenError(f"'{key}' has unexpected value {value!r}", where=where)
    return value


def derive_param(data: Any, buffer_side: str | None,
                 function_bindings: Sequence[str], names: Sequence[str],
                 where: str) -> dict[str, Any]:
    """Turn one apis.json parameter into a spec parameter.

    ``where`` locates the function (``file: MPI_Name``) for error messages.
    """
    if not isinstance(data, dict):
        raise GenError("parameter is not an object", where=where)
    name = _field(data, "name", str, where)
    where = f"{where}: parameter '{name}'"
    check_duplicates(data, "key", where)
    kind = _field(data, "kind", str, where)
    direction = _field(data, "param_direction", str, where)
    role = param_role(kind, name, direction)
    return {
        "name": name,
        "kind": kind,
        "role": role,
        "side": param_side(role, name, direction, buffer_side),
        "direction": direction,
        "length": normalize_length(data.get("length"), names, where),
        "const": bool(data.get("constant")),
        "large_only": bool(data.get("large_only")),
        "root_only": bool(data.get("root_only")),
        "optional": bool(data.get("optional")),
        "bindings": param_bindings(str(data.get("suppress") or ""),
                                   function_bindings),
    }


def derive_params(raw: list[Any], function_bindings: Sequence[str],
                  where: str) -> list[dict[str, Any]]:
    """Derive all parameters of a function, carrying the last buffer's side."""
    names = [p.get("name") for p in raw if isinstance(p, dict)]
    params = []
    buffer_side = None
    for data in raw:
        param = derive_param(data, buffer_side, function_bindings, names,
                             where)
        if param["role"] == "buffer":
            buffer_side = param["side"]
        params.append(param)
    return params


def derive_function(entry: Any, path: str,
                    key: str) -> tuple[str, dict[str, Any]]:
    """Turn the apis.json procedure ``key`` into ``(C name, spec entry)``."""
    where = f"{path}: {key}"
    if not isinstance(entry, dict):
        raise GenError("entry is not an object", where=where)
    name = _field(entry, "name", str, where)
    where = f"{path}: {name}"
    check_duplicates(entry, "key", where)
    attributes = _field(entry, "attributes", dict, where)
    raw = _field(entry, "parameters", list, where)
    bindings = [b for b in BINDING_ORDER if attributes.get(f"{b}_expressible")]
    params = derive_params(raw, bindings, where)
    return name, {
        "category": categorize(name),
        "large_count": any(p["kind"].startswith("POLY") for p in params),
        "return": return_role(str(entry.get("return_kind") or "NOTHING")),
        "deprecated": bool(attributes.get("deprecated")),
        "bindings": bindings,
        "params": params,
    }


def derive_spec(apis: Any, path: str, source: str,
                generated_by: str) -> dict[str, Any]:
    """Build the spec document from decoded apis.json (read from ``path``)."""
    if not isinstance(apis, dict):
        raise GenError("apis.json must be a JSON object", where=path)
    check_duplicates(apis, "entry", path)
    functions: dict[str, Any] = {}
    for key, entry in apis.items():
        if isinstance(entry, dict) and not is_procedure(entry):
            continue
        name, spec_entry = derive_function(entry, path, key)
        if name in functions:
            raise GenError("procedure listed twice", where=f"{path}: {name}")
        functions[name] = spec_entry
    return {"schema": SCHEMA, "source": source,
            "generated_by": generated_by, "functions": functions}


def _block(items: list[str], indent: int, brackets: str) -> str:
    """Join rendered items one per line inside ``brackets`` ("{}" or "[]")."""
    if not items:
        return brackets
    pad = " " * indent
    inner = ",\n".join(f"{pad} {item}" for item in items)
    return f"{brackets[0]}\n{inner}\n{pad}{brackets[1]}"


def _render_function(entry: Mapping[str, Any]) -> str:
    """One function entry: a key per line, a parameter per line."""
    items = []
    for key in sorted(entry):
        if key == "params":
            params = [json.dumps(p, sort_keys=True) for p in entry[key]]
            body = _block(params, 3, "[]")
        else:
            body = json.dumps(entry[key], sort_keys=True)
        items.append(f"{json.dumps(key)}: {body}")
    return _block(items, 2, "{}")


def render(spec: Mapping[str, Any]) -> str:
    """Serialize the spec deterministically, readable and diff-friendly.

    Keys are sorted at every level; each function key and each parameter
    (as one compact JSON object) sits on its own line; the text ends with
    a newline.
    """
    items = []
    for key in sorted(spec):
        if key == "functions":
            functions = spec[key]
            body = _block([f"{json.dumps(name)}: "
                           f"{_render_function(functions[name])}"
                           for name in sorted(functions)], 1, "{}")
        else:
            body = json.dumps(spec[key], sort_keys=True)
        items.append(f"{json.dumps(key)}: {body}")
    return _block(items, 0, "{}") + "\n"


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser of ``python3 -m mpiwatch_gen.derive_spec``."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Derive mpiwatch's spec (MPI functions with parameter "
                    "roles, schema " + SCHEMA + ") from the MPI Forum's "
                    "apis.json. Run as: python3 -m mpiwatch_gen.derive_spec.")
    parser.add_argument("apis_json", metavar="APIS_JSON",
                        help="the MPI Forum's apis.json (from pympistandard)")
    parser.add_argument("-o", "--output", metavar="OUT", required=True,
                        help="spec file to write (e.g. spec/mpi-4.1.json); "
                             "left untouched if unchanged")
    parser.add_argument("--source", default=DEFAULT_SOURCE,
                        help="attribution recorded in the spec's 'source' "
                             "(default: the MPI 4.1 apis.json of "
                             "pympistandard commit bfd10e9)")
    return parser


def run(apis_path: str, output: str, source: str, generated_by: str) -> None:
    """Read apis.json, derive and validate the spec, write it to ``output``."""
    apis = decode_json(read_text(apis_path, "apis.json"), apis_path)
    text = render(derive_spec(apis, apis_path, source, generated_by))
    parse_spec(text, output)
    try:
        write_if_changed(output, text)
    except OSError as err:
        raise GenError(f"cannot write spec: {err.strerror or err}",
                       where=output) from None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (0 ok, 2 on bad input)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(args_list)
    generated_by = " ".join(["python3 -m mpiwatch_gen.derive_spec",
                             *map(shlex.quote, args_list)])
    try:
        run(args.apis_json, args.output, args.source, generated_by)
    except (GenError, OSError) as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
