"""Shared helpers of the generator's unit tests (imported, not a test module).

The tests need no MPI: the "MPI compiler" is the plain C compiler ``cc``,
the headers are the small hand-written ones in headers/ (one per quirk),
and the library's symbols come from --symbols-file or --no-symbol-check.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT / "generator") not in sys.path:
    sys.path.insert(0, str(ROOT / "generator"))

from mpiwatch_gen import cli  # noqa: E402
from mpiwatch_gen.hooks import HookFile, apply_hooks  # noqa: E402
from mpiwatch_gen.probe import HeaderInfo, probe_header  # noqa: E402
from mpiwatch_gen.reconcile import Reconciled, Wrapper, reconcile  # noqa: E402
from mpiwatch_gen.spec import Spec, load_spec  # noqa: E402

CC = os.environ.get("MPIWATCH_TEST_CC", "cc")
HEADERS = ROOT / "tests" / "generator" / "headers"
GOLDEN = ROOT / "tests" / "generator" / "golden"
SPEC_PATH = ROOT / "spec" / "mpi-4.1.json"
# What the generated C includes besides mpi.h (see Makefile.am's AM_CPPFLAGS).
C_INCLUDES = (ROOT / "runtime", ROOT / "include")
C_FLAGS = ("-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror",
           "-fsyntax-only")


def header(name: str) -> str:
    """The path of a test header, e.g. header("broken.h")."""
    return str(HEADERS / name)


def header_line(name: str, text: str) -> int:
    """The 1-based line of a test header holding ``text`` (first occurrence)."""
    lines = (HEADERS / name).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if text in line:
            return number
    raise AssertionError(f"{name} has no line containing {text!r}")


@functools.lru_cache(maxsize=None)
def shipped_spec() -> Spec:
    """The shipped spec, loaded once (Spec is immutable)."""
    return load_spec(str(SPEC_PATH))


@functools.lru_cache(maxsize=None)
def probe(name: str) -> HeaderInfo:
    """Probe a test header with cc, once per header (tests must not mutate it)."""
    return probe_header(CC, header(name))


def reconciled(name: str, symbols: set[str] | None = None) -> Reconciled:
    """A fresh reconciliation of a test header with the shipped spec."""
    return reconcile(probe(name), shipped_spec(), symbols)


def wrapper(result: Reconciled, name: str) -> Wrapper:
    """The wrapper of one function, or AssertionError."""
    for candidate in result.wrappers:
        if candidate.name == name:
            return candidate
    raise AssertionError(f"{name} is not wrapped: "
                         f"{sorted(w.name for w in result.wrappers)}")


def write_file(folder: str | Path, name: str, text: str) -> str:
    """Write text to folder/name; return the path."""
    path = Path(folder) / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def hooked(header_name: str, hook_text: str, folder: str) -> tuple[Reconciled, dict[str, str]]:
    """Reconcile a header and apply one hook file written into folder.

    Returns the reconciliation with the hooks applied (wrappers carrying hook
    code) and the hooks' file-scope code by part.
    """
    info = probe(header_name)
    names = set(info.functions) | set(shipped_spec().functions)
    hook = HookFile(write_file(folder, "hooks.j2", hook_text), names)
    result = apply_hooks([hook], reconciled(header_name))
    return result, {"prelude": result.hooks.prelude, "definitions": result.hooks.definitions}


@dataclass(frozen=True)
class CliResult:
    """What one in-process run of mpiwatch-gen gave."""

    status: int
    stdout: str
    stderr: str


def run_cli(*argv: str) -> CliResult:
    """Run ``mpiwatch-gen ARGV`` in-process, capturing its output."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(list(argv))
        except SystemExit as stop:  # argparse's --help, --version, usage errors
            status = stop.code if isinstance(stop.code, int) else 1
    return CliResult(status, out.getvalue(), err.getvalue())


def generate(header_name: str, out_dir: str, *extra: str) -> CliResult:
    """Generate the wrappers of a test header into out_dir, no symbol check."""
    return run_cli("--mpicc", CC, "--header", header(header_name), "--spec", str(SPEC_PATH),
                   "--no-symbol-check", "--out", out_dir, *extra)


def compile_generated(header_name: str, out_dir: str) -> subprocess.CompletedProcess[str]:
    """Compile the generated .c files against a test header standing in as mpi.h.

    One translation unit includes them all (compiling 23 files one by one,
    each with the runtime's headers, would take a few seconds per header).
    """
    work = Path(out_dir).parent / f"{Path(out_dir).name}-compile"
    work.mkdir(exist_ok=True)
    write_file(work, "mpi.h", f'#include "{header(header_name)}"\n')
    sources = sorted(Path(out_dir).glob("*.c"))
    unity = write_file(work, "all.c", "".join(f'#include "{p}"\n' for p in sources))
    cmd = [CC, *C_FLAGS, f"-I{work}", *(f"-I{d}" for d in C_INCLUDES), f"-I{out_dir}", unity]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)
