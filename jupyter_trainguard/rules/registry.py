"""The rule registry: each rule is one small unit registered with `@rule(...)`.

A notebook rule is a function `check(ctx: NotebookContext) -> Iterable[Hit]`. A project rule (one that needs
several notebooks, such as duplicate detection) has `collect(ctx) -> data` run per notebook and
`combine(items: list[tuple[str, data]]) -> Iterable[tuple[str, Hit]]` run once over all of them. Runtime rules
have no static check; they are registered for their documentation and produce findings through `Rule.finding`.
"""

from __future__ import annotations

import ast
import importlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..findings import CATEGORIES, FACTORY, Finding, FrozenRecord, Location, Record, Severity, factory

if TYPE_CHECKING:
    from ..notebook.model import Cell


class Hit(Record):
    """What a rule reports; the engine turns it into a `Finding` with the rule's metadata and location.

    `line` is 1-based in the cell's analysed Python code (the engine maps it back to the source line).
    """

    cell: Cell | None
    line: int | None
    message: str
    evidence: dict[str, Any] = factory(dict)
    severity: Severity | str | None = None
    end_line: int | None = None
    column: int | None = None

    def __init__(self, cell: Cell | None, line: int | None, message: str, evidence: dict[str, Any] = FACTORY,
                 severity: Severity | str | None = None, end_line: int | None = None,
                 column: int | None = None) -> None:
        self.cell = cell
        self.line = line
        self.message = message
        self.evidence = {} if evidence is FACTORY else evidence
        self.severity = severity
        self.end_line = end_line
        self.column = column

    @classmethod
    def at(cls, cell: Cell, node: ast.AST, message: str, **kw: Any) -> Hit:
        return cls(cell, getattr(node, "lineno", None), message, end_line=getattr(node, "end_lineno", None),
                   column=(getattr(node, "col_offset", -1) + 1) or None, **kw)


class Rule(FrozenRecord):
    """A registered rule: its documentation, and the functions that check notebooks for it."""

    id: str
    name: str
    category: str
    severity: Severity
    rationale: str
    fix: str
    impact: str
    bad: str = ""
    good: str = ""
    scope: str = "notebook"  # "notebook" | "project" | "runtime"
    check: Callable[..., Iterable[Hit]] | None = None
    collect: Callable[..., Any] | None = None
    combine: Callable[..., Iterable[tuple[str, Hit]]] | None = None
    fix_safety: str | None = None  # "safe" | "unsafe" | None when no automatic fix exists
    docs: str = ""
    once_per_project: bool = False  # a fact about the project (evidence["project"]): said once per scan

    def __init__(self, id: str, name: str, category: str, severity: Severity, rationale: str, fix: str, impact: str,
                 bad: str = "", good: str = "", scope: str = "notebook",
                 check: Callable[..., Iterable[Hit]] | None = None, collect: Callable[..., Any] | None = None,
                 combine: Callable[..., Iterable[tuple[str, Hit]]] | None = None, fix_safety: str | None = None,
                 docs: str = "", once_per_project: bool = False) -> None:
        self.__dict__.update(id=id, name=name, category=category, severity=severity, rationale=rationale, fix=fix,
                             impact=impact, bad=bad, good=good, scope=scope, check=check, collect=collect,
                             combine=combine, fix_safety=fix_safety, docs=docs, once_per_project=once_per_project)

    def finding(self, location: Location, message: str, evidence: dict[str, Any] | None = None,
                severity: Severity | str | None = None, source: str = "runtime") -> Finding:
        """Build a finding of this rule (runtime and artifact checks use this directly)."""
        return Finding(
            rule_id=self.id, rule_name=self.name,
            severity=Severity.parse(severity) if severity else self.severity,
            category=self.category, message=message, location=location,
            impact=self.impact, fix=self.fix, evidence=dict(evidence or {}), source=source,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "name": self.name, "category": self.category, "severity": self.severity.value,
            "scope": self.scope, "rationale": self.rationale, "impact": self.impact, "fix": self.fix,
            "fix_safety": self.fix_safety, "bad": self.bad, "good": self.good,
        }


_RULES: dict[str, Rule] = {}
_LOADED = False
_CORE_LOADED = False
_LOAD_LOCK = threading.RLock()


