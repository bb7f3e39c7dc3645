"""What a fixer sees: the notebook being fixed (parsed with libcst), the engine's findings and the options."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..analysis.parsed import collect_aliases
from ..config import Config
from ..findings import Finding, Report
from ..suppression import suppressing
from .model import SAFE, Change, Left
from .source import ParsedSource, parse_source
from .work import TextEdit, WorkCell, WorkNotebook

if TYPE_CHECKING:
    from .registry import Fixer

SEED_NAMES = ("SEED", "RANDOM_STATE", "RANDOM_SEED", "GLOBAL_SEED", "SEED_VALUE", "RNG_SEED", "SEED_NUMBER")
_SEED_LIKE = re.compile(r"^[A-Z0-9_]*SEED[A-Z0-9_]*$")
DEFAULT_SEED = 42


@dataclass
class View:
    """A code cell parsed for fixing."""

    cell: WorkCell
    parsed: ParsedSource


def cst_dotted(node: Any) -> str:
    """`a.b.c` for a libcst Name/Attribute chain, "" otherwise."""
    import libcst as cst

    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return ""


@dataclass
class EngineFindings:
    """The engine's verdict, used to cross-check each fix target when the rule exists."""

    report: Report | None
    known_rules: set[str] = field(default_factory=set)

    def has_rule(self, rule_id: str) -> bool:
        return rule_id in self.known_rules

    def of(self, rule_id: str) -> list[Finding]:
        return [f for f in (self.report.findings if self.report else []) if f.rule_id == rule_id]

    def ran(self, rule_id: str) -> bool:
        return bool(self.report) and rule_id in self.report.rules_run


