"""What a rule sees: the parsed notebook, its class (standard/experimental) and the project configuration."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..analysis.parsed import ParsedNotebook
from ..config import Config
from ..notebook.model import Cell, Notebook

_MISSING = object()


@dataclass
class Constant:
    name: str
    value: Any  # the literal value, or _MISSING when not a literal
    cell: Cell
    node: ast.Assign | ast.AnnAssign

    @property
    def is_literal(self) -> bool:
        return self.value is not _MISSING


@dataclass
class NotebookContext:
    notebook: Notebook
    parsed: ParsedNotebook
    config: Config
    kind: str = "other"
    cache: dict[str, Any] = field(default_factory=dict)  # rules may share derived analyses through this

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
