"""Which layer an MPI's Fortran bindings call: MPI_X or PMPI_X.

The MPI standard leaves it open whether a Fortran call such as MPI_SEND is
implemented on top of the C ``MPI_Send`` (then a C profiling layer sees it)
or of ``PMPI_Send`` (then it does not). The answer differs between MPIs and
even between the bindings of one MPI, so it is measured, never assumed from
the MPI's name: a small C interposer defining both ``MPI_X`` and ``PMPI_X``
(each forwarding to the MPI's ``PMPI_X`` found with ``dlsym(RTLD_NEXT)``) is
linked into a Fortran program that calls MPI_INIT, MPI_COMM_RANK, MPI_SEND
and MPI_FINALIZE; for each call the interposer records which of its two
definitions was entered first from outside. The program runs as a singleton
(no launcher).

The result is a *layering* string, one part per binding::

    mpif:Init=MPI_X,Comm_rank=MPI_X,Send=MPI_X,Finalize=MPI_X;f08:Init=PMPI_X,...

``mpif`` is the mpif.h / ``use mpi`` binding (entry points mpi_x_), ``f08``
the ``use mpi_f08`` one. A function is ``MPI_X``, ``PMPI_X`` or ``none``
(neither definition was entered: the binding calls the MPI's internals); a
binding is ``absent`` (the MPI has no such module) or ``unknown`` (the probe
could not be built or run). ``python3 -m mpiwatch_gen.layering --mpicc CC
--mpifc FC`` prints it; configure records it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Mapping

from .errors import GenError
from .sysio import run
from .probe import HeaderInfo, probe_header
from .programs import program, write_program
from .symbols import fortran_library_symbols, link_flags


class FortranBinding(StrEnum):
    """The MPI's Fortran bindings."""

    MPIF = "mpif"     # mpif.h and use mpi: entry points mpi_x_
    F08 = "f08"       # use mpi_f08: mpi_x_f08_, mpi_x_f08ts_


class Layer(StrEnum):
    """Which definition a Fortran binding's call entered first."""

    MPI_X = "MPI_X"
    PMPI_X = "PMPI_X"
    NONE = "none"


class BindingState(StrEnum):
    """A binding that could not be measured function by function."""

    ABSENT = "absent"     # the MPI has no such module
    UNKNOWN = "unknown"   # the probe could not be built or run


PROBED = ("Init", "Comm_rank", "Send", "Finalize")
BINDINGS = tuple(FortranBinding)
LAYERS = tuple(Layer)

# The probe programs, in templates/probes/.
_PROGRAMS = {"mpif": "layer.f", "f08": "layer08.f90"}
INTERPOSER = "interposer.c"


def _interposer(header: HeaderInfo) -> str:
    """C source defining MPI_X and PMPI_X for the probed functions.

    The prototypes are the header's own, so the file compiles against any
    mpi.h (const or not).
    """
    functions = []
    for index, short in enumerate(PROBED):
        fn = header.functions.get(f"MPI_{short}")
        if fn is None:
            raise GenError(f"the header declares no PMPI_{short}", header.header)
        names = [f"a{i}" for i in range(len(fn.params))]
        functions.append({
            "index": index, "short": short, "return_type": fn.return_type,
            "params": ", ".join(p.declaration(n) for p, n in zip(fn.params, names)) or "void",
            "args": ", ".join(names),
            "types": ", ".join(p.type_text() for p in fn.params) or "void"})
    return program(INTERPOSER, functions=functions)


def _run(cmd: list[str], cwd: str, env: dict[str, str] | None = None,
         timeout: int = 120) -> tuple[int, str]:
    done = run(cmd, cwd=cwd, env=env, timeout=timeout)
    return done.returncode, (done.stderr or done.stdout).strip()


