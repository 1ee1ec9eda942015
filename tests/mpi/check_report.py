#!/usr/bin/python3
"""Check an mpiwatch JSON report against a test program's expectations.

Usage::

    check_report.py --expect FILE --np N REPORT_DIR_OR_FILE

The expect file has one expectation per line; ``#`` starts a comment::

    # calls of a function, summed over all ranks
    MPI_Send         2*(np-1)
    # bytes it sent / received, summed over all ranks (bytes_sent, bytes_recv)
    MPI_Send.sent    2*(np-1) * 64*4
    MPI_Send.recv    0
    # bytes and messages from one world rank to another (the report's "pairs");
    # the optional loop repeats the line for each value of its variable
    pair  r  (r+1)%np  bytes 64*4  messages 1   for r in range(np)
    # the report's pairs must be exactly the listed ones
    pairs exact

Expressions use integer literals, the name ``np`` (the rank count), the
variables of enclosing loops, ``+ - * // %``, parentheses, ``min(a, b, ...)``,
``max(a, b, ...)`` and ``sum(EXPR for v in range(...))``; ``range`` takes one
to three arguments, as in Python. They are parsed with :mod:`ast` and
evaluated node by node, never by Python itself.

A function listed for calls but without ``.sent``/``.recv`` lines is not
checked for bytes. Every ``.sent``/``.recv`` line needs a calls line for the
same function. In a ``pair`` line, FROM and TO are world ranks, each written
without blanks, that must evaluate to ranks of 0..np-1. ``pair`` lines are
summed per (from, to): lines naming the same ranks expect the sum of their
bytes and messages, and a pair whose total is 0 bytes and 0 messages must be
absent from the report (or there with 0 and 0). Without ``pairs exact``,
pairs the file does not list are not checked.

The report is the single ``mpiwatch-*.json`` file in REPORT_DIR (or the
file given). It must pass the report schema check (tests/lib/report_schema.py,
``"schema": "mpiwatch-report/1"`` among the rest) and carry ``"ranks": N``. Every expected count must equal the report's (a function
absent from the report counts as 0 calls and 0 bytes), and the report must
not have calls > 0 of any function the expect file does not list.

Exit status: 0 if everything matches, 1 if something does not, 2 if the
command line, the expect file or the report is unusable (one error line on
standard error, never a traceback).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "lib"))
from report_schema import SCHEMA, check_text  # noqa: E402  (tests/lib/report_schema.py)

REPORT_GLOB = "mpiwatch-*.json"
NAME_RE = re.compile(r"^MPIX?_[A-Za-z0-9_]+$")
BYTES_RE = re.compile(r"^(MPIX?_[A-Za-z0-9_]+)\.(sent|recv)$")
PAIR_RE = re.compile(r"^pair\s+(?P<ends>.*?)\s+bytes\s+(?P<bytes>.*?)\s+messages\s+"
                     r"(?P<messages>.*)$")
LOOP_RE = re.compile(r"^for\s+(?P<var>\S+)\s+in\s+(?P<iter>.*)$")
VAR_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
PROG = "check_report"
# The most values one range() may produce: expressions stay cheap.
MAX_RANGE = 1_000_000
ALLOWED = ("integers, np, loop variables, + - * // %, parentheses, min, max,"
           " sum(... for v in range(...))")

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
    """One calls or bytes line: a function, what is counted, the expression, its value.

    ``what`` is ``calls``, ``sent`` or ``recv``.
    """

    name: str
    expression: str
    count: int
    line: int
    what: str = "calls"

    @property
    def label(self) -> str:
        """``MPI_Send`` for calls, ``MPI_Send.sent`` for bytes."""
        return self.name if self.what == "calls" else f"{self.name}.{self.what}"


@dataclass
class PairExpectation:
    """The expected traffic from one world rank to another, summed over lines."""

    source: int
    dest: int
    bytes: int = 0
    messages: int = 0
    lines: list[int] = field(default_factory=list)


@dataclass
class Expectations:
    """Everything an expect file asks for, evaluated for one rank count."""

    calls: list[Expectation] = field(default_factory=list)
    bytes: list[Expectation] = field(default_factory=list)
    pairs: dict[tuple[int, int], PairExpectation] = field(default_factory=dict)
    pair_lines: int = 0
    pairs_exact: bool = False


# ---------------------------------------------------------------- expressions

def _range_of(node: ast.AST, env: dict[str, int]) -> range:
    """Evaluate ``range(...)`` with one to three integer arguments."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "range" and not node.keywords and 1 <= len(node.args) <= 3):
        raise ValueError("a loop must run over range(STOP), range(START, STOP)"
                         " or range(START, STOP, STEP)")
    args = [_eval_node(a, env) for a in node.args]
    if len(args) == 3 and args[2] == 0:
        raise ValueError("range() step must not be zero")
    values = range(*args)
    if len(values) > MAX_RANGE:
        raise ValueError(f"range of {len(values)} values is too long (at most {MAX_RANGE})")
    return values


