#!/usr/bin/python3
"""Check an mpiwatch JSON report against a test program's expected call counts.

Usage::

    check_report.py --expect FILE --np N REPORT_DIR_OR_FILE

The expect file lists, one per line, an MPI function name and the number of
times the test program calls it summed over all ranks, written as an
arithmetic expression in ``np`` (the rank count)::

    # comment
    MPI_Send    2*(np-1)    # trailing comments too

Expressions may use only integer literals, the name ``np``, ``+``, ``-``,
``*``, ``//`` and parentheses; they are parsed with :mod:`ast`, never
evaluated by Python.

The report is the single ``mpiwatch-*.json`` file in REPORT_DIR (or the
file given). It must carry ``"schema": "mpiwatch-report/1"`` and
``"ranks": N``. Every expected count must equal ``functions[name]["calls"]``
(a function absent from the report counts as 0 calls), and the report must
not have calls > 0 of any function the expect file does not list.

Exit status: 0 if everything matches, 1 if some count does not, 2 if the
command line, the expect file or the report is unusable (one error line on
standard error, never a traceback).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

SCHEMA = "mpiwatch-report/1"
REPORT_GLOB = "mpiwatch-*.json"
NAME_RE = re.compile(r"^MPIX?_[A-Za-z0-9_]+$")
PROG = "check_report"

EXIT_OK = 0
EXIT_MISMATCH = 1
EXIT_ERROR = 2


class CheckError(Exception):
    """A problem with the command line, the expect file or the report.

    The message is complete and already located (``file:line: ...`` for
    the expect file, ``file: ...`` for the report).
    """


@dataclass(frozen=True)
class Expectation:
    """One line of an expect file: a function, its count expression, its value."""

    name: str
    expression: str
    count: int
    line: int


def _eval_node(node: ast.AST, np_value: int) -> int:
    """Evaluate one node of a count expression, allowing only the safe subset.

    Raises ValueError naming what is not allowed.
    """
    if isinstance(node, ast.Expression):
        return _eval_node(node.body, np_value)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        raise ValueError(f"only integer literals are allowed, not {node.value!r}")
    if isinstance(node, ast.Name):
        if node.id == "np":
            return np_value
        raise ValueError(f"unknown name '{node.id}' (only 'np' is allowed)")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _eval_node(node.operand, np_value)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left = _eval_node(node.left, np_value)
        right = _eval_node(node.right, np_value)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.FloorDiv):
            if right == 0:
                raise ValueError("division by zero")
            return left // right
        raise ValueError(f"operator '{_op_text(node.op)}' is not allowed "
                         "(only + - * // and parentheses)")
    raise ValueError(f"{_node_text(node)} is not allowed "
                     "(only integers, np, + - * // and parentheses)")


def _op_text(op: ast.AST) -> str:
    """Return the source spelling of a binary operator, for messages."""
    spellings = {ast.Div: "/", ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<",
                 ast.RShift: ">>", ast.BitOr: "|", ast.BitAnd: "&",
                 ast.BitXor: "^", ast.MatMult: "@"}
    return spellings.get(type(op), type(op).__name__)


def _node_text(node: ast.AST) -> str:
    """Describe an AST node briefly, for messages."""
    kinds = {ast.Call: "a function call", ast.Attribute: "an attribute",
             ast.Subscript: "a subscript", ast.Compare: "a comparison",
             ast.BoolOp: "a boolean operator", ast.IfExp: "a conditional",
             ast.Lambda: "a lambda", ast.UnaryOp: "this unary operator"}
    return kinds.get(type(node), f"'{type(node).__name__}'")


def evaluate(expression: str, np_value: int) -> int:
    """Evaluate a count expression for a rank count.

    Only integer literals, the name ``np``, ``+ - * //`` and parentheses are
    accepted. Raises ValueError with a short reason otherwise.
    """
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as err:
        raise ValueError(f"syntax error in expression {_shorten(expression)!r}"
                         f" ({err.msg})") from None
    return _eval_node(tree, np_value)


def _shorten(text: str, limit: int = 60) -> str:
    """The stripped text, cut to ``limit`` characters for messages."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit - 3] + "..."


