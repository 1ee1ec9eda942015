"""The mpiwatch-gen command: probe, reconcile and render in one go."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time

from . import __version__
from .errors import GenError
from .fortran import add_fortran_arguments, fortran_output_files, fortran_result, fortran_wanted
from .hooks import HookFile, apply_hooks
from .probe import HeaderInfo, probe_header
from .reconcile import Reconciled, reconcile
from .render import (BUILTIN_TEMPLATES, Provenance, make_environment, output_files,
                     render_template, restore_lines, write_outputs)
from .spec import load_spec
from .symbols import mpi_library_symbols, symbols_from_file

PROG = "mpiwatch-gen"
# The guides: installed under share/doc/mpiwatch (the installed mpiwatch-gen
# says where), else the source tree's docs/.
DOCDIR = os.environ.get("MPIWATCH_DOCDIR") or "docs"
DEFAULT_SPEC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                            "..", "spec", "mpi-4.1.json"))


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Generate an MPI profiling layer (C wrappers calling PMPI_) for the\n"
                    "installed MPI, from its mpi.h and the MPI standard's function list.",
        epilog="Example: mpiwatch-gen --mpicc mpicc.mpich --out generated --coverage\n"
               f"Manual: man mpiwatch-gen; guides in {DOCDIR}/.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mpicc", default=os.environ.get("MPICC", "mpicc"),
                        help="the MPI's C compiler wrapper, used to preprocess mpi.h and to "
                             "find the MPI's libraries (default: $MPICC or mpicc)")
    parser.add_argument("--header", metavar="FILE",
                        help="parse this header instead of the <mpi.h> the compiler finds")
    parser.add_argument("--cflags", default="", metavar="FLAGS",
                        help="extra preprocessor flags; write them with '=', e.g. "
                             "--cflags='-I/opt/mpi/include -DFOO'")
    parser.add_argument("--spec", default=DEFAULT_SPEC, metavar="FILE",
                        help="the standard's function list with parameter roles "
                             "(default: the shipped spec/mpi-4.1.json)")
    parser.add_argument("--templates", action="append", default=[], metavar="DIR",
                        help="a folder of templates that override the shipped ones "
                             "(may be repeated; searched first)")
    parser.add_argument("--hooks", action="append", default=[], metavar="FILE",
                        help="a hook file of before_/after_ macros (may be repeated); see "
                             f"{DOCDIR}/hooks.md")
    symbols = parser.add_mutually_exclusive_group()
    symbols.add_argument("--symbols-file", metavar="FILE",
                         help="take the MPI library's symbol names from FILE (one per line) "
                              "instead of reading the libraries")
    symbols.add_argument("--no-symbol-check", action="store_true",
                         help="wrap every declared function without checking the libraries")
    parser.add_argument("--out", metavar="DIR",
                        help="write the generated sources into DIR")
    parser.add_argument("--coverage", action="store_true",
                        help="print every function as wrapped, macro, absent or missing")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    add_fortran_arguments(parser)
    return parser


def _symbols(args: argparse.Namespace) -> set[str] | None:
    if args.no_symbol_check:
        return None
    if args.symbols_file:
        return symbols_from_file(args.symbols_file)
    return mpi_library_symbols(args.mpicc, shlex.split(args.cflags))[0]


def _command_line(args: argparse.Namespace) -> str:
    """How to regenerate, as written in the head of each generated file."""
    parts = [PROG, "--mpicc", args.mpicc]
    if args.header:
        parts += ["--header", args.header]
    if args.cflags:
        parts.append(f"--cflags={args.cflags}")
    if os.path.normpath(args.spec) != DEFAULT_SPEC:
        parts += ["--spec", args.spec]
    for folder in args.templates:
        parts += ["--templates", folder]
    for hook in args.hooks:
        parts += ["--hooks", hook]
    if args.symbols_file:
        parts += ["--symbols-file", args.symbols_file]
    elif args.no_symbol_check:
        parts.append("--no-symbol-check")
    if args.mpifc:
        parts += ["--mpifc", args.mpifc]
    parts += ["--out", args.out or "DIR"]
    return " ".join(shlex.quote(p) for p in parts)


def _print_coverage(result: Reconciled, header: HeaderInfo) -> None:
    print(f"# {header.version}: {result.count('wrapped')} wrapped, {result.count('macro')} "
          f"macro, {result.count('absent')} absent, {result.count('missing')} missing")
    for entry in result.coverage:
        print(f"{entry.name:<36} {entry.status:<8} {entry.detail}")


def run(args: argparse.Namespace) -> int:
    """Run the stages the arguments ask for."""
    if not args.out and not args.coverage:
        raise GenError("nothing to do: give --out DIR and/or --coverage")
    started = time.monotonic()
    spec = load_spec(args.spec)
    header = probe_header(args.mpicc, args.header, shlex.split(args.cflags))
    result = reconcile(header, spec, _symbols(args))
    names = set(header.functions) | set(spec.functions)
    hook_files = [HookFile(path, names) for path in args.hooks]
    hook_code = apply_hooks(hook_files, result.wrappers)
    if args.coverage:
        _print_coverage(result, header)
    if args.out:
        provenance = Provenance(header.header, header.version, args.spec, tuple(args.hooks),
                                _command_line(args))
        templates = [*args.templates, BUILTIN_TEMPLATES]
        files = output_files(result, header, hook_code, provenance, templates)
        if fortran_wanted(args):
            fortran = fortran_result(args, spec, result, header)
            fortran_files = fortran_output_files(
                fortran, render_template, make_environment(templates),
                {"provenance": provenance.lines(), "mpi": header.version,
                 "prelude": hook_code["prelude"]})
            files.update({name: restore_lines(name, text)
                          for name, text in fortran_files.items()})
        written = write_outputs(files, args.out)
        if not args.quiet:
            print(f"{PROG}: {header.version}: {result.count('wrapped')} wrapped, "
                  f"{result.count('macro')} macro, {result.count('absent')} absent, "
                  f"{result.count('missing')} missing; {len(written)} of {len(files)} files "
                  f"changed in {args.out} ({time.monotonic() - started:.2f} s)",
                  file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point: one clear line on stderr for any bad input, never a traceback."""
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except GenError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