def _loop_var(node: ast.AST, env: dict[str, int]) -> str:
    if not isinstance(node, ast.Name):
        raise ValueError("a loop variable must be a plain name")
    if node.id == "np" or node.id in env or node.id in ("min", "max", "sum", "range"):
        raise ValueError(f"loop variable '{node.id}' hides another name")
    return node.id


def _eval_sum(node: ast.Call, env: dict[str, int]) -> int:
    """``sum(EXPR for v in range(...))``."""
    if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], ast.GeneratorExp):
        raise ValueError("sum() takes one generator: sum(EXPR for v in range(...))")
    gen = node.args[0]
    if len(gen.generators) != 1:
        raise ValueError("sum() takes a single 'for' (nest sum() calls instead)")
    comp = gen.generators[0]
    if comp.ifs or comp.is_async:
        raise ValueError("sum() generators may not have 'if' clauses")
    var = _loop_var(comp.target, env)
    total = 0
    for value in _range_of(comp.iter, env):
        total += _eval_node(gen.elt, {**env, var: value})
    return total


def _eval_node(node: ast.AST, env: dict[str, int]) -> int:
    """Evaluate one node of an expression, allowing only the safe subset.

    ``env`` maps the names in scope (``np`` and loop variables) to values.
    Raises ValueError naming what is not allowed.
    """
    if isinstance(node, ast.Expression):
        return _eval_node(node.body, env)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        raise ValueError(f"only integer literals are allowed, not {node.value!r}")
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        known = ", ".join(f"'{n}'" for n in env)
        raise ValueError(f"unknown name '{node.id}' (known here: {known})")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _eval_node(node.operand, env)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
            raise ValueError(f"operator '{_op_text(node.op)}' is not allowed"
                             " (only + - * // % and parentheses)")
        left = _eval_node(node.left, env)
        right = _eval_node(node.right, env)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if right == 0:
            raise ValueError("division by zero")
        return left // right if isinstance(node.op, ast.FloorDiv) else left % right
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        name = node.func.id
        if name in ("min", "max"):
            if len(node.args) < 2 or node.keywords:
                raise ValueError(f"{name}() takes two or more expressions")
            values = [_eval_node(a, env) for a in node.args]
            return min(values) if name == "min" else max(values)
        if name == "sum":
            return _eval_sum(node, env)
        raise ValueError(f"function '{name}' is not allowed (only min, max, sum)")
    raise ValueError(f"{_node_text(node)} is not allowed (only {ALLOWED})")


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
             ast.Lambda: "a lambda", ast.UnaryOp: "this unary operator",
             ast.GeneratorExp: "a generator outside sum()", ast.Tuple: "a tuple"}
    return kinds.get(type(node), f"'{type(node).__name__}'")


def _parse(expression: str) -> ast.Expression:
    try:
        return ast.parse(expression.strip(), mode="eval")
    except SyntaxError as err:
        raise ValueError(f"syntax error in expression {_shorten(expression)!r}"
                         f" ({err.msg})") from None


def evaluate(expression: str, np_value: int, variables: dict[str, int] | None = None) -> int:
    """Evaluate an expression for a rank count (and loop variables).

    Raises ValueError with a short reason if it is not in the allowed subset.
    """
    env = {"np": np_value, **(variables or {})}
    try:
        return _eval_node(_parse(expression), env)
    except RecursionError:
        raise ValueError("expression too deeply nested") from None


def _shorten(text: str, limit: int = 60) -> str:
    """The stripped text, cut to ``limit`` characters for messages."""
    text = text.strip()
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------- expect file

def _split_ends(text: str) -> tuple[str, str]:
    """Split ``FROM TO``: two expressions, each written without blanks."""
    words = text.split()
    if len(words) != 2:
        raise ValueError(f"'{_shorten(text)}' is not FROM and TO"
                         " (write each without blanks, e.g. 'r (r+1)%np')")
    return words[0], words[1]


def _split_loop(text: str) -> tuple[str, str | None]:
    """Split ``EXPR for VAR in range(...)`` at its first 'for' outside parentheses."""
    depth = 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif (depth == 0 and text.startswith("for", i) and i > 0 and text[i - 1].isspace()
              and (i + 3 == len(text) or text[i + 3].isspace())):
            return text[:i].strip(), text[i:].strip()
    return text.strip(), None