def rule(*, id: str, name: str, category: str, severity: str, rationale: str, fix: str, impact: str,
         bad: str = "", good: str = "", scope: str = "notebook", fix_safety: str | None = None,
         collect: Callable[..., Any] | None = None, once_per_project: bool = False) -> Callable:
    """Register the decorated function as the rule's check (or, for project rules, its `combine`)."""
    if category not in CATEGORIES:
        raise ValueError(f"rule {id}: unknown category {category!r}")

    def register(fn: Callable) -> Callable:
        if id in _RULES:
            raise ValueError(f"rule id {id} registered twice")
        _RULES[id] = Rule(
            id=id, name=name, category=category, severity=Severity.parse(severity), rationale=rationale,
            fix=fix, impact=impact, bad=bad.strip("\n"), good=good.strip("\n"), scope=scope,
            check=fn if scope == "notebook" else None,
            combine=fn if scope == "project" else None, collect=collect,
            fix_safety=fix_safety, docs=(fn.__doc__ or "").strip(), once_per_project=once_per_project,
        )
        return fn

    return register


def runtime_rule(**meta: Any) -> Rule:
    """Register a rule evaluated on live objects; returns it so the runtime can call `.finding(...)`."""
    register = rule(scope="runtime", **meta)
    register(lambda ctx: ())
    return _RULES[meta["id"]]


CATALOGUES = frozenset({"runtime_catalogue", "checkpoint_catalogue"})  # runtime rules: listed, never scanned


def _modules_under(paths: Iterable[str], prefix: str) -> Iterator[str]:
    """The modules in these folders and their sub-packages, in name order, as `pkgutil.walk_packages` lists the
    source modules of a package (a sub-package is imported to walk it). Without pkgutil, which imports `inspect`."""
    for path in paths:
        for entry in sorted(os.listdir(path)):
            name = entry[:-3] if entry.endswith(".py") else entry
            if not name.isidentifier() or name == "__init__":
                continue
            if entry.endswith(".py"):
                yield prefix + name
            elif os.path.isfile(os.path.join(path, entry, "__init__.py")):
                yield prefix + name
                yield from _modules_under(importlib.import_module(prefix + name).__path__, f"{prefix}{name}.")


def _load_all(catalogues: bool = True) -> None:
    """Import every rule module once (the catalogues of runtime rules only when asked: a scan does not run them,
    and they import the runtime and report machinery); thread-safe (the server analyses from worker threads)."""
    global _LOADED, _CORE_LOADED
    if _LOADED or (_CORE_LOADED and not catalogues):
        return
    with _LOAD_LOCK:
        if _LOADED or (_CORE_LOADED and not catalogues):
            return
        from .. import rules as pkg

        for name in _modules_under(pkg.__path__, pkg.__name__ + "."):
            leaf = name.rsplit(".", 1)[-1]
            if leaf.startswith("_") or leaf in ("registry", "context") or (leaf in CATALOGUES and not catalogues):
                continue
            importlib.import_module(name)
        _CORE_LOADED = True
        _LOADED = catalogues


def all_rules() -> list[Rule]:
    _load_all()
    return sorted(_RULES.values(), key=lambda r: r.id)


def notebook_rules() -> list[Rule]:
    """The rules a scan runs (notebook and project scope), without importing the runtime rule catalogues."""
    _load_all(catalogues=False)
    return sorted((r for r in _RULES.values() if r.scope in ("notebook", "project")), key=lambda r: r.id)


def get_rule(rule_id: str) -> Rule:
    _load_all(catalogues=False)
    if rule_id.upper() not in _RULES:
        _load_all()
    try:
        return _RULES[rule_id.upper()]
    except KeyError:
        raise KeyError(f"unknown rule {rule_id!r}") from None


# Notebook rules whose findings also depend on files outside the notebook and its configuration (lockfiles next to
# it, the components' sources): an unchanged notebook does not mean unchanged findings, so they are never reused.
READS_OUTSIDE_NOTEBOOK = frozenset({"ENV001", "CFG001", "CFG002", "PIPE001", "PIPE002", "PIPE004"})


def reusable(rule_obj: Rule) -> bool:
    """True when the rule's hits are a function of the notebook's cells, the configuration and the notebook's
    path and kind alone, so a live session may reuse them while none of those changed."""
    return rule_obj.scope == "notebook" and rule_obj.id not in READS_OUTSIDE_NOTEBOOK


def matches(rule_obj: Rule, patterns: Iterable[str]) -> bool:
    """True when a pattern is a prefix of the rule id, its name, or its category."""
    for p in patterns:
        p = p.strip()
        if not p:
            continue
        if rule_obj.id.upper().startswith(p.upper()) or rule_obj.name == p or \
                rule_obj.category == p or rule_obj.category.startswith(p + "."):
            return True
    return False
