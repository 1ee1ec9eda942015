"""Parse preprocessed C with pycparser, after neutralising GNU extensions.

pycparser accepts C99 and nothing more. System and MPI headers use GNU
extensions (``__attribute__((...))``, ``__extension__``, ``__restrict``,
``__asm__``...). We remove them from the preprocessed text while keeping
every newline, so that pycparser's coordinates (taken from the ``#``
line markers the preprocessor left) still name the original file and line.
"""

from __future__ import annotations

import re

from pycparser import c_ast, c_parser
from pycparser.c_parser import ParseError

from .errors import GenError

# Keywords removed outright, or replaced by their standard spelling.
_KEYWORD_FIXES = {
    "__extension__": "",
    "__restrict__": "",
    "__restrict": "",
    "__inline__": "inline",
    "__inline": "inline",
    "__const": "const",
    "__signed__": "signed",
    "__volatile__": "volatile",
    "_Noreturn": "",
    "__thread": "",
    "_Thread_local": "",
}
_KEYWORD_RE = re.compile(r"\b(" + "|".join(map(re.escape, _KEYWORD_FIXES)) + r")\b")

# Constructs of the form NAME( balanced-parentheses ), removed with their argument.
_CALL_LIKE_RE = re.compile(
    r"\b(__attribute__|__attribute|__asm__|__asm|asm|__declspec|_Alignas|__typeof__)\s*\("
)

# Type names some system headers use that pycparser does not know.
_PRELUDE = (
    "typedef int __builtin_va_list;\n"
    "typedef long double _Float128;\n"
    "typedef double _Float64;\n"
    "typedef double _Float64x;\n"
    "typedef float _Float32;\n"
    "typedef double _Float32x;\n"
)


def _skip_balanced(text: str, open_index: int) -> int:
    """Index just past the parenthesis matching the one at ``open_index``."""
    depth = 0
    for i in range(open_index, len(text)):
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _remove_call_like(text: str) -> str:
    """Drop ``__attribute__((...))`` and friends, keeping their newlines."""
    pieces: list[str] = []
    pos = 0
    while True:
        match = _CALL_LIKE_RE.search(text, pos)
        if match is None:
            pieces.append(text[pos:])
            return "".join(pieces)
        end = _skip_balanced(text, match.end() - 1)
        pieces.append(text[pos:match.start()])
        pieces.append("\n" * text.count("\n", match.start(), end))
        pos = end


def neutralise_gnu(text: str) -> str:
    """Return preprocessed C with GNU extensions removed, line count unchanged."""
    text = _remove_call_like(text)
    return _KEYWORD_RE.sub(lambda m: _KEYWORD_FIXES[m.group(1)], text)


def parse_preprocessed(text: str, filename: str) -> c_ast.FileAST:
    """Parse preprocessed C; a syntax error becomes a GenError at file:line."""
    source = '# 1 "<mpiwatch prelude>"\n' + _PRELUDE + neutralise_gnu(text)
    try:
        return c_parser.CParser().parse(source, filename)
    except ParseError as err:
        where, _, message = str(err).partition(": ")
        parts = where.split(":")
        if len(parts) >= 2 and parts[1].isdigit():
            where = f"{parts[0]}:{parts[1]}"
        raise GenError(f"cannot parse the header: {message or err}", where) from None