def _parse_pair(line: str, np_value: int, result: Expectations, number: int) -> None:
    """Add one ``pair`` line's contributions to result.pairs."""
    match = PAIR_RE.match(line)
    if not match:
        raise ValueError("expected 'pair FROM TO bytes EXPR messages EXPR"
                         " [for VAR in range(...)]'")
    source_text, dest_text = _split_ends(match["ends"])
    messages_text, loop_text = _split_loop(match["messages"])
    loop: list[dict[str, int]] = [{}]
    if loop_text is not None:
        loop_match = LOOP_RE.match(loop_text)
        if not loop_match:
            raise ValueError("expected 'for VAR in range(...)' after the messages")
        var = loop_match["var"]
        if not VAR_RE.match(var):
            raise ValueError(f"loop variable '{var}' is not a name")
        if var in ("np", "min", "max", "sum", "range"):
            raise ValueError(f"loop variable '{var}' hides another name")
        try:
            values = _range_of(_parse(loop_match["iter"]).body, {"np": np_value})
        except RecursionError:
            raise ValueError("expression too deeply nested") from None
        loop = [{var: v} for v in values]
    for variables in loop:
        source = evaluate(source_text, np_value, variables)
        dest = evaluate(dest_text, np_value, variables)
        nbytes = evaluate(match["bytes"], np_value, variables)
        messages = evaluate(messages_text, np_value, variables)
        at = "".join(f" ({k}={v})" for k, v in variables.items())
        for what, rank in (("FROM", source), ("TO", dest)):
            if not 0 <= rank < np_value:
                raise ValueError(f"{what} is {rank}{at}, not a rank of 0..{np_value - 1}")
        if nbytes < 0 or messages < 0:
            raise ValueError(f"negative bytes ({nbytes}) or messages ({messages}){at}")
        pair = result.pairs.setdefault((source, dest), PairExpectation(source, dest))
        pair.bytes += nbytes
        pair.messages += messages
        if number not in pair.lines:
            pair.lines.append(number)
    result.pair_lines += 1


def parse_expect(path: Path, np_value: int) -> Expectations:
    """Read an expect file and evaluate each line for ``np_value``.

    Raises CheckError as ``path:line: reason`` for the first bad line.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CheckError(f"{path}: cannot read expect file: {_reason(err)}") from None
    result = Expectations()
    seen: dict[str, int] = {}
    exact_line = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        where = f"{path}:{number}"
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 1)
        key = parts[0]
        if key == "pairs":
            if line.split() != ["pairs", "exact"]:
                raise CheckError(f"{where}: unknown directive '{_shorten(line)}'"
                                 " (the only one is 'pairs exact')")
            if exact_line:
                raise CheckError(f"{where}: 'pairs exact' already given on line {exact_line}")
            exact_line = number
            result.pairs_exact = True
            continue
        if key == "pair":
            try:
                _parse_pair(line, np_value, result, number)
            except ValueError as err:
                raise CheckError(f"{where}: pair: {err}") from None
            continue
        bytes_match = BYTES_RE.match(key)
        if bytes_match:
            name, what = bytes_match[1], bytes_match[2]
        elif NAME_RE.match(key):
            name, what = key, "calls"
        else:
            raise CheckError(f"{where}: '{key}' is not an MPI function name, NAME.sent,"
                             " NAME.recv, 'pair' or 'pairs exact'")
        if len(parts) < 2:
            raise CheckError(f"{where}: {key}: missing {'count' if what == 'calls' else 'bytes'}"
                             " expression")
        if key in seen:
            raise CheckError(f"{where}: {key} already listed on line {seen[key]}")
        try:
            count = evaluate(parts[1], np_value)
        except ValueError as err:
            raise CheckError(f"{where}: {key}: {err}") from None
        if count < 0:
            noun = "call count" if what == "calls" else "byte count"
            raise CheckError(f"{where}: {key}: '{_shorten(parts[1])}' is {count}"
                             f" for np={np_value}, a negative {noun}")
        seen[key] = number
        exp = Expectation(name, parts[1].strip(), count, number, what)
        (result.calls if what == "calls" else result.bytes).append(exp)
    if not result.calls:
        raise CheckError(f"{path}: expect file lists no functions")
    listed = {e.name for e in result.calls}
    for exp in result.bytes:
        if exp.name not in listed:
            raise CheckError(f"{path}:{exp.line}: {exp.label}: {exp.name} has no calls line")
    return result


# ---------------------------------------------------------------- report

@dataclass
class Report:
    """What the checks read from a report."""

    path: Path
    calls: dict[str, int]
    bytes: dict[str, dict[str, Any]]     # name -> {"sent": ..., "recv": ...} as found
    pairs: Any                            # the raw "pairs" value, validated on use
    data: Any = None                      # the whole report, for the cross-checks


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


def load_report(path: Path, np_value: int) -> Report:
    """Load and validate a report's header and call counts."""
    try:
        text = path.read_text(encoding="utf-8")
        data: Any = json.loads(text)
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
    off_schema = check_text(text)
    if off_schema:
        raise CheckError(f"{path}: not in the report schema ({len(off_schema)} problem(s)): "
                         + "; ".join(off_schema[:5]))
    functions = data.get("functions")
    if not isinstance(functions, dict):
        raise CheckError(f"{path}: 'functions' is missing or not an object")
    calls: dict[str, int] = {}
    moved: dict[str, dict[str, Any]] = {}
    for name, entry in functions.items():
        if not isinstance(entry, dict):
            raise CheckError(f"{path}: functions[{name!r}] is not an object")
        count = entry.get("calls")
        if not _is_int(count) or count < 0:
            raise CheckError(f"{path}: functions[{name!r}]['calls'] is {count!r},"
                             " expected a non-negative integer")
        calls[name] = count
        moved[name] = {"sent": entry.get("bytes_sent"), "recv": entry.get("bytes_recv")}
    return Report(path, calls, moved, data.get("pairs"), data)


