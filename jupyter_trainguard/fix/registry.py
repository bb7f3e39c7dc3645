"""The fixer registry: fixer id -> rule ids, safety, description and the function that fixes."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .model import SAFE, UNSAFE, Left

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
        _FIXERS[id] = Fixer(id, rule_ids, safety, description, category, order, _reporting_missing(fn, rule_ids))
        return fn

    return register


def missing_package_reason(exc: ModuleNotFoundError) -> str:
    """The message for a fix that cannot run because an optional package is not installed."""
    name = (exc.name or str(exc)).split(".")[0]
    return (f"automatic fixes need the package `{name}`, which is not installed in this environment; "
            f"install it (`pip install {name}`) and run `trainguard fix` again")


def _reporting_missing(fn: Callable[[FixContext], None], rule_ids: tuple[str, ...]) -> Callable[[FixContext], None]:
    """Run `fn`; a package it needs that is missing is said once per notebook, in plain words (never reported as
    an internal error of the fixer). Every fixer parses with libcst, so the other fixes are not tried either: the
    one message stands for all of them."""

    @functools.wraps(fn)
    def run(ctx: FixContext) -> None:
        try:
            fn(ctx)
        except ModuleNotFoundError as exc:
            reason = missing_package_reason(exc)
            if not any(x.reason == reason for x in ctx.left):
                fid = ctx.fixer.id if ctx.fixer else None
                ctx.left.append(Left(ctx.path, rule_ids[0], "notebook", None, reason, fid))
            ctx.selected.clear()

    return run


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
