"""The client's Python modes: ``mpiwatch --diff ...`` and ``mpiwatch --report R --hatchet OUT``.

The C client (client/main.c) runs ``python3 -m mpiwatch.cli ARGS`` with its
own arguments, so the command and the package are the same code. Usage::

    mpiwatch --diff A.json B.json [--json] [--html OUT.html] [--fail-if EXPR]... [-q]
    mpiwatch --report R.json --hatchet OUT.json [-q]

Exit status: 0 done, nothing crossed; 1 an input could not be read or an
output written; 2 usage error (a bad --fail-if expression among them,
named); 3 a --fail-if threshold was crossed (each crossing printed on
standard error).
"""
from __future__ import annotations

import json
import os
import sys

from .compare import diff
from .gate import GateError, parse_threshold
from .hatchet import to_literal
from .report import ReportError

CROSSED = 3
USAGE = ("usage: mpiwatch --diff A.json B.json [--json] [--html OUT.html] [--fail-if EXPR]...\n"
         "       mpiwatch --report R.json --hatchet OUT.json")


class Usage(Exception):
    pass


def _parse(argv: list[str]) -> dict:
    o = {"diff": None, "report": None, "hatchet": None, "json": False, "html": None,
         "fail_if": [], "quiet": False}
    i = 0
    while i < len(argv):
        a = argv[i]
        name, eq, inline = a.partition("=") if a.startswith("--") else (a, "", "")

        def value(what: str) -> str:
            nonlocal i
            if eq:
                return inline
            i += 1
            if i >= len(argv):
                raise Usage(f"{name} needs {what}")
            return argv[i]
        if name == "--diff":
            o["diff"] = [value("two JSON reports: --diff A.json B.json")]
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                raise Usage("--diff needs two JSON reports: --diff A.json B.json")
            i += 1
            o["diff"].append(argv[i])
        elif name == "--report":
            o["report"] = value("a JSON report")
        elif name == "--hatchet":
            o["hatchet"] = value("the file to write")
        elif name == "--html":
            o["html"] = value("the file to write")
        elif name == "--fail-if":
            o["fail_if"].append(value("an expression, e.g. mpi_time>+10%"))
        elif a in ("--json", "-j"):
            o["json"] = True
        elif a in ("--quiet", "-q"):
            o["quiet"] = True
        else:
            raise Usage(f"{'unknown option' if a.startswith('-') else 'unexpected argument'} {a} "
                        f"with {'--diff' if '--diff' in argv else '--hatchet'}")
        i += 1
    if o["diff"] and (o["report"] or o["hatchet"]):
        raise Usage("--diff compares two reports: no --report or --hatchet")
    if o["hatchet"] and not o["report"]:
        raise Usage("--hatchet goes with --report R.json")
    if o["report"] and not o["hatchet"]:
        raise Usage("--report goes with --hatchet OUT.json here (or --html OUT.html)")
    if o["hatchet"] and (o["json"] or o["html"] or o["fail_if"]):
        raise Usage("--report --hatchet writes a file: no --json, --html or --fail-if")
    if not o["diff"] and not o["hatchet"]:
        raise Usage("give --diff A.json B.json or --report R.json --hatchet OUT.json")
    return o


def _write(path: str, text: str) -> None:
    """Through a temporary file, so a reader never sees half of it."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def main(argv: list[str]) -> int:
    """Run one mode; returns the exit status (see the module's documentation)."""
    try:
        o = _parse(argv)
        gates = [parse_threshold(e) for e in o["fail_if"]]
    except (Usage, GateError) as e:
        print(f"mpiwatch: {e}\n{USAGE}\n(mpiwatch --help lists the options)", file=sys.stderr)
        return 2
    try:
        if o["hatchet"]:
            _write(o["hatchet"], json.dumps(to_literal(o["report"]), indent=1) + "\n")
            if not o["quiet"]:
                print(f"mpiwatch: wrote {o['hatchet']}", file=sys.stderr)
            return 0
        d = diff(*o["diff"])
        if o["html"]:
            from .diff_page import page
            _write(o["html"], page(d, o["diff"]))
            if not o["quiet"]:
                print(f"mpiwatch: wrote {o['html']}", file=sys.stderr)
        sys.stdout.write(d.json() + "\n" if o["json"] else d.text())
        sys.stdout.flush()
    except ReportError as e:
        print(f"mpiwatch: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"mpiwatch: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return 1
    crossed = []
    try:
        for g in gates:
            crossed += g.check(d)
    except GateError as e:
        print(f"mpiwatch: {e}", file=sys.stderr)
        return 2
    for line in crossed:
        print(f"mpiwatch: --fail-if {line}", file=sys.stderr)
    if crossed:
        print(f"mpiwatch: {len(crossed)} threshold crossing(s): exit status {CROSSED}", file=sys.stderr)
        return CROSSED
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