def report_bytes(report: Report, name: str, what: str) -> int:
    """The report's bytes_sent or bytes_recv of a function (0 if it is absent)."""
    if name not in report.bytes:
        return 0
    value = report.bytes[name][what]
    if not _is_int(value) or value < 0:
        raise CheckError(f"{report.path}: functions[{name!r}]['bytes_{what}'] is {value!r},"
                         " expected a non-negative integer")
    return value


def report_pairs(report: Report) -> list[tuple[int, int, int, int]]:
    """The report's pairs as (from, to, bytes, messages)."""
    if not isinstance(report.pairs, list):
        raise CheckError(f"{report.path}: 'pairs' is missing or not a list")
    pairs = []
    for i, entry in enumerate(report.pairs):
        if not isinstance(entry, dict):
            raise CheckError(f"{report.path}: pairs[{i}] is not an object")
        values = []
        for key in ("from", "to", "bytes", "messages"):
            value = entry.get(key)
            if not _is_int(value) or value < 0:
                raise CheckError(f"{report.path}: pairs[{i}][{key!r}] is {value!r},"
                                 " expected a non-negative integer")
            values.append(value)
        pairs.append((values[0], values[1], values[2], values[3]))
    return pairs


# ---------------------------------------------------------------- comparison

def compare(expected: Expectations, report: Report, expect_path: Path) -> list[str]:
    """Return one message per mismatch between expectations and the report.

    Raises CheckError if a part of the report the expectations need is unusable.
    """
    problems: list[str] = []
    where = expect_path.name
    for exp in expected.calls:
        got = report.calls.get(exp.name, 0)
        if got != exp.count:
            problems.append(f"MISMATCH {exp.label}: expected {exp.count} ({exp.expression},"
                            f" {where}:{exp.line}), report has {got}")
    listed = {e.name for e in expected.calls}
    for name in sorted(report.calls):
        if report.calls[name] > 0 and name not in listed:
            problems.append(f"UNEXPECTED {name}: report has {report.calls[name]} calls,"
                            f" not listed in {where}")
    for exp in expected.bytes:
        got = report_bytes(report, exp.name, exp.what)
        if got != exp.count:
            problems.append(f"MISMATCH {exp.label}: expected {exp.count} bytes"
                            f" ({exp.expression}, {where}:{exp.line}), report has {got}")
    if expected.pair_lines or expected.pairs_exact:
        problems += _compare_pairs(expected, report_pairs(report), where)
    problems += cross_check(report)
    return problems


