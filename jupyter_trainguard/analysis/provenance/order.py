"""The order in which the interpreter replays the cells."""

from __future__ import annotations

import ast
import builtins

from ..parsed import ParsedNotebook, tree_nodes


def replay_order(parsed: ParsedNotebook) -> list:
    """The cells in execution-count order, else top to bottom, with the earlier runs the counts hide.

    Counts only record each cell's last run: when a cell reads a name that only a later cell defines (a split
    re-run after the cells that scored on it, imports re-run after the cells that used them), that later cell
    had run before it too, and is replayed there as well. When the counts need more such runs than the cells
    in document order do, they do not describe how the state was built and the document order is used."""
    cells = list(parsed.cells)
    names = {id(pc): run_names(pc.tree) for pc in cells if pc.tree is not None}
    document = sorted(cells, key=lambda pc: pc.cell.index)
    by_document, moved = _with_earlier_runs(document, names)
    if [pc.cell.index for pc in cells] == [pc.cell.index for pc in document]:
        return by_document
    by_counts, counted = _with_earlier_runs(cells, names)
    return by_counts if counted <= moved else by_document


def _with_earlier_runs(cells: list, names: dict) -> tuple[list, int]:
    """The cells, each preceded by a run of the later cells that define the names it reads unbound (and of the
    cells those need first), each such cell at most once; the cost: how many runs were added, plus the names
    read unbound that no cell could define in time."""
    out: list = []
    defined: set[str] = set(dir(builtins))
    early: set[int] = set()
    unresolved = 0

    def satisfy(i: int, missing: set[str], depth: int) -> set[str]:
        nonlocal defined
        for later in cells[i + 1:]:
            if not missing or depth > 3:
                break
            if id(later) in early or id(later) not in names or not names[id(later)][0] & missing:
                continue
            l_stores, l_loads = names[id(later)]
            early.add(id(later))
            if satisfy(i, l_loads - defined - l_stores, depth + 1):
                early.discard(id(later))  # what it reads itself cannot be bound in time
                continue
            out.append(later)
            defined |= l_stores
            missing = missing - l_stores
        return missing

    anywhere = set().union(*(names[id(pc)][0] for pc in cells if id(pc) in names))
    for i, pc in enumerate(cells):
        stores, loads = names.get(id(pc), (set(), set()))
        missing = loads - defined - stores
        if missing:
            unresolved += len(satisfy(i, missing, 0) & anywhere)
        out.append(pc)
        defined |= stores
    return out, len(early) + unresolved


def names_of(tree: ast.Module) -> tuple[set[str], set[str]]:
    """Top-level names a cell defines, and the names it reads before defining them itself."""
    stores: set[str] = set()
    loads: set[str] = set()
    for node in tree_nodes(tree):
        if isinstance(node, ast.Name):
            (stores if isinstance(node.ctx, ast.Store) else loads).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            stores.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.arg):
            stores.add(node.arg)
    return stores, loads


def run_names(tree: ast.Module | ast.FunctionDef) -> tuple[set[str], set[str]]:
    """The names a cell (or a function's body) binds and reads when it runs (a function defined in it binds and
    reads its names only when it is called)."""
    stores: set[str] = set()
    loads: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    ast_type, name_type, defs = ast.AST, ast.Name, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    while todo:
        node = todo.pop()
        if isinstance(node, name_type):
            (stores if isinstance(node.ctx, ast.Store) else loads).add(node.id)
            continue
        if isinstance(node, defs):
            stores.add(node.name)
            todo.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            stores.update((a.asname or a.name).split(".")[0] for a in node.names)
        for field in node._fields:  # (`ast.iter_child_nodes` without its generator overhead)
            value = getattr(node, field, None)
            if isinstance(value, list):
                todo.extend(x for x in value if isinstance(x, ast_type))
            elif isinstance(value, ast_type):
                todo.append(value)
    return stores, loads
