"""What a rule sees: the parsed notebook, its class (standard/experimental) and the project configuration."""

from __future__ import annotations

import ast
from functools import cached_property
from typing import Any

from ..analysis.parsed import ParsedNotebook
from ..config import Config
from ..findings import FACTORY, Record, factory
from ..notebook.model import Cell, Notebook

_MISSING = object()


class Constant(Record):
    """An UPPER_CASE name assigned at the top level of a cell."""

    name: str
    value: Any  # the literal value, or _MISSING when not a literal
    cell: Cell
    node: ast.Assign | ast.AnnAssign

    def __init__(self, name: str, value: Any, cell: Cell, node: ast.Assign | ast.AnnAssign) -> None:
        self.name = name
        self.value = value
        self.cell = cell
        self.node = node

    @property
    def is_literal(self) -> bool:
        return self.value is not _MISSING


class NotebookContext(Record):
    """One notebook as every rule sees it."""

    notebook: Notebook
    parsed: ParsedNotebook
    config: Config
    kind: str = "other"
    cache: dict[str, Any] = factory(dict)  # rules may share derived analyses through this

    def __init__(self, notebook: Notebook, parsed: ParsedNotebook, config: Config, kind: str = "other",
                 cache: dict[str, Any] = FACTORY) -> None:
        self.notebook = notebook
        self.parsed = parsed
        self.config = config
        self.kind = kind
        self.cache = {} if cache is FACTORY else cache

    @property
    def path(self) -> str:
        return self.notebook.path

    @cached_property
    def constants(self) -> dict[str, Constant]:
        """UPPER_CASE names assigned at the top level of a cell; the last assignment in execution order wins."""
        out: dict[str, Constant] = {}
        for cell, stmt in self.parsed.statements():
            targets: list[ast.expr] = []
            value = None
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            for t in targets:
                if isinstance(t, ast.Name) and t.id.isupper() and value is not None:
                    out[t.id] = Constant(t.id, literal(value), cell, stmt)
                elif isinstance(t, ast.Tuple) and isinstance(value, ast.Tuple) and len(t.elts) == len(value.elts):
                    for tt, vv in zip(t.elts, value.elts):
                        if isinstance(tt, ast.Name) and tt.id.isupper():
                            out[tt.id] = Constant(tt.id, literal(vv), cell, stmt)
        return out


def literal(node: ast.AST) -> Any:
    """The value of a literal expression (including `range(a, b)` and `list(range(...))`), else _MISSING."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id in ("list", "tuple") and len(node.args) == 1:
            inner = literal(node.args[0])
            return list(inner) if inner is not _MISSING else _MISSING
        if node.func.id == "range" and 1 <= len(node.args) <= 3 and not node.keywords:
            vals = [literal(a) for a in node.args]
            if all(isinstance(v, int) and not isinstance(v, bool) for v in vals) and abs(vals[-1]) < 10**6:
                return list(range(*vals))
    return _MISSING