def cross_check(report: Report) -> list[str]:
    """The report's other views of the same calls must add up to its functions:
    the rank x function matrix exactly, and the call sites with the calls no
    site kept."""
    problems: list[str] = []
    data = report.data if isinstance(report.data, dict) else {}
    functions = data.get("functions", {})
    matrix = data.get("rank_functions")
    if isinstance(matrix, dict):
        names = matrix.get("functions", [])
        for k, name in enumerate(names):
            for field, key in (("calls", "calls"), ("bytes_sent", "bytes_sent"),
                               ("bytes_recv", "bytes_recv")):
                total = sum(int(rank[field][k]) for rank in matrix.get("ranks", []))
                want = functions.get(name, {}).get(key, 0)
                if total != want:
                    problems.append(f"MATRIX {name} {field}: the ranks sum to {total},"
                                    f" functions has {want}")
    sites = data.get("callsites")
    if isinstance(sites, dict):
        per_fn: dict[str, int] = {}
        for site in sites.get("sites", []):
            per_fn[site["function"]] = per_fn.get(site["function"], 0) + int(site["calls"])
        for name, count in sorted(per_fn.items()):
            if count > functions.get(name, {}).get("calls", 0):
                problems.append(f"CALLSITES {name}: the sites have {count} calls,"
                                f" functions has {functions.get(name, {}).get('calls', 0)}")
        every = sum(int(entry.get("calls", 0)) for entry in functions.values())
        kept = sum(per_fn.values()) + int(sites.get("other_calls", 0))
        if kept != every:
            problems.append(f"CALLSITES: sites ({sum(per_fn.values())}) and other calls"
                            f" ({sites.get('other_calls')}) make {kept}, the functions {every}")
    return problems


def _compare_pairs(expected: Expectations, got: list[tuple[int, int, int, int]],
                   where: str) -> list[str]:
    problems: list[str] = []
    found: dict[tuple[int, int], tuple[int, int]] = {}
    for source, dest, nbytes, messages in got:
        if (source, dest) in found:
            problems.append(f"DUPLICATE pair {source}->{dest}: listed more than once"
                            " in the report")
            continue
        found[(source, dest)] = (nbytes, messages)
    for key in sorted(expected.pairs):
        exp = expected.pairs[key]
        lines = ",".join(str(n) for n in exp.lines)
        name = f"pair {exp.source}->{exp.dest}"
        if key not in found:
            if exp.bytes or exp.messages:
                problems.append(f"MISSING {name}: expected bytes {exp.bytes} messages"
                                f" {exp.messages} ({where}:{lines}), not in the report")
            continue
        nbytes, messages = found[key]
        if (nbytes, messages) != (exp.bytes, exp.messages):
            problems.append(f"MISMATCH {name}: expected bytes {exp.bytes} messages"
                            f" {exp.messages} ({where}:{lines}), report has bytes {nbytes}"
                            f" messages {messages}")
    if expected.pairs_exact:
        for key in sorted(found):
            if key not in expected.pairs:
                nbytes, messages = found[key]
                problems.append(f"UNEXPECTED pair {key[0]}->{key[1]}: report has bytes"
                                f" {nbytes} messages {messages}, not listed in {where}"
                                " (pairs exact)")
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


def _summary(expected: Expectations) -> str:
    text = f"{len(expected.calls)} functions"
    if expected.bytes:
        text += f", {len(expected.bytes)} byte counts"
    if expected.pair_lines or expected.pairs_exact:
        exact = " (exact)" if expected.pairs_exact else ""
        text += f", {len(expected.pairs)} pairs{exact}"
    return text


def main(argv: list[str] | None = None) -> int:
    """Run the check; return the exit status."""
    parser = _Parser(prog="check_report.py",
                     description="Check an mpiwatch report against expected call counts,"
                                 " bytes and pairs.")
    parser.add_argument("--expect", required=True, type=Path, metavar="FILE",
                        help="expect file: 'MPI_Name EXPR', 'MPI_Name.sent|.recv EXPR',"
                             " 'pair FROM TO bytes EXPR messages EXPR', 'pairs exact'")
    parser.add_argument("--np", required=True, type=_positive_int, dest="np_value",
                        metavar="N", help="number of ranks the program ran with")
    parser.add_argument("report", type=Path, metavar="REPORT_DIR_OR_FILE",
                        help="directory holding one mpiwatch-*.json, or the file itself")
    args = parser.parse_args(argv)
    try:
        expected = parse_expect(args.expect, args.np_value)
        report_path = find_report(args.report)
        report = load_report(report_path, args.np_value)
        problems = compare(expected, report, args.expect)
    except CheckError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return EXIT_ERROR
    for problem in problems:
        print(problem)
    if problems:
        print(f"{PROG}: {report_path}: {len(problems)} problem(s),"
              f" {_summary(expected)} expected (np={args.np_value})")
        return EXIT_MISMATCH
    print(f"{PROG}: {report_path}: OK, {_summary(expected)} match (np={args.np_value})")
    return EXIT_OK


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
