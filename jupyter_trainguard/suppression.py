"""Inline suppression: `# trainguard: ignore[ID, ...]` on a line, or before any code at the top of a cell."""

from __future__ import annotations

import re

from .findings import FrozenRecord
from .notebook.model import Cell

# compiled on first use (by `re`, which keeps it): most cells have no directive, many scans none at all
_DIRECTIVE = r"#\s*trainguard\s*:\s*ignore(?:\[(?P<ids>[^\]]*)\])?"


class Directive(FrozenRecord):
    """One `# trainguard: ignore[...]` comment."""

    ids: tuple[str, ...]  # empty means every rule
    line: int | None  # None: the whole cell

    def __init__(self, ids: tuple[str, ...], line: int | None) -> None:
        self.__dict__.update(ids=ids, line=line)

    def covers(self, rule_id: str) -> bool:
        return not self.ids or any(rule_id.upper().startswith(i.upper()) for i in self.ids)

    def describe(self) -> str:
        what = "[" + ", ".join(self.ids) + "]" if self.ids else ""
        where = "cell" if self.line is None else f"line {self.line}"
        return f"inline '# trainguard: ignore{what}' ({where})"


def directives(cell: Cell) -> list[Directive]:
    if "trainguard" not in cell.source:
        return []
    out: list[Directive] = []
    code_seen = False
    for n, line in enumerate(cell.source.split("\n"), start=1):
        stripped = line.strip()
        m = re.search(_DIRECTIVE, line, re.IGNORECASE)
        if m:
            ids = tuple(i.strip() for i in (m.group("ids") or "").split(",") if i.strip())
            at_top = not code_seen and stripped.startswith("#")
            out.append(Directive(ids, None if at_top else n))
        if stripped and not stripped.startswith("#") and not stripped.startswith("%%"):
            code_seen = True
    return out


def suppressing(cell: Cell | None, line: int | None, end_line: int | None, rule_id: str) -> Directive | None:
    """The directive that silences `rule_id` at this place, if any (a statement's last line counts too)."""
    if cell is None:
        return None
    for d in directives(cell):
        if not d.covers(rule_id):
            continue
        if d.line is None or (line is not None and line <= d.line <= (end_line or line)):
            return d
    return None
