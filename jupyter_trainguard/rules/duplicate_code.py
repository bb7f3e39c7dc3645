"""PIPE003: the same substantial logic in several notebooks (a training loop, a preprocessing function, a long
run of computing statements), found by normalised-AST hashing, so it can move into the components. Copied imports,
plotting and display snippets, constants and other boilerplate do not count."""

from __future__ import annotations

import ast
import builtins
from collections import defaultdict
from collections.abc import Iterable, Iterator

from ..findings import Location, cell_label
from ..suppression import suppressing
from .context import NotebookContext
from .registry import rule

try:  # hashlib's own blake2b, without loading OpenSSL (`import hashlib` does, a few ms at every start-up)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python built without the module
    from hashlib import blake2b

WINDOW = 6  # consecutive computing statements that make a straight-line unit
MIN_WINDOW_NODES = 48  # AST nodes such a window must hold
MIN_BLOCK_STATEMENTS = 3  # statements (nested ones included) of a function/class/loop body
MIN_BLOCK_LOGIC = 2  # of which this many compute (are not plotting/printing/constants)
MIN_BLOCK_NODES = 28  # AST nodes of a function, class or loop, body included
_BUILTINS = frozenset(dir(builtins))
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_BODIES = ("body", "orelse", "finalbody")
# calls that show, print, plot, configure or seed: not logic worth sharing
_SHOW_ROOTS = frozenset({"plt", "sns", "px", "go", "pyplot", "matplotlib", "seaborn", "plotly", "warnings",
                         "display", "print", "pprint", "IPython", "tqdm", "logging", "logger", "mlflow", "wandb"})
_SHOW_ATTRS = frozenset({
    "plot", "show", "hist", "scatter", "imshow", "bar", "barh", "boxplot", "pie", "heatmap", "pairplot",
    "countplot", "lineplot", "scatterplot", "histplot", "kdeplot", "figure", "subplot", "subplots", "title",
    "suptitle", "set_title", "xlabel", "ylabel", "set_xlabel", "set_ylabel", "xlim", "ylim", "set_xlim",
    "set_ylim", "xticks", "yticks", "set_xticks", "set_yticks", "set_xticklabels", "set_yticklabels", "legend",
    "grid", "axis", "tight_layout", "savefig", "colorbar", "text", "annotate", "axhline", "axvline", "fill_between",
    "errorbar", "set", "set_style", "set_theme", "set_palette", "head", "tail", "describe", "sample",
    "value_counts", "display", "print", "set_option", "filterwarnings", "simplefilter", "manual_seed", "seed",
    "set_seed", "log_metric", "log_param", "log_params", "log_metrics", "log", "info", "debug", "warning",
    "close", "clf", "cla", "draw", "pause", "write",
})


_BODY_FIELDS = frozenset(_BODIES + ("handlers",))
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(cls: type) -> tuple[str, ...]:
    out = _FIELDS.get(cls)
    if out is None:
        named = cls in _DEFS
        out = _FIELDS[cls] = tuple(n for n in cls._fields if n not in ("ctx", "type_comment")
                                   and not (n == "name" and named) and not (n == "arg" and cls is ast.arg))
    return out  # renamed functions and parameters are still the same code


def _dump(node: object, keep: set[str], out: list[str], bodies: bool = False) -> int:
    """Append a position-free dump of `node` with local names replaced by `_` (and, with `bodies`, the statements
    of compound statements included, docstrings and def/class names left out); returns the node count."""
    if isinstance(node, ast.Name):
        out.append(node.id if node.id in keep else "_")
        return 1
    if isinstance(node, ast.AST):
        out.append(type(node).__name__ + "(")
        count = 1
        for name in _fields(type(node)):
            if name in _BODY_FIELDS:
                if not bodies:
                    continue
                value = getattr(node, name, None)
                if isinstance(value, list) and name != "handlers":
                    value = [x for x in value if not _is_docstring(x)]
            else:
                value = getattr(node, name, None)
            count += _dump(value, keep, out, bodies)
            out.append(",")
        out.append(")")
        return count
    if isinstance(node, list):
        out.append("[")
        count = 0
        for x in node:
            count += _dump(x, keep, out, bodies)
        out.append("]")
        return count
    out.append(repr(node))
    return 0


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _dotted(func: ast.expr) -> list[str]:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    while isinstance(func, (ast.Call, ast.Subscript)):  # df.groupby(k).mean().plot(): the chain's root
        func = func.func if isinstance(func, ast.Call) else func.value
        while isinstance(func, ast.Attribute):
            func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return list(reversed(parts))


def _literal(node: ast.expr | None) -> bool:
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is None or _literal(k) for k in node.keys) and all(_literal(v) for v in node.values)
    return isinstance(node, ast.UnaryOp) and _literal(node.operand)