class FixContext:
    def __init__(self, work: WorkNotebook, config: Config, engine: EngineFindings, unsafe: bool,
                 selected: set[str]) -> None:
        self.work = work
        self.config = config
        self.engine = engine
        self.unsafe = unsafe
        self.selected = selected  # rule ids whose fixes may run
        self.changes: list[Change] = []
        self.left: list[Left] = []
        self.fixer: Fixer | None = None
        self._views: list[View] | None = None
        self._unparsable: dict[int, str] = {}
        self.created_seed: str | None = None
        self._aliases: tuple[list[View], dict[str, str]] | None = None

    # -- parsing -------------------------------------------------------------------------------------------------
    @property
    def path(self) -> str:
        return self.work.path

    def views(self) -> list[View]:
        """Code cells in document order, parsed; cells that cannot be parsed are noted once and left out."""
        if self._views is None:
            views = []
            for wc in self.work.code_cells():
                if not wc.source.strip():
                    continue
                parsed = parse_source(wc.source)
                if isinstance(parsed, str):
                    self._unparsable.setdefault(id(wc), f"{wc.label()} {parsed}")
                    continue
                views.append(View(wc, parsed))
            self._views = views
        return self._views

    def unparsable(self) -> list[str]:
        return list(self._unparsable.values())

    def unparsable_reason(self, wc: WorkCell) -> str | None:
        """Why this cell could not be parsed ("cell 4 [In 2] <reason>"), or None when it parsed (or was not tried)."""
        return self._unparsable.get(id(wc))

    @property
    def aliases(self) -> dict[str, str]:
        views = self.views()
        if self._aliases is not None and self._aliases[0] is views:
            return self._aliases[1]
        trees = [t for t in (v.parsed.tree() for v in views) if t is not None]
        self._aliases = (views, collect_aliases(trees))
        return self._aliases[1]

    def qualname(self, func: Any, aliases: dict[str, str] | None = None) -> str:
        import libcst as cst

        name = cst_dotted(func)
        if not name:
            return "." + func.attr.value if isinstance(func, cst.Attribute) else ""
        aliases = self.aliases if aliases is None else aliases
        root, _, rest = name.partition(".")
        if root in aliases:
            target = aliases[root]
            return f"{target}.{rest}" if rest else target
        return name

    def calls(self) -> Iterator[tuple[View, Any, str]]:
        """Every call in document order with its resolved qualified name."""
        aliases = self.aliases
        for v in self.views():
            for node in v.parsed.calls():
                yield v, node, self.qualname(node.func, aliases)

    def top_statements(self) -> Iterator[tuple[View, Any]]:
        for v in self.views():
            for stmt in v.parsed.module.body:
                yield v, stmt

    def local_name(self, module: str) -> str | None:
        """The name the notebook binds a module to (`np` for numpy), if it imports it as a whole."""
        for local, target in self.aliases.items():
            if target == module:
                return local
        return None

    def imports_cell(self) -> View | None:
        """The first code cell with a top-level import statement."""
        import libcst as cst

        for v, stmt in self.top_statements():
            if isinstance(stmt, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
                return v
        return None

    def last_import_line(self, view: View) -> int:
        import libcst as cst

        last = 0
        for stmt in view.parsed.module.body:
            if isinstance(stmt, cst.SimpleStatementLine) and any(
                    isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
                last = view.parsed.span(stmt)[2]
        return last

    # -- seed constant -------------------------------------------------------------------------------------------
    def seed_constant(self) -> tuple[View, int, str, int] | None:
        """(view, line, name, value) of the notebook's seed constant, preferring the usual names."""
        import libcst as cst

        found: dict[str, tuple[View, int, str, int]] = {}
        for v, stmt in self.top_statements():
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            for small in stmt.body:
                if isinstance(small, (cst.Assign, cst.AnnAssign)) and isinstance(small.value, cst.Integer):
                    targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                    for t in targets:
                        if isinstance(t, cst.Name) and (t.value in SEED_NAMES or _SEED_LIKE.match(t.value)) \
                                and t.value not in found:
                            found[t.value] = (v, v.parsed.span(stmt)[0], t.value, int(small.value.evaluated_value))
        for name in SEED_NAMES:
            if name in found:
                return found[name]
        return next(iter(found.values()), None)

    def seed_for(self, view: View, line: int) -> str:
        """The expression to pass as a seed at (view, line): the seed constant when it is defined before,
        else its value; a `SEED = 42` line is added after the imports when there is no constant at all."""
        const = self.seed_constant()
        if const is None:
            self.create_seed_constant()
            const = self.seed_constant()
        if const is None:
            return str(DEFAULT_SEED)
        cv, cline, name, value = const
        if self.work.before(cv.cell, cline, view.cell, line):
            return name
        return str(value)

    def create_seed_constant(self, value: int = DEFAULT_SEED) -> None:
        """Add `SEED = value` on the line after the last import of the imports cell (else atop the first cell)."""
        imp = self.imports_cell()
        target = imp or (self.views()[0] if self.views() else None)
        if target is None:
            return
        after = self.last_import_line(target) if imp else 0
        n_lines = target.parsed.source.count("\n") + 1
        if after < n_lines:  # there is a line after the imports: insert before it
            edit = TextEdit.insert(after + 1, 0, f"SEED = {value}\n")
        else:  # the imports end the cell: append
            edit = TextEdit.insert(after, len(target.parsed.line(after)), f"\nSEED = {value}")
        self.edit(target, [edit], summary="added a SEED constant", line=max(after, 1), force_safe=True,
                  detail=f"there was no seed constant; added `SEED = {value}` after the imports so every seed "
                         "in the notebook comes from one place.")
        self.created_seed = "SEED"

    # -- cross-checking with the engine ---------------------------------------------------------------------------
    def allowed(self, rule_id: str, view: View, start: int, end: int | None = None, scope: str = "line") -> bool:
        """May the fix for `rule_id` touch this place? The engine must report the rule there (on those lines, or
        anywhere in the cell with scope="cell") when the rule exists; otherwise the fixer's own detector decides,
        and inline suppressions are honoured."""
        if rule_id not in self.selected:
            return False
        wc = view.cell
        if wc.orig is None:
            return False
        lines = wc.original_lines(start, end or start)
        if self.engine.has_rule(rule_id):
            if not self.engine.ran(rule_id):
                return False
            return any(f.location.cell == wc.orig.index and
                       (scope == "cell" or f.location.line is None or f.location.line in lines)
                       for f in self.engine.of(rule_id))
        if not lines:
            return True
        return suppressing(wc.orig, min(lines), max(lines), rule_id) is None

    def allowed_anywhere(self, rule_id: str) -> bool:
        if rule_id not in self.selected:
            return False
        if self.engine.has_rule(rule_id):
            return self.engine.ran(rule_id) and bool(self.engine.of(rule_id))
        return True

    # -- recording -------------------------------------------------------------------------------------------------
    def edit(self, view: View, edits: list[TextEdit], summary: str, detail: str, line: int | None = None,
             rule_id: str | None = None, force_safe: bool = False) -> bool:
        """Apply edits to a cell (or, for an unsafe fix without --unsafe, leave it for a human)."""
        return self._record(view.cell, lambda: view.cell.apply(edits), summary, detail, line, rule_id, force_safe)

    def insert_cell(self, after: View | None, source: str, summary: str, detail: str,
                    rule_id: str | None = None) -> WorkCell | None:
        holder: list[WorkCell] = []

        def do() -> None:
            holder.append(self.work.insert_after(after.cell if after else None, source))

        if not self._record(None, do, summary, detail, None, rule_id, False):
            return None
        return holder[0]

    def _record(self, wc: WorkCell | None, do, summary: str, detail: str, line: int | None,
                rule_id: str | None, force_safe: bool) -> bool:
        fx = self.fixer
        assert fx is not None
        rid = rule_id or fx.rules[0]
        safety = SAFE if force_safe else fx.safety
        if safety != SAFE and not self.unsafe:
            where = wc.label() if wc is not None else "notebook"
            orig_line = wc.original_line(line) if (wc is not None and line) else None
            self.left.append(Left(self.path, rid, where, orig_line,
                                  f"an unsafe fix is available but was not applied ({summary}); rerun with "
                                  f"--unsafe to apply it. It would resolve this: {detail}", fx.id))
            return False
        orig_line = wc.original_line(line) if (wc is not None and line) else None
        do()
        self._views = None
        target = wc if wc is not None else None
        where = target.label() if target is not None else self._last_inserted_label()
        cell = wc if wc is not None else next((c for c in reversed(self.work.cells) if c.orig is None), None)
        if cell is None:
            position = -1.0
        elif cell.orig is not None:
            position = float(cell.orig.index)
        else:
            position = (cell.inserted_after if cell.inserted_after is not None else -1) + 0.5
        self.changes.append(Change(self.path, rid, fx.id, safety, where, orig_line if wc else None, summary, detail,
                                   position))
        return True

    def _last_inserted_label(self) -> str:
        new = [c for c in self.work.cells if c.orig is None]
        return new[-1].label() if new else "notebook"

    def leave(self, rule_id: str, view: View | None, line: int | None, reason: str) -> None:
        where = view.cell.label() if view is not None else "notebook"
        orig_line = view.cell.original_line(line) if (view is not None and line) else None
        self.left.append(Left(self.path, rule_id, where, orig_line, reason, self.fixer.id if self.fixer else None))
