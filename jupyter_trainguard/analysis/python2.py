"""Read a cell written for Python 2 as Python 3, line for line, so the analysis still sees what it does.

Only the statements whose Python 2 form is a syntax error in Python 3 are rewritten, each on its own lines:
`print x, y` / `print >>f, x` / `print x,` / `print`, `exec code`, `except E, e:`, `raise E, "message"`,
`a <> b` and backquoted `` `x` ``. Nothing else changes, so cell lines and columns still point at the user's code.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings

_EXCEPT = re.compile(r"^(\s*except\s+(?:\([^()]*\)|[\w.]+))\s*,\s*(\w+)\s*:")
_RAISE = re.compile(r"^(\s*raise\s+[\w.]+)\s*,\s*(.+?)\s*$")
_STATEMENT_START = (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)


def parse_python2(code: str) -> ast.Module | None:
    """The tree of `code` read as Python 2 when that is what stops it parsing, else None."""
    fixed = as_python3(code)
    if fixed is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(fixed)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def as_python3(code: str) -> str | None:
    """`code` with its Python 2 statements in Python 3 form (same lines), or None when none was found."""
    lines = code.split("\n")
    changed = False
    for i, line in enumerate(lines):
        new = _RAISE.sub(r"\1(\2)", _EXCEPT.sub(r"\1 as \2:", line)) if ("except" in line or "raise" in line) \
            else line
        if new != line:
            lines[i], changed = new, True
    edits = _statement_edits("\n".join(lines))
    if edits is None:
        return None
    if edits:
        lines = _apply(lines, edits)
        changed = True
    return "\n".join(lines) if changed else None


def _statement_edits(code: str) -> list[tuple[int, int, int, str]] | None:
    """(line, start column, end column, replacement) for each print/exec statement, `<>` and backquote; None when
    the code cannot be tokenized."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    edits: list[tuple[int, int, int, str]] = []
    depth = 0
    start = True
    for i, tok in enumerate(tokens):
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth = max(0, depth - 1)
        elif tok.type == tokenize.ERRORTOKEN and tok.string == "`":
            edits += _backquote(tokens, i)
        elif tok.type == tokenize.OP and tok.string == "<" and i + 1 < len(tokens) and \
                tokens[i + 1].string == ">" and tokens[i + 1].start == tok.end:
            edits.append((tok.start[0], tok.start[1], tokens[i + 1].end[1], "!="))
        if start and tok.type == tokenize.NAME and tok.string in ("print", "exec") and depth == 0:
            edits += _call_edits(tokens, i)
        start = tok.type in _STATEMENT_START or tok.type == tokenize.OP and tok.string in (":", ";") and depth == 0
    return edits


def _call_edits(tokens: list, i: int) -> list[tuple[int, int, int, str]]:
    """`print x, y` → `print(x, y)`: the statement's words become the call's arguments."""
    name = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if nxt is None or nxt.type == tokenize.OP and nxt.string in ("(", "=", ".", "[", ",", ")"):
        return []  # already a call, or the name used as a value
    end = i + 1
    depth = 0
    while end < len(tokens):
        t = tokens[end]
        if t.type == tokenize.OP and t.string in "([{":
            depth += 1
        elif t.type == tokenize.OP and t.string in ")]}":
            depth -= 1
        elif depth == 0 and (t.type in (tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER) or
                             t.type == tokenize.OP and t.string == ";"):
            break
        end += 1
    body = tokens[i + 1:end]
    if not body:
        return [(name.end[0], name.end[1], name.end[1], "()")]
    last = body[-1]
    newline = name.string == "print" and last.type == tokenize.OP and last.string == "," and len(body) > 1
    stream = ""
    if name.string == "print" and body[0].string == ">>":  # `print >>f, x`: the stream goes last, as `file=`
        comma = next((j for j, t in enumerate(body) if t.type == tokenize.OP and t.string == ","), len(body))
        stream = "".join(t.string for t in body[1:comma])
        body = body[comma + 1:]
        if not body or body == [last] and newline:
            return [(name.end[0], name.end[1], last.end[1], f"(file={stream})")] if last.end[0] == name.end[0] \
                else []
    first = body[0]
    if first.start[0] != name.end[0]:
        return []  # a statement continued on the next line before its first word: left as it is
    extras = (["end=' '"] if newline else []) + ([f"file={stream}"] if stream else [])
    tail = ((" " if newline else ", ") + ", ".join(extras)) if extras else ""
    return [(name.end[0], name.end[1], first.start[1], "("), (last.end[0], last.end[1], last.end[1], tail + ")")]


def _backquote(tokens: list, i: int) -> list[tuple[int, int, int, str]]:
    """`` `x` `` → `repr(x)`: the opening quote of a pair becomes `repr(` and the closing one `)`."""
    opened = sum(1 for t in tokens[:i] if t.type == tokenize.ERRORTOKEN and t.string == "`") % 2 == 0
    tok = tokens[i]
    return [(tok.start[0], tok.start[1], tok.end[1], "repr(" if opened else ")")]


def _apply(lines: list[str], edits: list[tuple[int, int, int, str]]) -> list[str]:
    for row, col, end, text in sorted(edits, key=lambda e: (e[0], e[1], e[2]), reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + text + line[end:]
    return lines
