"""PIPE003: the same code in several notebooks (normalised-AST windows), so it can move into the components."""

from __future__ import annotations

import ast
import builtins
import hashlib
from collections import defaultdict
from collections.abc import Iterable, Iterator

from ..findings import Location
from ..suppression import suppressing
from .context import NotebookContext
from .registry import rule

WINDOW = 5  # statements in a window
MIN_NODES = 24  # AST nodes a window must hold to be worth reporting
_BUILTINS = frozenset(dir(builtins))


def _dump(node: object, keep: set[str], out: list[str]) -> int:
    """Append a position-free dump of `node` with local names replaced by `_`; returns the node count."""
    if isinstance(node, ast.Name):
        out.append(node.id if node.id in keep else "_")
        return 1
    if isinstance(node, ast.AST):
        out.append(type(node).__name__ + "(")
        count = 1
        for name in node._fields:
            if name in ("body", "orelse", "finalbody", "handlers", "ctx", "type_comment"):
                continue
            count += _dump(getattr(node, name, None), keep, out)
            out.append(",")
        out.append(")")
        return count
    if isinstance(node, list):
        out.append("[")
        count = sum(_dump(x, keep, out) for x in node)
        out.append("]")
        return count
    out.append(repr(node))
    return 0


def _flatten(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements in source order, descending into compound statements (their headers count as statements)."""
    for stmt in body:
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                   ast.ClassDef)):
                yield from _flatten(inner)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _flatten(handler.body)


def _stmt_key(stmt: ast.stmt, keep: set[str]) -> tuple[str, int]:
    """A formatting- and name-independent key for one statement (compound statements: their header only)."""
    out: list[str] = []
    count = _dump(stmt, keep, out)
    return "".join(out), count


def collect_windows(ctx: NotebookContext) -> list[tuple[str, int, int, int, int | None]]:
    """(hash, cell index, first line, last line, execution count) of each substantial window.

    When the configuration classifies notebooks (standard/experimental), only those notebooks take part."""
    cfg = ctx.config
    if (cfg.standard or cfg.experimental) and ctx.kind == "other":
        return []
    keep = set(ctx.parsed.aliases) | _BUILTINS
    out = []
    for cell, tree in ctx.parsed.trees:
        stmts = [s for s in _flatten(tree.body) if not isinstance(s, (ast.Import, ast.ImportFrom))]
        if len(stmts) < WINDOW:
            continue
        try:
            keys = [_stmt_key(s, keep) for s in stmts]
        except (SyntaxError, ValueError, RecursionError):
            continue
        for i in range(len(stmts) - WINDOW + 1):
            chunk = keys[i: i + WINDOW]
            if sum(n for _, n in chunk) < MIN_NODES or not any("Call(" in k for k, _ in chunk):
                continue
            first, last = stmts[i], stmts[i + WINDOW - 1]
            line = cell.source_line(first.lineno)
            if suppressing(cell, line, cell.source_line(last.end_lineno or last.lineno), "PIPE003"):
                continue
            digest = hashlib.blake2b("\n".join(k for k, _ in chunk).encode(), digest_size=12).hexdigest()
            out.append((digest, cell.index, line, cell.source_line(last.end_lineno or last.lineno),
                        cell.execution_count))
    return out


@rule(
    id="PIPE003", name="duplicate-code-across-notebooks", category="pipeline", severity="warning",
    rationale="Training logic copied between notebooks drifts apart; it belongs in the shared components.",
    impact="Copies fixed in one notebook stay broken in the others, so experiments stop being comparable.",
    fix="Extract the duplicated code into a function in the components package and call it from each notebook.",
    scope="project", collect=collect_windows,
    bad="# 01b.ipynb and 01c.ipynb both contain the same 20-line training loop",
    good="from notebooks.components.training_loop import train\nmetrics = train(model, loader, optimizer)",
)
def duplicate_code(items: Iterable[tuple[str, list]]) -> Iterator[tuple[Location, str, dict]]:
    """Reports, in each notebook, the regions whose normalised statements also appear in another notebook."""
    where: dict[str, list[tuple[str, int, int, int, int | None]]] = defaultdict(list)
    for path, windows in items:
        for digest, cell, line, end, count in windows:
            where[digest].append((path, cell, line, end, count))
    # one finding per (notebook, cell): the span of its shared windows and every notebook it shares them with
    spans: dict[tuple[str, int], list[int]] = {}
    partners: dict[tuple[str, int], dict[str, tuple[int, int]]] = defaultdict(dict)
    for hits in where.values():
        if len({h[0] for h in hits}) < 2:
            continue
        for path, cell, line, end, _ in hits:
            span = spans.setdefault((path, cell), [line, end])
            span[0], span[1] = min(span[0], line), max(span[1], end)
            for o_path, o_cell, o_line, _, _ in hits:
                if o_path != path:
                    partners[(path, cell)].setdefault(o_path, (o_cell, o_line))
    for (path, cell), (line, end) in sorted(spans.items()):
        others = sorted(partners[(path, cell)].items())
        where_text = "; ".join(f"{o} (cell {c + 1}, line {ln})" for o, (c, ln) in others)
        yield (Location(path=path, cell=cell, line=line, end_line=end),
               f"Lines {line}-{end} of this cell duplicate code in {where_text}.",
               {"other_path": others[0][0], "other_cell": others[0][1][0], "other_line": others[0][1][1],
                "others": [o for o, _ in others], "lines": [line, end]})
