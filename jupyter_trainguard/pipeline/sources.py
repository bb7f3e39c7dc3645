"""The components' source, read statically: modules, import graph, and calls into the components package."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.parsed import qualname


@dataclass
class ComponentModule:
    """One `.py` file of the components package (`__init__` for the package itself)."""

    name: str  # short name: "training_loop", "__init__"
    module: str  # importable name: "notebooks.components.training_loop"
    path: Path
    tree: ast.Module | None = None
    syntax_error: SyntaxError | None = None
    aliases: dict[str, str] = field(default_factory=dict)  # local name -> qualified name
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = field(default_factory=dict)

    def function(self, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        node = self.defs.get(name)
        return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


@dataclass
class CallSite:
    """A call to a component callable, with the shape `inspect.Signature.bind` needs."""

    target: str  # relative to the package: "training_loop.train", "training_rig.TrainingRig.freeze_layers"
    method: bool  # called on an instance: drop `self`
    nargs: int
    keywords: list[str]
    star: bool
    dstar: bool
    node: ast.Call
    args: list[ast.expr]
    kwargs: dict[str, ast.expr]


@dataclass
class Link:
    """`x = producer(...)` then `consumer(..., x.attr?, ...)`: a value passed from one stage to the next."""

    producer: str
    attr: str | None
    consumer: str
    method: bool
    position: int | None
    keyword: str | None
    node: ast.Call


def load_components(root: Path, folder: str, package: str) -> list[ComponentModule]:
    base = root / folder
    mods: list[ComponentModule] = []
    for path in sorted(base.glob("*.py")):
        short = path.stem
        module = package if short == "__init__" else f"{package}.{short}"
        cm = ComponentModule(short, module, path)
        try:
            cm.tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"), filename=str(path))
        except SyntaxError as exc:
            cm.syntax_error = exc
        except (ValueError, RecursionError) as exc:
            cm.syntax_error = SyntaxError(f"cannot parse: {type(exc).__name__}")
        if cm.tree is not None:
            cm.aliases = module_aliases(cm.tree, module, is_package=short == "__init__")
            for node in cm.tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    cm.defs[node.name] = node
                    cm.aliases.setdefault(node.name, f"{module}.{node.name}")
        mods.append(cm)
    return mods


def module_aliases(tree: ast.Module, module: str, is_package: bool = False) -> dict[str, str]:
    """Import aliases with relative imports resolved against `module`."""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    root = a.name.split(".")[0]
                    aliases.setdefault(root, root)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            for a in node.names:
                if a.name != "*":
                    aliases[a.asname or a.name] = f"{src}.{a.name}" if src else a.name
    return aliases


def import_graph(mods: list[ComponentModule], package: str) -> dict[str, set[str]]:
    """short name -> short names of the components it imports."""
    names = {m.name for m in mods}
    graph: dict[str, set[str]] = {m.name: set() for m in mods}
    for m in mods:
        for target in m.aliases.values():
            if target.startswith(package + "."):
                first = target[len(package) + 1:].split(".")[0]
                if first in names and first != m.name:
                    graph[m.name].add(first)
    return graph


def import_order(mods: list[ComponentModule], package: str) -> list[str]:
    """Dependencies first, so a broken leaf is imported (and blamed) before the modules that need it."""
    graph = import_graph(mods, package)
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(n: str) -> None:
        if state.get(n):
            return
        state[n] = 1
        for dep in sorted(graph.get(n, ())):
            visit(dep)
        order.append(n)

    for n in sorted(graph, key=lambda x: (x != "__init__", x)):
        visit(n)
    return order


def relative_target(name: str, package: str) -> str | None:
    if name.startswith(package + "."):
        return name[len(package) + 1:]
    return None


def _scopes(tree: ast.Module) -> Iterator[tuple[str | None, list[ast.AST]]]:
    """(function name or None for module level, the nodes of that scope)."""
    top: list[ast.AST] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield stmt.name, list(ast.walk(stmt))
        elif isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield f"{stmt.name}.{item.name}", list(ast.walk(item))
        else:
            top.extend(ast.walk(stmt))
    yield None, top


def is_class(target: str, by_name: dict[str, ComponentModule]) -> bool:
    mod, _, attr = target.partition(".")
    cm = by_name.get(mod)
    return bool(cm and isinstance(cm.defs.get(attr), ast.ClassDef))


def calls_in_nodes(nodes: list[ast.AST], aliases: dict[str, str], package: str,
                   by_name: dict[str, ComponentModule]) -> tuple[list[CallSite], list[Link]]:
    """Calls into the components among `nodes` (one scope), and the values passed between them."""
    instances: dict[str, str] = {}  # variable -> component class target
    produced: dict[str, str] = {}  # variable -> producing callable target
    sites: list[CallSite] = []

    def target_of(call: ast.Call) -> tuple[str | None, bool]:
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in instances:
            return f"{instances[func.value.id]}.{func.attr}", True
        return relative_target(qualname(func, aliases), package), False

    assigns = sorted((n for n in nodes if isinstance(n, ast.Assign)), key=lambda n: n.lineno)
    for a in assigns:
        if len(a.targets) == 1 and isinstance(a.targets[0], ast.Name) and isinstance(a.value, ast.Call):
            tgt, _ = target_of(a.value)
            if tgt:
                produced[a.targets[0].id] = tgt
                if is_class(tgt, by_name):
                    instances[a.targets[0].id] = tgt
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        tgt, method = target_of(node)
        if not tgt:
            continue
        pos = [a for a in node.args if not isinstance(a, ast.Starred)]
        kws = {k.arg: k.value for k in node.keywords if k.arg}
        sites.append(CallSite(tgt, method, len(pos), list(kws), len(pos) != len(node.args),
                              any(k.arg is None for k in node.keywords), node, list(node.args), kws))
    links: list[Link] = []
    for s in sites:
        passed: list[tuple[int | None, str | None, ast.expr]] = [(i, None, a) for i, a in enumerate(s.args)]
        passed += [(None, k, v) for k, v in s.kwargs.items()]
        for position, keyword, value in passed:
            var, attr = None, None
            if isinstance(value, ast.Name):
                var = value.id
            elif isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name):
                var, attr = value.value.id, value.attr
            if var in produced:
                links.append(Link(produced[var], attr, s.target, s.method, position, keyword, s.node))
            elif isinstance(value, ast.Call):  # consumer(producer(...)): the value goes straight in
                inner, inner_method = target_of(value)
                if inner and not inner_method:
                    links.append(Link(inner, None, s.target, s.method, position, keyword, s.node))
    return sites, links


def component_calls(cm: ComponentModule, package: str, by_name: dict[str, ComponentModule]
                    ) -> Iterator[tuple[str | None, list[CallSite], list[Link]]]:
    """Per scope of a component module: (scope name, call sites, links)."""
    if cm.tree is None:
        return
    for scope, nodes in _scopes(cm.tree):
        sites, links = calls_in_nodes(nodes, cm.aliases, package, by_name)
        yield scope, sites, links