def probe_binding(mpicc: str, mpifc: str, binding: str, header: HeaderInfo,
                  tmp: str) -> tuple[str, str]:
    """Probe one binding; returns (result, note).

    result is ``Init=MPI_X,Comm_rank=...``, ``absent`` or ``unknown``.
    """
    with open(os.path.join(tmp, INTERPOSER), "w", encoding="utf-8") as out:
        out.write(_interposer(header))
    src = write_program(tmp, _PROGRAMS[binding])
    obj = os.path.join(tmp, "interposer.o")
    if not os.path.exists(obj):
        status, err = _run(shlex.split(mpicc) + ["-c", "interposer.c", "-o", obj], tmp)
        if status != 0:
            return "unknown", f"cannot compile the interposer: {err.splitlines()[-1:]}"
    exe = os.path.join(tmp, f"layer-{binding}")
    status, err = _run(shlex.split(mpifc) + [src, obj, "-o", exe, "-rdynamic", "-ldl"], tmp)
    if status != 0:
        if binding == "f08":
            return "absent", "no use mpi_f08 program links"
        return "unknown", f"cannot link the probe: {(err.splitlines() or ['?'])[-1]}"
    out_file = os.path.join(tmp, f"layer-{binding}.out")
    env = dict(os.environ, MW_LAYER_OUT=out_file, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.pop("LD_PRELOAD", None)
    status, err = _run([exe], tmp, env)
    if status != 0 or not os.path.exists(out_file):
        return "unknown", f"the probe did not run as a singleton (status {status})"
    seen = {}
    with open(out_file, encoding="utf-8") as result:
        for line in result:
            key, _, value = line.strip().partition("=")
            if key in PROBED and value in LAYERS:
                seen[key] = value
    if len(seen) != len(PROBED):
        return "unknown", "the probe's output is incomplete"
    return ",".join(f"{short}={seen[short]}" for short in PROBED), ""


def probe_layering(mpicc: str, mpifc: str,
                   header: HeaderInfo | None = None) -> tuple[str, list[str]]:
    """The layering string of this MPI, and notes on what could not be probed."""
    header = header or probe_header(mpicc)
    parts, notes = [], []
    with tempfile.TemporaryDirectory(prefix="mpiwatch-layer-") as tmp:
        for binding in BINDINGS:
            result, note = probe_binding(mpicc, mpifc, binding, header, tmp)
            parts.append(f"{binding}:{result}")
            if note:
                notes.append(f"{binding}: {note}")
    return ";".join(parts), notes


@dataclass(frozen=True)
class Layering:
    """A parsed layering: per binding, each probed function's layer, or a state."""

    text: str
    calls: Mapping[FortranBinding, Mapping[str, Layer] | BindingState]

    @classmethod
    def parse(cls, text: str) -> Layering:
        parsed = parse_layering(text)
        return cls(text, MappingProxyType({
            b: v if isinstance(v, str) else MappingProxyType(v) for b, v in parsed.items()}))

    def summary(self, binding: FortranBinding) -> str:
        return summary(self.calls[binding])   # type: ignore[arg-type]


def parse_layering(text: str) -> dict[str, dict[str, str] | str]:
    """``mpif:Init=MPI_X,...;f08:absent`` as {binding: {function: layer} or state}.

    Raises GenError on malformed text.
    """
    result: dict[str, dict[str, str] | str] = {}
    for part in filter(None, text.strip().split(";")):
        binding, sep, body = part.partition(":")
        if not sep or binding not in BINDINGS or binding in result:
            raise GenError(f"bad Fortran layering '{text}': '{part}'")
        if body in tuple(BindingState):
            result[FortranBinding(binding)] = BindingState(body)
            continue
        calls: dict[str, str] = {}
        for item in body.split(","):
            short, eq, layer = item.partition("=")
            if not eq or short not in PROBED or layer not in LAYERS:
                raise GenError(f"bad Fortran layering '{text}': '{item}'")
            calls[short] = Layer(layer)
        result[FortranBinding(binding)] = calls
    for binding in BINDINGS:
        result.setdefault(binding, BindingState.UNKNOWN)
    return result


def summary(calls: dict[str, str] | str) -> str:
    """One word for a binding: MPI_X, PMPI_X, none, mixed, absent or unknown."""
    if isinstance(calls, str):
        return calls
    layers = set(calls.values())
    return layers.pop() if len(layers) == 1 else "mixed"


def describe(text: str) -> str:
    """A human description, e.g. 'mpif.h/use mpi: MPI_X; use mpi_f08: mixed (...)'."""
    names = {"mpif": "mpif.h/use mpi", "f08": "use mpi_f08"}
    parts = []
    for binding, calls in parse_layering(text).items():
        word = summary(calls)
        if word == "mixed" and isinstance(calls, dict):
            groups: dict[str, list[str]] = {}
            for short, layer in calls.items():
                groups.setdefault(layer, []).append(f"MPI_{short}")
            word += " (" + "; ".join(f"{layer}: {', '.join(fns)}"
                                     for layer, fns in sorted(groups.items())) + ")"
        parts.append(f"{names[binding]} calls {word}")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    """Command line used by configure: print the layering, the libraries, the modules."""
    parser = argparse.ArgumentParser(prog="python3 -m mpiwatch_gen.layering",
                                     description="Probe which layer the MPI's Fortran "
                                                 "bindings call (MPI_X or PMPI_X).")
    parser.add_argument("--mpicc", required=True)
    parser.add_argument("--mpifc", required=True)
    parser.add_argument("--print", choices=("layering", "describe", "link-flags", "modules"),
                        default="layering")
    parser.add_argument("--layering", help="with --print describe: the text to describe")
    args = parser.parse_args(argv)
    try:
        if args.print == "describe":
            print(describe(args.layering or probe_layering(args.mpicc, args.mpifc)[0]))
        elif args.print == "layering":
            text, notes = probe_layering(args.mpicc, args.mpifc)
            for note in notes:
                print(f"mpiwatch-layering: {note}", file=sys.stderr)
            print(text)
        elif args.print == "link-flags":
            _symbols, owner = fortran_library_symbols(args.mpifc)
            libs = sorted(set(owner.values()))
            print(" ".join(link_flags(libs)))
        else:
            from .fmodule import module_path
            paths = [module_path(args.mpifc, m) for m in ("mpi", "mpi_f08")]
            print(" ".join(os.path.normpath(p) for p in paths if p))
    except GenError as err:
        print(f"mpiwatch-layering: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
