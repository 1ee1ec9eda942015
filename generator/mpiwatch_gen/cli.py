"""The mpiwatch-gen command: probe, reconcile and render in one go."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from . import __version__
from .build import (Build, Install, changed_sources, check_same_mpi, find_install,
                    link_libraries, usage)
from .errors import GenError
from .fortran_probe import FortranProbe, finish_probe, probe_fortran_side
from .fortran_reconcile import reconcile_fortran
from .hooks import HookFile, apply_hooks
from .probe import HeaderInfo, probe_header
from .reconcile import Reconciled, reconcile
from .render import (BUILTIN_TEMPLATES, Provenance, fortran_output_files,
                     interop_output_files, output_files, write_outputs)
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
        epilog="Examples:\n"
               "  mpiwatch-gen --mpicc mpicc.mpich --out generated --coverage\n"
               "  mpiwatch-gen --hooks my-hooks.j2 --build DIR   (from an install: writes\n"
               "      DIR/lib/libmpiwatch.so with the hooks built in, in seconds)\n"
               f"Manual: man mpiwatch-gen; guides in {DOCDIR}/.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mpicc",
                        help="the MPI's C compiler wrapper, used to preprocess mpi.h and to "
                             "find the MPI's libraries (default: $MPICC or mpicc; with "
                             "--build, the one the install was built with)")
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
    parser.add_argument("--build", metavar="DIR",
                        help="from an installed mpiwatch: build DIR/lib/libmpiwatch.so (and "
                             "libmpiwatch_f.so where the install has it) with the --hooks "
                             "built in, compiling only the sources the hooks change and "
                             "linking the install's objects for the rest; the sources go to "
                             "DIR/src unless --out is given")
    parser.add_argument("--coverage", action="store_true",
                        help="print every function as wrapped, macro, absent or missing")
    parser.add_argument("--regenerate", metavar="COMMAND",
                        help="the command the generated files' heads give for regenerating "
                             "them (the build system passes 'make'; default: this "
                             "mpiwatch-gen command line in full)")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    add_fortran_arguments(parser)
    return parser


def add_fortran_arguments(parser: argparse.ArgumentParser) -> None:
    """The Fortran options of mpiwatch-gen."""
    group = parser.add_argument_group("Fortran entry points (libmpiwatch_f)")
    group.add_argument("--mpifc", metavar="FC",
                       help="the MPI's Fortran compiler wrapper: also generate the Fortran "
                            "entry points (fortran_*.c, fortran-coverage.txt)")
    group.add_argument("--fortran-layering", metavar="TEXT",
                       help="which layer the MPI's Fortran bindings call, as configure "
                            "measured it (default: measure it now)")
    group.add_argument("--fortran-symbols-file", metavar="FILE",
                       help="take the MPI's Fortran entry points from FILE (one per line) "
                            "instead of reading its Fortran libraries")
    group.add_argument("--fortran-module", action="append", default=[], metavar="FILE",
                       help="read argument lists from this gfortran module file instead of "
                            "the MPI's mpi.mod and mpi_f08.mod (may be repeated)")


def fortran_wanted(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "mpifc", None) or getattr(args, "fortran_symbols_file", None))


def _symbols(args: argparse.Namespace) -> set[str] | None:
    if args.no_symbol_check:
        return None
    if args.symbols_file:
        return symbols_from_file(args.symbols_file)
    return mpi_library_symbols(args.mpicc, shlex.split(args.cflags))[0]


def _command_line(args: argparse.Namespace) -> str:
    """How to regenerate, as written in the head of each generated file."""
    if args.regenerate:
        return args.regenerate
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
    if args.fortran_layering:
        parts += ["--fortran-layering", args.fortran_layering]
    if args.fortran_symbols_file:
        parts += ["--fortran-symbols-file", args.fortran_symbols_file]
    for module in args.fortran_module:
        parts += ["--fortran-module", module]
    parts += ["--out", args.out or "DIR"]
    return " ".join(shlex.quote(p) for p in parts)


def _print_coverage(result: Reconciled, header: HeaderInfo) -> None:
    print(f"# {header.version}: {result.count('wrapped')} wrapped, {result.count('macro')} "
          f"macro, {result.count('absent')} absent, {result.count('missing')} missing")
    for entry in result.coverage:
        print(f"{entry.name:<36} {entry.status:<8} {entry.detail}")


def _use_install(args: argparse.Namespace) -> Install | None:
    """With --build: the install, and its MPI and Fortran settings for those
    not given; otherwise None, and $MPICC or mpicc."""
    if not args.build:
        args.mpicc = args.mpicc or os.environ.get("MPICC", "mpicc")
        return None
    install = find_install()
    conf = install.conf
    args.mpicc = args.mpicc or conf["MPICC"]
    args.out = args.out or os.path.join(args.build, "src")
    if install.fortran:
        args.mpifc = args.mpifc or conf.get("MPIFC")
        args.fortran_layering = args.fortran_layering or conf.get("FORTRAN_LAYERING") or None
    elif args.mpifc:
        raise GenError("--mpifc: this install has no libmpiwatch_f (it was built without "
                       "Fortran), so --build makes the C library only", "--mpifc")
    return install


def _fortran_libs(args: argparse.Namespace, install: Install) -> str:
    """The MPI's Fortran libraries libmpiwatch_f links: configure's, or those
    of another MPIFC."""
    if not install.fortran or args.mpifc == install.conf.get("MPIFC"):
        return install.conf.get("FORTRAN_LIBS", "")
    from .symbols import fortran_library_symbols, link_flags
    owner = fortran_library_symbols(args.mpifc)[1]
    return " ".join(shlex.quote(f) for f in link_flags(sorted(set(owner.values()))))


def _start_build(args: argparse.Namespace, install: Install, files: dict[str, str]) -> Build:
    """Check the MPI against the install's, and start compiling the sources
    (written already) that differ from the installed ones."""
    check_same_mpi(install, files, args.mpicc)
    build = Build(install, os.path.abspath(args.out), os.path.abspath(args.build), args.mpicc)
    build.compile(changed_sources(install, files))
    return build


def _finish_build(args: argparse.Namespace, build: Build, files: dict[str, str],
                  started: float) -> None:
    """Wait for the compilers, link the libraries, say how to use them."""
    build.wait()
    built = link_libraries(build, _fortran_libs(args, build.install))
    total = sum(1 for name in files if name.endswith(".c"))
    if not args.quiet:
        print(f"{PROG}: built {', '.join(built)} in {time.monotonic() - started:.1f} s: "
              f"{len(build.compiled)} of {total} sources compiled "
              f"({', '.join(build.compiled) or 'none'}), the rest linked from "
              f"{build.install.pkglibdir}\nUse it:\n{usage(built)}")


def run(args: argparse.Namespace) -> int:
    """Run the stages the arguments ask for: probe, reconcile, hooks, render."""
    if not args.out and not args.coverage and not args.build:
        raise GenError("nothing to do: give --out DIR, --build DIR and/or --coverage")
    started = time.monotonic()
    install = _use_install(args)
    # Probe: the Fortran side (compilers, ldd, nm, modules) beside the C side;
    # the layering, which needs the header, once the header is read. Nothing
    # compiles or runs an MPI program after this.
    pool = ThreadPoolExecutor(max_workers=1)
    fortran_side = (pool.submit(probe_fortran_side, args.mpifc, args.fortran_symbols_file,
                                args.fortran_module)
                    if args.out and fortran_wanted(args) else None)
    pool.shutdown(wait=False)
    spec = load_spec(args.spec)
    header = probe_header(args.mpicc, args.header, shlex.split(args.cflags))
    symbols = _symbols(args)
    fortran_probe: FortranProbe | None = None
    if fortran_side is not None:
        fortran_probe = finish_probe(fortran_side.result(), args.fortran_layering, args.mpicc,
                                     args.mpifc, header)
    # Reconcile, then the hooks: each stage's output is frozen.
    names = set(header.functions) | set(spec.functions)
    hook_files = [HookFile(path, names) for path in args.hooks]
    result = apply_hooks(hook_files, reconcile(header, spec, symbols))
    fortran = (reconcile_fortran(spec, result, fortran_probe.symbols, fortran_probe.modules,
                                 fortran_probe.layering)
               if fortran_probe is not None else None)
    if args.coverage:
        _print_coverage(result, header)
    if args.out:
        provenance = Provenance(header.header, header.version, args.spec, tuple(args.hooks),
                                _command_line(args))
        templates = [*args.templates, BUILTIN_TEMPLATES]
        files = output_files(result, header, provenance, templates)
        files.update(interop_output_files(header, provenance, templates))
        written = write_outputs(files, args.out)
        # With --build, the C sources compile while the Fortran side is rendered.
        build = _start_build(args, install, files) if install is not None else None
        if fortran is not None:
            fortran_files = fortran_output_files(fortran, header, result.hooks.prelude,
                                                 provenance, templates)
            written += write_outputs(fortran_files, args.out)
            files.update(fortran_files)
            if build is not None:
                build.compile(changed_sources(build.install, fortran_files))
        if not args.quiet:
            print(f"{PROG}: {header.version}: {result.count('wrapped')} wrapped, "
                  f"{result.count('macro')} macro, {result.count('absent')} absent, "
                  f"{result.count('missing')} missing; {len(written)} of {len(files)} files "
                  f"changed in {args.out} ({time.monotonic() - started:.2f} s)",
                  file=sys.stderr)
        if build is not None:
            _finish_build(args, build, files, started)
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
