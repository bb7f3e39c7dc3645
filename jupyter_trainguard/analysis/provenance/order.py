"""The order in which the interpreter replays the cells."""

from __future__ import annotations

import ast
import builtins

from ..parsed import ParsedNotebook


def replay_order(parsed: ParsedNotebook) -> list:
    """The cells in execution-count order when that order could have run in a fresh kernel, else top to bottom.

    Counts only record each cell's last run: when a cell reads a name that only a later-counted cell defines
    (imports re-run after the cells that used them), the counts do not describe how the state was built."""
    cells = list(parsed.cells)
    indexes = [pc.cell.index for pc in cells]
    if indexes == sorted(indexes):
        return cells
    document = sorted(cells, key=lambda pc: pc.cell.index)
    defined: set[str] = set(dir(builtins))
    for pc in cells:
        if pc.tree is None:
            continue
        stores, loads = names_of(pc.tree)
        if loads - defined - stores:
            return document
        defined |= stores
    return cells


def names_of(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Top-level names a cell defines, and the names it reads before defining them itself."""
    stores: set[str] = set()
    loads: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (stores if isinstance(node.ctx, ast.Store) else loads).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(node.name)
            for a in ast.walk(node.args) if not isinstance(node, ast.ClassDef) else ():
                if isinstance(a, ast.arg):
                    stores.add(a.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stores.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            stores.add(node.arg)
    return stores, loads
