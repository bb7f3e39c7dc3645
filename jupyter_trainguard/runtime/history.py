"""Facts the runtime needs from the executed cells, gathered in one AST pass per cell and cached by source.

A 100-cell session re-analysed before every guarded cell must stay cheap: each cell's facts are computed once
(keyed by its code) and only the import-alias resolution is redone.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..analysis.parsed import dotted

_CACHE: dict[str, CellFacts] = {}
_CACHE_MAX = 4096
SPLIT_FUNCS = frozenset({"train_test_split", "random_split"})


@dataclass
class CellFacts:
    top_calls: list[str] = field(default_factory=list)  # dotted callee names outside function bodies
    helpers: dict[str, list[str]] = field(default_factory=dict)  # function name -> dotted callees inside it
    split_assigns: list[tuple[str, list[str | None]]] = field(default_factory=list)  # (split func, targets)
    # (aliases token, top_calls resolved, helpers with their callees resolved, what callers derived from those
    # for this cell): see `resolved_calls`
    resolved: tuple | None = field(default=None, repr=False, compare=False)


def _scan(tree: ast.AST) -> CellFacts:
    facts = CellFacts()
    stack: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while stack:
        node, func = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            func = node.name
            facts.helpers.setdefault(func, [])
        elif isinstance(node, ast.Call):
            name = dotted(node.func)
            if name:
                (facts.helpers[func] if func else facts.top_calls).append(name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 \
                and isinstance(node.targets[0], (ast.Tuple, ast.List)):
            fname = dotted(node.value.func).rsplit(".", 1)[-1]
            if fname in SPLIT_FUNCS:
                facts.split_assigns.append(
                    (fname, [e.id if isinstance(e, ast.Name) else None for e in node.targets[0].elts]))
        stack.extend((child, func) for child in ast.iter_child_nodes(node))
    return facts


def facts_for(tree: ast.AST, key: str | None = None) -> CellFacts:
    if key is not None and key in _CACHE:
        return _CACHE[key]
    facts = _scan(tree)
    if key is not None:
        if len(_CACHE) >= _CACHE_MAX:
            _CACHE.clear()
        _CACHE[key] = facts
    return facts


_LAST: list[tuple[tuple, list[CellFacts]]] = []  # the last tuple of pairs asked for, and its facts


def all_facts(trees: Iterable[ast.AST | tuple[str, ast.AST]]) -> list[CellFacts]:
    """Facts for trees, or for (source, tree) pairs (cached by source). A tuple (the guard's session, which its
    seeding, split and runtime checks each ask for) is answered again without a lookup per cell."""
    if type(trees) is tuple and _LAST and _LAST[0][0] is trees:
        return _LAST[0][1]
    out = []
    for item in trees:
        if isinstance(item, tuple):
            out.append(facts_for(item[1], item[0]))
        else:
            out.append(facts_for(item))
    if type(trees) is tuple:
        _LAST[:] = [(trees, out)]
    return out


def resolve(name: str, aliases: dict[str, str]) -> str:
    """`np.random.seed` -> `numpy.random.seed` through the session's import aliases."""
    root, _, rest = name.partition(".")
    if root in aliases:
        target = aliases[root]
        return f"{target}.{rest}" if rest else target
    return name


_ALIASES: list[tuple[dict[str, str], object]] = []  # the last aliases seen and the token that stands for them


def _aliases_token(aliases: dict[str, str]) -> object:
    """The same object for equal aliases on consecutive calls (a session's imports rarely change between cells)."""
    if _ALIASES and _ALIASES[0][0] == aliases:
        return _ALIASES[0][1]
    token = object()
    _ALIASES[:] = [(dict(aliases), token)]
    return token


def resolved_calls(trees: Iterable[ast.AST | tuple[str, ast.AST]], aliases: dict[str, str]
                   ) -> list[tuple[list[str], dict[str, list[str]], dict[str, Any]]]:
    """Per cell: its top-level callees, its helpers' callees (resolved through `aliases`) and a dict where callers
    keep what they derive from those for the cell; all kept on the cell's cached facts while the aliases stay the
    same."""
    token = _aliases_token(aliases)
    out = []
    for f in all_facts(trees):
        hit = f.resolved
        if hit is None or hit[0] is not token:
            hit = f.resolved = (token, [resolve(c, aliases) for c in f.top_calls],
                                {n: [resolve(c, aliases) for c in cs] for n, cs in f.helpers.items()}, {})
        out.append(hit[1:])
    return out
