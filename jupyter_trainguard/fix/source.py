"""Parse a cell's source with libcst, IPython syntax hidden behind same-shaped placeholders.

Escaped lines (`%magic`, `!cmd`, `x = !ls`, `obj?`, a leading `%%magic`) are replaced line for line by
`__tg_magic_N__()` calls at the same indentation, so every other line keeps its line and column. Edits are then
made as text on the *original* source at those positions, so magics are never rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..notebook.ipython_syntax import PYTHON_BODY_MAGICS, split_cell_magic

_ASSIGN_ESCAPE = re.compile(r"^[\w\s,.\[\]()*]+=[ \t]*[%!][A-Za-z_]")
PLACEHOLDER = "__tg_magic_{}__()"


@dataclass
class ParsedSource:
    """A cell parsed by libcst with position metadata; `code` is the placeholder text that was parsed."""

    source: str
    code: str
    module: Any  # libcst.Module
    positions: Any  # Mapping[CSTNode, CodeRange]
    parents: Any  # Mapping[CSTNode, CSTNode]
    magics: int = 0

    def span(self, node) -> tuple[int, int, int, int]:
        """(start line, start column, end line, end column): lines 1-based, columns 0-based characters."""
        r = self.positions[node]
        return r.start.line, r.start.column, r.end.line, r.end.column

    def text(self, node) -> str:
        return self.module.code_for_node(node)

    def calls(self) -> list:
        """Every libcst Call node of the cell, in source order (computed once per parsed source)."""
        cached = self.__dict__.get("_calls")
        if cached is None:
            import libcst as cst

            cached = [n for n in self.positions if isinstance(n, cst.Call)]
            cached.sort(key=lambda n: (self.positions[n].start.line, self.positions[n].start.column))
            self.__dict__["_calls"] = cached
        return cached

    def tree(self):
        """The cell's `ast` module (None when `ast` cannot parse it), computed once."""
        if "_tree" not in self.__dict__:
            import ast

            try:
                self.__dict__["_tree"] = ast.parse(self.code)
            except (SyntaxError, ValueError):
                self.__dict__["_tree"] = None
        return self.__dict__["_tree"]

    def line(self, n: int) -> str:
        lines = self.source.split("\n")
        return lines[n - 1] if 0 < n <= len(lines) else ""


def placeholder_code(source: str) -> tuple[str | None, int, str]:
    """(code for libcst, placeholders used, reason when the cell is not Python)."""
    magic, _, _ = split_cell_magic(source)
    if magic is not None and magic not in PYTHON_BODY_MAGICS:
        return None, 0, f"cell magic %%{magic} is not Python"
    out: list[str] = []
    n = 0
    continuation = False
    first_code = True
    for line in source.split("\n"):
        stripped = line.strip()
        escaped = continuation or (first_code and stripped.startswith("%%")) or _is_escape(stripped)
        if stripped and not stripped.startswith("#"):
            first_code = False
        if escaped:
            out.append(line[: len(line) - len(line.lstrip())] + PLACEHOLDER.format(n))
            n += 1
            continuation = line.rstrip().endswith("\\")
        else:
            out.append(line)
    return "\n".join(out), n, ""


def _is_escape(stripped: str) -> bool:
    if not stripped or stripped.startswith("#"):
        return False
    if stripped[0] in "%!?":
        return True
    if stripped.endswith("?") and "#" not in stripped:
        return stripped.count("'") % 2 == 0 and stripped.count('"') % 2 == 0
    return bool(_ASSIGN_ESCAPE.match(stripped))


@lru_cache(maxsize=512)
def parse_source(source: str) -> ParsedSource | str:
    """The parsed cell, or the reason it cannot be edited (cached: unchanged cells are parsed once)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

    code, n, reason = placeholder_code(source)
    if code is None:
        return reason
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError as exc:
        return f"cannot be parsed as Python (line {exc.raw_line}: {exc.message})"
    except Exception as exc:  # libcst raises a few other errors on odd input
        return f"cannot be parsed as Python ({type(exc).__name__})"
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    meta = wrapper.resolve_many([PositionProvider, ParentNodeProvider])
    positions, parents = meta[PositionProvider], meta[ParentNodeProvider]
    return ParsedSource(source=source, code=code, module=module, positions=positions, parents=parents, magics=n)