def is_boilerplate(stmt: ast.stmt) -> bool:
    """Imports, constants, plotting, printing, display, seeding and logging calls: code that is copied between
    notebooks without being logic that belongs in shared components."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Pass, ast.Global, ast.Nonlocal)):
        return True
    if isinstance(stmt, ast.Expr):
        value = stmt.value
        if isinstance(value, (ast.Constant, ast.Name, ast.Attribute, ast.Subscript)):
            return True
        if isinstance(value, ast.Call):
            parts = _dotted(value.func)
            return bool(parts) and (parts[0] in _SHOW_ROOTS or parts[-1] in _SHOW_ATTRS)
        return False
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        value = stmt.value
        if value is None or _literal(value):
            return True
        return isinstance(value, ast.Call) and (_dotted(value.func)[:1] or [""])[0] in _SHOW_ROOTS
    return False


def _block_shape_is_substantial(block: ast.stmt) -> bool:
    """Enough statements, enough of them computing (cheap: checked before the block is dumped)."""
    body = block.body + block.orelse if isinstance(block, _LOOPS) else block.body
    n = logic = 0
    for s in _walk_statements(body):
        n += 1
        logic += not is_boilerplate(s)
    return n >= MIN_BLOCK_STATEMENTS and logic >= MIN_BLOCK_LOGIC


def _walk_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        if _is_docstring(stmt):
            continue
        yield stmt
        for field in _BODIES:
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _walk_statements(inner)
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _walk_statements(handler.body)


def logic_units(body: list[ast.stmt], keep: set[str]) -> Iterator[tuple[str, ast.stmt, ast.stmt]]:
    """(normalised key, first statement, last statement) of each substantial unit: a function, class or loop
    (whole, body included) of some size that computes, and each run of WINDOW consecutive computing statements
    outside them. Boilerplate neither counts nor breaks a run; a function, class or loop ends it."""
    run: list[ast.stmt] = []

    def flush() -> Iterator[tuple[str, ast.stmt, ast.stmt]]:
        if len(run) >= WINDOW:  # statements are dumped only when a window can form
            keys = []
            for stmt in run:
                out: list[str] = []
                nodes = _dump(stmt, keep, out)
                keys.append(("".join(out), nodes))
            for i in range(len(run) - WINDOW + 1):
                chunk = keys[i : i + WINDOW]
                if sum(n for _, n in chunk) >= MIN_WINDOW_NODES and any("Call(" in k for k, _ in chunk):
                    yield "\n".join(k for k, _ in chunk), run[i], run[i + WINDOW - 1]
        run.clear()

    def visit(stmts: list[ast.stmt]) -> Iterator[tuple[str, ast.stmt, ast.stmt]]:
        for stmt in stmts:
            if isinstance(stmt, _DEFS + _LOOPS):
                yield from flush()
                if _block_shape_is_substantial(stmt):
                    out: list[str] = []
                    nodes = _dump(stmt, keep, out, bodies=True)
                    key = "".join(out)
                    if nodes >= MIN_BLOCK_NODES and "Call(" in key:
                        yield key, stmt, stmt
                    yield from visit(stmt.body)  # a copied loop inside an edited function still counts
                    yield from flush()
                continue  # a small function or loop (a plotting loop, a one-line helper) is no unit of its own
            if not is_boilerplate(stmt):
                run.append(stmt)
            for field in _BODIES:
                inner = getattr(stmt, field, None)
                if isinstance(inner, list):
                    yield from visit(inner)
            for handler in getattr(stmt, "handlers", []) or []:
                yield from visit(handler.body)

    yield from visit(body)
    yield from flush()


_UNITS_CACHE: dict[tuple[str, frozenset[str]], list[tuple[str, int, int]]] = {}
_UNITS_CACHE_MAX = 4096


def _cell_units(code: str, tree: ast.Module, aliases: frozenset[str]) -> list[tuple[str, int, int]]:
    """(digest, first line, last line) of the cell's units, in the cell's Python lines; memoised by code and the
    notebook's import aliases (a re-analysed session or a copied cell is hashed once)."""
    key = (code, aliases)
    hit = _UNITS_CACHE.get(key)
    if hit is None:
        hit = [(blake2b(k.encode(), digest_size=12).hexdigest(), first.lineno, last.end_lineno or last.lineno)
               for k, first, last in logic_units(tree.body, set(aliases) | _BUILTINS)]
        if len(_UNITS_CACHE) >= _UNITS_CACHE_MAX:
            _UNITS_CACHE.clear()
        _UNITS_CACHE[key] = hit
    return hit


def collect_windows(ctx: NotebookContext) -> list[tuple[str, int, int, int, int | None]]:
    """(hash, cell index, first line, last line, execution count) of each substantial unit of logic.

    When the configuration classifies notebooks (standard/experimental), only those notebooks take part."""
    cfg = ctx.config
    if (cfg.standard or cfg.experimental) and ctx.kind == "other":
        return []
    aliases = frozenset(ctx.parsed.aliases)
    out = []
    for cell, tree in ctx.parsed.trees:
        try:
            units = _cell_units(cell.python or "", tree, aliases)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for digest, first, last in units:
            line, end = cell.source_line(first), cell.source_line(last)
            if suppressing(cell, line, end, "PIPE003"):
                continue
            out.append((digest, cell.index, line, end, cell.execution_count))
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
        where_text = "; ".join(f"{o} ({cell_label(c)}, line {ln})" for o, (c, ln) in others)
        yield (Location(path=path, cell=cell, line=line, end_line=end),
               f"Lines {line}-{end} of this cell duplicate code in {where_text}.",
               {"other_path": others[0][0], "other_cell": others[0][1][0], "other_line": others[0][1][1],
                "others": [o for o, _ in others], "lines": [line, end]})
