"""Find the train/validation/test splits among the live objects of the user namespace.

Two sources, combined: the variable names (`X_train`, `test_df`, `val_loader`, `Xte`, ...) and provenance from the
executed code (the targets of `a, b, c, d = train_test_split(X, y)` are train/test pairs whatever their names;
`random_split(ds, [...])` yields train, then val/test).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

ROLE_TOKENS = {
    "train": "train", "training": "train", "trn": "train", "tr": "train", "fit": "train",
    "val": "val", "valid": "val", "validation": "val", "dev": "val", "vl": "val", "eval": "val",
    "test": "test", "tst": "test", "te": "test", "holdout": "test", "hold": "test",
}
LABEL_STEMS = {"y", "label", "labels", "target", "targets", "lbl", "lbls", "yy"}
_SPLIT_RE = re.compile(r"[_\W]+")
_GLUED = re.compile(r"^(x|y|df|data|ds|dl)(train|training|trn|tr|val|valid|dev|test|tst|te)$")


@dataclass
class Split:
    """One split found in the namespace."""

    name: str
    role: str  # "train" | "val" | "test"
    stem: str  # the name without its role token; X_train and X_test share the stem "x"
    value: Any
    is_label: bool
    via: str  # "name" | "provenance"

    @property
    def kind(self) -> str:
        return kind_of(self.value) or "unknown"


def kind_of(value: Any) -> str | None:
    """'frame', 'series', 'array', 'tensor', 'dataset', 'loader' or None for objects we do not check."""
    mod = type(value).__module__ or ""
    if mod.startswith("pandas"):
        name = type(value).__name__
        return {"DataFrame": "frame", "Series": "series"}.get(name)
    if mod.startswith("numpy") and type(value).__name__ == "ndarray":
        return "array" if value.ndim in (1, 2) and value.size else None
    if sys.modules.get("torch") is not None:
        import torch

        if isinstance(value, torch.Tensor):
            return "tensor" if value.ndim >= 1 and value.numel() else None
        from torch.utils.data import DataLoader, Dataset

        if isinstance(value, DataLoader):
            return "loader"
        if isinstance(value, Dataset):
            return "dataset"
    return None


@lru_cache(maxsize=4096)
def role_from_name(name: str) -> tuple[str, str] | None:
    """(role, stem) when the variable name says which split it is; None otherwise (kept per name: every guarded
    cell asks for each name of the namespace)."""
    low = name.lower().strip("_")
    glued = _GLUED.match(low)
    if glued:
        return ROLE_TOKENS[glued.group(2)], glued.group(1)
    tokens = [t for t in _SPLIT_RE.split(low) if t]
    roles = [(i, ROLE_TOKENS[t]) for i, t in enumerate(tokens) if t in ROLE_TOKENS]
    if len(roles) != 1 or len(tokens) > 4:
        return None
    i, role = roles[0]
    if tokens[i] in ("tr", "te", "vl", "fit", "eval", "hold") and len(tokens) == 1:
        return None  # too ambiguous on its own
    stem = "_".join(t for j, t in enumerate(tokens) if j != i) or "data"
    return role, stem


def provenance_roles(trees: Iterable[Any]) -> dict[str, tuple[str, str]]:
    """name -> (role, stem) from split calls in executed code (later assignments win).

    `trees` are ASTs or (source, AST) pairs (cached by source)."""
    from .history import all_facts

    out: dict[str, tuple[str, str]] = {}
    for facts in all_facts(trees):
        for fname, names in facts.split_assigns:
            if fname == "train_test_split" and len(names) % 2 == 0:
                for k in range(0, len(names), 2):
                    stem = f"arg{k // 2}"
                    if names[k]:
                        out[names[k]] = ("train", stem)
                    if names[k + 1]:
                        out[names[k + 1]] = ("test", stem)
            elif fname == "random_split" and 2 <= len(names) <= 3:
                roles = ["train", "test"] if len(names) == 2 else ["train", "val", "test"]
                for n, r in zip(names, roles):
                    if n:
                        out[n] = (r, "random_split")
    return out


def discover_splits(user_ns: Mapping[str, Any], trees: Iterable[Any] = ()) -> list[Split]:
    """All checkable split objects: by name first, then by provenance for names that do not say it."""
    prov = provenance_roles(trees)
    found: list[Split] = []
    for name, value in list(user_ns.items()):
        if name.startswith("_"):
            continue
        by_name = role_from_name(name)
        role_stem, via = (by_name, "name") if by_name else (prov.get(name), "provenance")
        if role_stem is None or kind_of(value) is None:
            continue
        role, stem = role_stem
        is_label = stem in LABEL_STEMS or stem.startswith("y") and len(stem) <= 2
        if _is_vector(value) and (via == "provenance" or stem.split("_")[0] in LABEL_STEMS):
            is_label = True  # `y_train_s`, `target_train_2`: a label vector with a suffix
        found.append(Split(name, role, stem, value, is_label, via))
    return found


def _is_vector(value: Any) -> bool:
    shape = getattr(value, "shape", None)
    return shape is not None and len(shape) == 1


def feature_splits(splits: list[Split]) -> list[Split]:
    return [s for s in splits if not s.is_label]


def label_for(split: Split, splits: list[Split]) -> Split | None:
    """The label split matching a feature split (same role; X_* pairs with y_*, argN with argN+1)."""
    labels = [s for s in splits if s.is_label and s.role == split.role]
    if split.stem.startswith("arg"):
        nxt = f"arg{int(split.stem[3:]) + 1}"
        labels = [s for s in labels if s.stem == nxt] or labels
    if len(labels) == 1:
        return labels[0]
    for s in labels:
        if s.stem.lstrip("y") == split.stem.lstrip("x"):
            return s
    return labels[0] if labels else None
