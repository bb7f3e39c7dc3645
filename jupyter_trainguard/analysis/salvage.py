"""Read the statements of a cell that one broken statement stops from parsing.

A saved notebook often keeps a cell its author broke after running it (a half-typed line, an unclosed bracket, a
stray indent). Python rejects the whole cell, so every fit and score in it would go unseen. Here the top-level
statement that holds the error is blanked (lines stay where they were, so cells and lines still point at the user's
code) and the rest is parsed again, a few times at most. NB001 still reports the error and says what was skipped.
"""

from __future__ import annotations

import ast
import warnings

_MAX_SKIPS = 4
_CONTINUES = ("else", "elif", "except", "finally", ")", "]", "}")  # lines at column 0 that go on a statement


def salvage(code: str, error: SyntaxError) -> tuple[ast.Module, list[tuple[int, int]]] | None:
    """The tree of `code` without the top-level statements that do not parse, and the (first, last) 1-based lines
    skipped; None when nothing worth reading is left or the errors cannot be placed."""
    lines = code.split("\n")
    skipped: list[tuple[int, int]] = []
    err = error
    for _ in range(_MAX_SKIPS):
        span = _statement_span(lines, (err.lineno or 0) - 1)
        if span is None:
            return None
        first, last = span
        lines[first:last + 1] = [""] * (last + 1 - first)
        skipped.append((first + 1, last + 1))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse("\n".join(lines))
        except SyntaxError as exc:
            err = exc
            continue
        except (ValueError, RecursionError, MemoryError):
            return None
        return (tree, skipped) if tree.body else None
    return None


def _starts_statement(line: str) -> bool:
    return bool(line) and not line[0].isspace() and not line.startswith("#") and not line.startswith(_CONTINUES)


def _statement_span(lines: list[str], index: int) -> tuple[int, int] | None:
    """The lines of the top-level statement (with its decorators) that holds line `index`: from the last line at
    column 0 at or before it up to the next one after it."""
    if not 0 <= index < len(lines):
        return None
    first = next((i for i in range(index, -1, -1) if _starts_statement(lines[i])), None)
    if first is None:  # the cell is indented as a whole: no statement of it can be told apart
        return None
    while first > 0 and lines[first - 1].startswith("@"):
        first -= 1
    last = next((i - 1 for i in range(index + 1, len(lines)) if _starts_statement(lines[i])), len(lines) - 1)
    return first, last
