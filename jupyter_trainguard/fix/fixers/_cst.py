"""Small libcst helpers shared by the fixers: keyword lookup and text edits that keep the call's layout."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..context import FixContext, View
from ..source import ParsedSource
from ..work import TextEdit


def kwarg(call: Any, name: str) -> Any | None:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            return a
    return None


def has_star_kwargs(call: Any) -> bool:
    return any(a.star == "**" for a in call.args)


def is_name(expr: Any, value: str) -> bool:
    import libcst as cst

    return isinstance(expr, cst.Name) and expr.value == value


def add_keyword(parsed: ParsedSource, call: Any, name: str, value: str) -> list[TextEdit]:
    """Edits appending `name=value` to a call's arguments, following its layout (one argument per line or
    inline) and keeping a comment after the last argument on its line."""
    text = f"{name}={value}"
    args = list(call.args)
    _, _, el, ec = parsed.span(call)
    if not args:
        return [TextEdit.insert(el, ec - 1, text)]
    last = args[-1]
    al, ac, _, _ = parsed.span(last)
    _, _, vel, vec = parsed.span(last.value)
    prev_line = parsed.span(args[-2])[0] if len(args) > 1 else parsed.span(call.func)[2]
    own_line = al > prev_line and not parsed.line(al)[:ac].strip()
    if not own_line:
        return [TextEdit.insert(vel, vec, f", {text}")]
    indent = parsed.line(al)[:ac]
    line = parsed.line(vel)
    rest = line[vec:].strip()
    if rest.startswith("#"):  # `b  # note` -> `b,  # note` + new line
        return [TextEdit.insert(vel, vec, ","), TextEdit.insert(vel, len(line), f"\n{indent}{text}")]
    if rest.startswith(",") and rest[1:].strip().startswith("#"):  # `b,  # note`
        return [TextEdit.insert(vel, len(line), f"\n{indent}{text},")]
    return [TextEdit.insert(vel, vec, f",\n{indent}{text}")]


def replace_node(parsed: ParsedSource, node: Any, text: str) -> TextEdit:
    sl, sc, el, ec = parsed.span(node)
    return TextEdit(sl, sc, el, ec, text)


@dataclass
class Target:
    view: View
    node: Any
    what: str  # e.g. the callee, for messages

    @property
    def line(self) -> int:
        return self.view.parsed.span(self.node)[0]

    @property
    def end_line(self) -> int:
        return self.view.parsed.span(self.node)[2]

    def key(self) -> tuple:
        """Identifies the target across re-parses: cell, original line, what, and which of the same calls on that
        line it is (three `RandomForestClassifier(...)` on one line are three targets, each fixed once)."""
        return (id(self.view.cell), self.view.cell.original_line(self.line), self.what, self._ordinal())

    def _ordinal(self) -> int:
        parsed = self.view.parsed
        line = self.line
        callee = parsed.text(self.node.func) if hasattr(self.node, "func") else None
        n = 0
        for call in parsed.calls():  # in source order
            if call is self.node:
                return n
            if parsed.span(call)[0] == line and parsed.text(call.func) == callee:
                n += 1
        return n


def fix_each(ctx: FixContext, find: Callable[[FixContext], Iterator[Target]],
             fix: Callable[[FixContext, Target], bool], limit: int = 500) -> int:
    """Fix targets one at a time, re-finding them after each edit (positions move); returns the fixes made."""
    seen: set[tuple] = set()
    made = 0
    for _ in range(limit):
        target = next((t for t in find(ctx) if t.key() not in seen), None)
        if target is None:
            break
        seen.add(target.key())
        if fix(ctx, target):
            made += 1
    return made


def line_indent(parsed: ParsedSource, line: int) -> str:
    text = parsed.line(line)
    return text[: len(text) - len(text.lstrip())]
