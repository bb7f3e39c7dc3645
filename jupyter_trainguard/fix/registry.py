"""The fixer registry: fixer id -> rule ids, safety, description and the function that fixes."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .model import SAFE, UNSAFE

if TYPE_CHECKING:
    from .context import FixContext


@dataclass(frozen=True)
class Fixer:
    id: str
    rules: tuple[str, ...]  # the rule ids whose findings this fixer resolves
    safety: str  # "safe": cannot change results beyond fixing the problem; "unsafe": may change behaviour
    description: str
    category: str
    order: int
    fn: Callable[[FixContext], None]

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "rules": list(self.rules), "safety": self.safety, "description": self.description}


_FIXERS: dict[str, Fixer] = {}
_LOADED = False


def fixer(*, id: str, rules: tuple[str, ...] | str, safety: str, description: str, category: str,
          order: int = 50) -> Callable:
    if safety not in (SAFE, UNSAFE):
        raise ValueError(f"fixer {id}: safety must be {SAFE!r} or {UNSAFE!r}")
    rule_ids = (rules,) if isinstance(rules, str) else tuple(rules)

    def register(fn: Callable) -> Callable:
        if id in _FIXERS:
            raise ValueError(f"fixer {id} registered twice")
        _FIXERS[id] = Fixer(id, rule_ids, safety, description, category, order, fn)
        return fn

    return register


def all_fixers() -> list[Fixer]:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        from . import fixers as pkg

        for mod in pkgutil.iter_modules(pkg.__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{pkg.__name__}.{mod.name}")
    return sorted(_FIXERS.values(), key=lambda f: (f.order, f.id))


def rule_fix_safety() -> dict[str, str]:
    """rule id -> "safe" or "unsafe" (the safest fixer wins): what `Rule.fix_safety` should say."""
    out: dict[str, str] = {}
    for f in all_fixers():
        for r in f.rules:
            if out.get(r) != SAFE:
                out[r] = f.safety
    return dict(sorted(out.items()))