def parse_expect(path: Path, np_value: int) -> list[Expectation]:
    """Read an expect file and evaluate each line's count for ``np_value``.

    Raises CheckError as ``path:line: reason`` for the first bad line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CheckError(f"{path}: cannot read expect file: {_reason(err)}") from None
    expectations: list[Expectation] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{path}:{number}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        name = parts[0]
        if not NAME_RE.match(name):
            raise CheckError(f"{where}: '{name}' is not an MPI function name")
        if len(parts) < 2:
            raise CheckError(f"{where}: {name}: missing count expression")
        if name in seen:
            raise CheckError(f"{where}: {name} already listed on line {seen[name]}")
        try:
            count = evaluate(parts[1], np_value)
        except ValueError as err:
            raise CheckError(f"{where}: {name}: {err}") from None
        except RecursionError:
            raise CheckError(f"{where}: {name}: expression too deeply nested") from None
        if count < 0:
            raise CheckError(f"{where}: {name}: '{_shorten(parts[1])}' is {count}"
                             f" for np={np_value}, a negative call count")
        seen[name] = number
        expectations.append(Expectation(name, parts[1].strip(), count, number))
    if not expectations:
        raise CheckError(f"{path}: expect file lists no functions")
    return expectations


def find_report(target: Path) -> Path:
    """Return the single report file named by ``target`` (a file or a directory)."""
    if target.is_file():
        return target
    if not target.is_dir():
        raise CheckError(f"{target}: no such report file or directory")
    found = sorted(p for p in target.glob(REPORT_GLOB) if p.is_file())
    if not found:
        raise CheckError(f"{target}: no {REPORT_GLOB} report found")
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise CheckError(f"{target}: {len(found)} reports found, expected one: {names}")
    return found[0]


def load_report(path: Path, np_value: int) -> dict[str, int]:
    """Load and validate a report; return each function's call count."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise CheckError(f"{path}: cannot read report: {_reason(err)}") from None
    except json.JSONDecodeError as err:
        raise CheckError(f"{path}:{err.lineno}: report is not valid JSON: {err.msg}") from None
    except RecursionError:
        raise CheckError(f"{path}: report is nested too deeply") from None
    if not isinstance(data, dict):
        raise CheckError(f"{path}: report is not a JSON object")
    schema = data.get("schema")
    if schema != SCHEMA:
        raise CheckError(f"{path}: schema is {schema!r}, expected {SCHEMA!r}")
    ranks = data.get("ranks")
    if not _is_int(ranks):
        raise CheckError(f"{path}: 'ranks' is {ranks!r}, expected an integer")
    if ranks != np_value:
        raise CheckError(f"{path}: report has ranks={ranks}, expected {np_value}")
    functions = data.get("functions")
    if not isinstance(functions, dict):
        raise CheckError(f"{path}: 'functions' is missing or not an object")
    calls: dict[str, int] = {}
    for name, entry in functions.items():
        if not isinstance(entry, dict):
            raise CheckError(f"{path}: functions[{name!r}] is not an object")
        count = entry.get("calls")
        if not _is_int(count) or count < 0:
            raise CheckError(f"{path}: functions[{name!r}]['calls'] is {count!r},"
                             " expected a non-negative integer")
        calls[name] = count
    return calls


def compare(expectations: list[Expectation], calls: dict[str, int],
            expect_path: Path) -> list[str]:
    """Return one message per mismatch between expectations and the report."""
    problems: list[str] = []
    listed = set()
    for exp in expectations:
        listed.add(exp.name)
        got = calls.get(exp.name, 0)
        if got != exp.count:
            problems.append(f"MISMATCH {exp.name}: expected {exp.count} ({exp.expression},"
                            f" {expect_path.name}:{exp.line}), report has {got}")
    for name in sorted(calls):
        if calls[name] > 0 and name not in listed:
            problems.append(f"UNEXPECTED {name}: report has {calls[name]} calls,"
                            f" not listed in {expect_path.name}")
    return problems


def _is_int(value: object) -> bool:
    """True for a JSON integer (not a boolean)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _reason(err: BaseException) -> str:
    """A short reason for an I/O or decoding error."""
    if isinstance(err, OSError) and err.strerror:
        return err.strerror
    return str(err)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"{PROG}: error: {message}"
                  " (usage: check_report.py --expect FILE --np N REPORT_DIR_OR_FILE)\n")


def _positive_int(text: str) -> int:
    """argparse type for --np."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid rank count {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"rank count must be >= 1, not {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    """Run the check; return the exit status."""
    parser = _Parser(prog="check_report.py",
                     description="Check an mpiwatch report against expected call counts.")
    parser.add_argument("--expect", required=True, type=Path, metavar="FILE",
                        help="expect file: one 'MPI_Name  expression-in-np' per line")
    parser.add_argument("--np", required=True, type=_positive_int, dest="np_value",
                        metavar="N", help="number of ranks the program ran with")
    parser.add_argument("report", type=Path, metavar="REPORT_DIR_OR_FILE",
                        help="directory holding one mpiwatch-*.json, or the file itself")
    args = parser.parse_args(argv)
    try:
        expectations = parse_expect(args.expect, args.np_value)
        report = find_report(args.report)
        calls = load_report(report, args.np_value)
    except CheckError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    problems = compare(expectations, calls, args.expect)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{PROG}: {report}: {len(problems)} problem(s),"
              f" {len(expectations)} functions expected (np={args.np_value})")
        return EXIT_MISMATCH
    print(f"{PROG}: {report}: OK, {len(expectations)} functions match (np={args.np_value})")
    return EXIT_OK


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
