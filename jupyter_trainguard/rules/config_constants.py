"""CFG001/CFG002: configuration constants with invalid values."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..analysis.constants import check_constant
from ..analysis.usage import usage_of
from .context import NotebookContext
from .registry import Hit, rule


@rule(
    id="CFG001", name="invalid-config-constant", category="config", severity="error",
    rationale="A constant outside what the pipeline accepts fails late or trains the wrong thing.",
    impact="The run fails after set-up, or reports results for a configuration nobody intended.",
    fix="Set the constant to a value allowed by [tool.trainguard.constants] (shown in the message).",
    bad="COMPONENT = 'curiosity'   # not a supported disposition\nPOSITIONS = [3, 14]        # GPT-2 small has 0-11",
    good="COMPONENT = 'empathy'\nPOSITIONS = [3, 7]",
)
def invalid_config_constant(ctx: NotebookContext) -> Iterator[Hit]:
    """Checks the notebook's UPPER_CASE constants against the configured schema (choices, ranges, int lists,
    regex patterns, keys of a dict in a component module); required constants missing are reported too."""
    specs = ctx.config.constants
    if not specs:
        return
    for name, spec in specs.items():
        if spec.notebooks != "all" and spec.notebooks != ctx.kind:
            continue
        const = ctx.constants.get(name)
        if const is None:
            if spec.required and ctx.kind == "standard":
                yield Hit(None, None, f"Required constant {name} is not defined ({spec.describe()}).",
                          evidence={"constant": name})
            continue
        if not const.is_literal:
            continue
        stem = Path(ctx.path).stem if ctx.path and ctx.path.endswith((".ipynb", ".py")) else None
        problem = check_constant(spec, const.value, ctx.config, stem=stem)
        if problem:
            yield Hit.at(const.cell, const.node, problem + ".", evidence={"constant": name,
                                                                          "expected": spec.describe()})


# name -> (predicate, requirement text); names are matched case-insensitively as constants or keyword arguments
_RANGES: dict[str, tuple[Any, str]] = {
    "lr": (lambda v: v > 0, "> 0"),
    "learning_rate": (lambda v: v > 0, "> 0"),
    "batch_size": (lambda v: isinstance(v, int) and v >= 1, "an integer >= 1"),
    "epochs": (lambda v: isinstance(v, int) and v >= 1, "an integer >= 1"),
    "num_epochs": (lambda v: isinstance(v, int) and v >= 1, "an integer >= 1"),
    "n_epochs": (lambda v: isinstance(v, int) and v >= 1, "an integer >= 1"),
    "max_epochs": (lambda v: isinstance(v, int) and v >= 1, "an integer >= 1"),
    "test_size": (lambda v: (0 < v < 1) if isinstance(v, float) else v >= 1, "in (0, 1) or a row count >= 1"),
    "val_size": (lambda v: (0 < v < 1) if isinstance(v, float) else v >= 1, "in (0, 1) or a row count >= 1"),
    "dropout": (lambda v: 0 <= v < 1, "in [0, 1)"),
    "weight_decay": (lambda v: v >= 0, ">= 0"),
    "num_workers": (lambda v: isinstance(v, int) and v >= 0, "an integer >= 0"),
    "momentum": (lambda v: 0 <= v <= 1, "in [0, 1]"),
    "seed": (lambda v: isinstance(v, int) and 0 <= v <= 2**32 - 1, "an integer in [0, 2**32 - 1]"),
    "random_state": (lambda v: v is None or (isinstance(v, int) and 0 <= v <= 2**32 - 1),
                     "None or an integer in [0, 2**32 - 1]"),
}


def _number(node: ast.AST) -> Any:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = node.operand
    else:
        inner = node
    if not isinstance(inner, ast.Constant):  # only literal numbers are judged; skip evaluating anything else
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


@rule(
    id="CFG002", name="hyperparameter-out-of-range", category="config", severity="error",
    rationale="A learning rate <= 0, a batch size < 1 or a test fraction outside (0, 1) cannot be what was meant.",
    impact="Training silently does nothing useful, or the split is not the one reported.",
    fix="Use a value in the valid range named in the message.",
    bad="LEARNING_RATE = 0\ntrain_test_split(X, y, test_size=1.5)",
    good="LEARNING_RATE = 3e-4\ntrain_test_split(X, y, test_size=0.2, random_state=SEED)",
)
def hyperparameter_out_of_range(ctx: NotebookContext) -> Iterator[Hit]:
    """Checks well-known hyperparameters given as constants (`LR = ...`) or keyword arguments (`lr=...`): first
    the constants of every cell, then the keyword arguments (the guard's next analysis of a growing session
    judges only the cells added since, while the configured constants are the same)."""
    configured = frozenset(ctx.config.constants)
    judged = usage_of(ctx).mapped(("CFG002", configured), "cells", lambda pc: _out_of_range(pc, configured))
    for constants, _ in judged:
        yield from constants
    for _, keywords in judged:
        yield from keywords


def _out_of_range(pc: Any, configured: frozenset[str]) -> tuple[list[Hit], list[Hit]]:
    """(hits of the constants, hits of the keyword arguments) of one parsed cell."""
    cell, constants, keywords = pc.cell, [], []
    for stmt in pc.tree.body if pc.tree is not None else ():
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            if name.isupper() and name not in configured and name.lower() in _RANGES:
                value = _number(stmt.value)
                if value is not None and not _RANGES[name.lower()][0](value):
                    constants.append(Hit.at(cell, stmt, f"{name} = {value!r} must be {_RANGES[name.lower()][1]}.",
                                            evidence={"name": name}))
    for _, call in pc.node_pairs():
        if type(call) is not ast.Call:
            continue
        for kw in call.keywords:
            if kw.arg and kw.arg.lower() in _RANGES:
                value = _number(kw.value)
                if value is not None and not _RANGES[kw.arg.lower()][0](value):
                    keywords.append(Hit.at(cell, kw.value, f"{kw.arg}={value!r} must be "
                                                           f"{_RANGES[kw.arg.lower()][1]}.", evidence={"name": kw.arg}))
    return constants, keywords
