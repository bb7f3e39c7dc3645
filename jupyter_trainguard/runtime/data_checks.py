"""DATA001-DATA006: leakage checks on the live split objects (names, counts, ratios only; never values)."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..findings import Finding, Location
from . import rules as R
from .hashing import Unhashable, as_rows, cached_row_hashes, kept_row_hashes, subset_indices
from .row_match import _comparable, _same_rows, _width, exact_matches
from .row_prefilter import prefiltered_overlap
from .splits import Split, feature_splits
from .target_check import DATA006_ROWS, DATA006_SECONDS, check_single_feature, predictiveness

__all__ = [
    "DATA006_ROWS",
    "DATA006_SECONDS",
    "DataCheckOptions",
    "DataContext",
    "overlap",
    "predictiveness",
    "run_data_checks",
]

ROLE_ORDER = {"train": 0, "val": 1, "test": 2}
EVAL_KEYWORDS = frozenset(
    {
        "eval_set",
        "X_val",  # HistGradientBoosting*.fit: validation rows for early stopping
        "eval_X",  # LightGBM >= 4.6
        "validation_data",
        "val_dataloaders",
        "valid_sets",
        "eval_dataset",
        "valid_set",
        "validation_set",
        "val_dataloader",
        "eval_data",
        "valid_data",
        "validation_dataset",
    }
)


@dataclass
class DataCheckOptions:
    overlap_threshold: float = 0.0
    group_key: str | None = None
    target: str | None = None
    time_column: str | None = None


@dataclass
class DataContext:
    """What the checks look at: the namespace, the splits found in it, the cell's AST and the cell location."""

    user_ns: Mapping[str, Any]
    splits: list[Split]
    location: Location
    cell_tree: ast.AST | None = None
    options: DataCheckOptions = field(default_factory=DataCheckOptions)
    notes: list[str] = field(default_factory=list)
    _rows: dict[int, Any] = field(default_factory=dict)

    def rows(self, split: Split) -> Any:
        """`as_rows(split.value)`, built once per check run (a Subset's rows are a gathered copy)."""
        key = id(split.value)
        if key not in self._rows:
            self._rows[key] = as_rows(split.value)
        return self._rows[key]

    def hashes(self, split: Split) -> np.ndarray:
        """Row fingerprints of a split, kept between guarded cells while the object is unchanged."""
        return cached_row_hashes(split.value, self.rows(split))


def split_pairs(ctx: DataContext, labels: bool = False) -> Iterator[tuple[Split, Split]]:
    """(earlier, later) split pairs of the same stem, or compatible shape when stems differ."""
    pool = [s for s in ctx.splits if s.is_label == labels]
    for a in pool:
        for b in pool:
            if ROLE_ORDER[a.role] >= ROLE_ORDER[b.role] or a is b:
                continue
            if a.stem == b.stem or (a.via == "name" and b.via == "name" and _same_family(a, b, pool)):
                yield a, b


_FAMILY = {
    "frame": "table",
    "series": "table",
    "array": "array",
    "tensor": "array",
    "dataset": "torch-data",
    "loader": "torch-data",
}


def _same_family(a: Split, b: Split, pool: list[Split]) -> bool:
    """Different stems still pair up when each is the only split of its role in that family of types."""
    fam = _FAMILY.get(a.kind)
    if fam is None or fam != _FAMILY.get(b.kind):
        return False
    return (
        sum(1 for s in pool if s.role == a.role and _FAMILY.get(s.kind) == fam) == 1
        and sum(1 for s in pool if s.role == b.role and _FAMILY.get(s.kind) == fam) == 1
    )


def overlap(ctx: DataContext, a: Split, b: Split) -> dict[str, Any] | None:
    """Exact row overlap of split b with split a: counts and ratio (every candidate pair compared)."""
    ra, rb = ctx.rows(a), ctx.rows(b)
    if not _comparable(ra, rb):
        return None
    if ra is rb:
        return {"rows": len(rb), "overlapping_rows": len(rb), "ratio": 1.0, "same_object": True}
    fast = None
    if kept_row_hashes(a.value, ra) is None or kept_row_hashes(b.value, rb) is None:
        fast = prefiltered_overlap(ra, rb)  # big numeric splits: probe columns first, whole rows for candidates
    if fast is not None:
        count, compared = fast
    else:
        ha, hb = ctx.hashes(a), ctx.hashes(b)
        ib, _, compared = exact_matches(ra, ha, rb, hb)
        count = int(len(ib))
    result = {"rows": int(len(rb)), "overlapping_rows": count, "ratio": count / max(1, len(rb))}
    if compared:
        result["confirmed_in_sample"] = f"{count}/{compared}"
        result["verified"] = "every candidate row compared value by value"
    return result


def index_overlap(a: Split, b: Split) -> dict[str, Any] | None:
    """Overlap of two Subsets of one dataset by their indices (for datasets whose rows cannot be hashed)."""
    sa, sb = subset_indices(a.value), subset_indices(b.value)
    if sa is None or sb is None or sa[0] is not sb[0]:
        return None
    mask = np.isin(sb[1], sa[1])
    count = int(mask.sum())
    return {
        "rows": int(len(sb[1])),
        "overlapping_rows": count,
        "ratio": count / max(1, len(sb[1])),
        "by": "subset indices",
    }


def check_row_overlap(ctx: DataContext) -> list[Finding]:
    out = []
    for a, b in split_pairs(ctx):
        try:
            res = overlap(ctx, a, b)
        except Unhashable as exc:
            res = index_overlap(a, b)
            if res is None:
                ctx.notes.append(f"DATA001: {a.name}/{b.name} not compared ({type(exc).__name__})")
                continue
        except (TypeError, ValueError) as exc:
            ctx.notes.append(f"DATA001: {a.name}/{b.name} not compared ({type(exc).__name__})")
            continue
        if res is None or res["overlapping_rows"] == 0 or res["ratio"] <= ctx.options.overlap_threshold:
            continue
        msg = (
            f"{res['overlapping_rows']} of {res['rows']} rows of {b.name} ({res['ratio']:.1%}) also appear in "
            f"{a.name}" + (" (they are the same object)" if res.get("same_object") else "") + "."
        )
        out.append(R.DATA001.finding(ctx.location, msg, {"train": a.name, "other": b.name, **res}))
    return out


def _key_values(rows: Any, key: str) -> np.ndarray | None:
    if hasattr(rows, "columns") and key in rows.columns:
        values = rows[key].to_numpy()
    elif getattr(getattr(rows, "index", None), "name", None) == key:
        values = rows.index.to_numpy()
    else:
        return None
    import pandas as pd

    return pd.util.hash_array(values)


def check_group_overlap(ctx: DataContext) -> list[Finding]:
    key = ctx.options.group_key
    if not key:
        return []
    out, seen_key = [], False
    for a, b in split_pairs(ctx):
        try:
            ka, kb = _key_values(ctx.rows(a), key), _key_values(ctx.rows(b), key)
        except Unhashable:
            continue
        if ka is None or kb is None:
            continue
        seen_key = True
        mask = np.isin(kb, ka)
        shared = int(np.unique(kb[mask]).size)
        if shared:
            rows = int(mask.sum())
            msg = (
                f"{shared} distinct {key!s} values of {b.name} also occur in {a.name} "
                f"({rows} of {len(kb)} rows of {b.name}, {rows / len(kb):.1%})."
            )
            out.append(
                R.DATA002.finding(
                    ctx.location,
                    msg,
                    {
                        "train": a.name,
                        "other": b.name,
                        "group_key": key,
                        "shared_keys": shared,
                        "distinct_keys_other": int(np.unique(kb).size),
                        "rows_affected": rows,
                    },
                )
            )
    if not seen_key:
        ctx.notes.append(f"DATA002: no pair of splits has a column or index named {key!r}")
    return out


def _fitted_transformers(user_ns: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for name, value in list(user_ns.items()):
        if name.startswith("_") or not (type(value).__module__ or "").startswith("sklearn"):
            continue
        steps = getattr(value, "steps", None)
        if isinstance(steps, list):
            for step_name, step in steps:
                yield f"{name}[{step_name!r}]", step
        else:
            yield name, value


def _samples_seen(est: Any) -> int | None:
    for attr in ("n_samples_seen_", "n_samples_"):
        if hasattr(est, attr) and hasattr(est, "transform"):
            v = getattr(est, attr)
            return int(np.max(v)) if np.ndim(v) else int(v)
    return None


def _numeric_mean(rows: Any) -> np.ndarray | None:
    try:
        arr = rows.to_numpy(dtype=float) if hasattr(rows, "to_numpy") else np.asarray(rows, dtype=float)
    except (TypeError, ValueError):
        return None
    return np.nanmean(arr.reshape(len(arr), -1), axis=0)


def check_transformers(ctx: DataContext) -> list[Finding]:
    out = []
    feats = feature_splits(ctx.splits)
    for name, est in _fitted_transformers(ctx.user_ns):
        seen = _samples_seen(est)
        width = getattr(est, "n_features_in_", None)
        if seen is None or width is None:
            continue
        trains = [s for s in feats if s.role == "train" and _width(ctx.rows(s)) == width]
        others = [s for s in feats if s.role != "train" and _width(ctx.rows(s)) == width]
        if not trains:
            continue
        n_train = max(len(ctx.rows(s)) for s in trains)
        if seen <= n_train:
            continue
        train = max(trains, key=lambda s: len(ctx.rows(s)))
        evidence: dict[str, Any] = {
            "transformer": name,
            "samples_seen": seen,
            "train": train.name,
            "train_rows": n_train,
        }
        sizes = {s.name: len(ctx.rows(s)) for s in others}
        combo = [n for n in sizes if n_train + sizes[n] == seen] or (
            [*sizes] if sizes and n_train + sum(sizes.values()) == seen else []
        )
        mean = getattr(est, "mean_", None)
        if mean is not None and others:
            m_train = _numeric_mean(ctx.rows(train))
            parts = [(m_train, n_train)] + [
                (_numeric_mean(ctx.rows(s)), sizes[s.name]) for s in others if not combo or s.name in combo
            ]
            if all(m is not None for m, _ in parts):
                full = sum(m * n for m, n in parts) / sum(n for _, n in parts)
                evidence["mean_matches_train"] = bool(np.allclose(mean, m_train, rtol=1e-6, atol=1e-9))
                evidence["mean_matches_train_plus_eval"] = bool(np.allclose(mean, full, rtol=1e-6, atol=1e-9))
        what = f" = {train.name} + " + " + ".join(combo) if combo else ""
        msg = (
            f"{name} ({type(est).__name__}) was fitted on {seen} rows, more than the {n_train} rows of "
            f"{train.name}{' (' + str(seen) + what + ')' if combo else ''}: it saw evaluation data."
        )
        if evidence.get("mean_matches_train_plus_eval"):
            msg += " Its mean_ matches the training plus evaluation rows."
        evidence["eval_splits_matching"] = combo
        out.append(R.DATA003.finding(ctx.location, msg, evidence))
    return out


def eval_names(tree: ast.AST | None) -> list[tuple[str, list[str]]]:
    """(keyword, [names]) for every eval_set/validation_data/... keyword argument in the cell."""
    if tree is None:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                if kw.arg in EVAL_KEYWORDS:
                    names = [n.id for n in ast.walk(kw.value) if isinstance(n, ast.Name)]
                    if names:
                        out.append((kw.arg, names))
    return out


def _is_test_object(ctx: DataContext, value: Any) -> Split | None:
    tests = [s for s in ctx.splits if s.role == "test"]
    for s in tests:
        if value is s.value:
            return s
    try:
        rows = as_rows(value)
    except Unhashable:
        return None
    for s in tests:
        srows = ctx.rows(s)
        if rows is srows:
            return s
        if len(rows) == len(srows) and _comparable(rows, srows) and len(rows):
            h, hs = cached_row_hashes(value, rows), ctx.hashes(s)
            oh, os_ = np.argsort(h, kind="stable"), np.argsort(hs, kind="stable")
            if np.array_equal(h[oh], hs[os_]) and _same_rows(rows, oh, srows, os_):
                return s
    return None


def check_eval_set(ctx: DataContext) -> list[Finding]:
    out = []
    by_name = {s.name: s for s in ctx.splits}
    for keyword, names in eval_names(ctx.cell_tree):
        hits = []
        for n in dict.fromkeys(names):
            if n not in ctx.user_ns:
                continue
            split = by_name.get(n)
            if split is not None and split.role == "test":
                hits.append((n, n, "name"))
                continue
            try:
                match = _is_test_object(ctx, ctx.user_ns[n])
            except (TypeError, ValueError):
                match = None
            if match is not None:
                hits.append((n, match.name, "same object" if ctx.user_ns[n] is match.value else "same rows"))
        if hits:
            desc = ", ".join(n if n == t else f"{n} (= {t}, {how})" for n, t, how in hits)
            out.append(
                R.DATA004.finding(
                    ctx.location,
                    f"The test split is passed as {keyword}=: {desc}.",
                    {
                        "keyword": keyword,
                        "names": [n for n, _, _ in hits],
                        "test_splits": [t for _, t, _ in hits],
                        "matched_by": [how for _, _, how in hits],
                    },
                )
            )
    return out


def _time_values(rows: Any, column: str | None) -> tuple[str, np.ndarray] | None:
    if not hasattr(rows, "columns"):
        return None  # arrays and tensors carry no time column (and a torch-only session never imports pandas)
    import pandas as pd

    if column:
        if column in rows.columns:
            return column, pd.to_datetime(rows[column]).to_numpy()
        if rows.index.name == column:
            return column, pd.to_datetime(rows.index).to_numpy()
        return None
    if isinstance(rows.index, pd.DatetimeIndex):
        return str(rows.index.name or "index"), rows.index.to_numpy()
    for c in rows.columns:
        if pd.api.types.is_datetime64_any_dtype(rows[c]):
            return str(c), rows[c].to_numpy()
    return None


def check_time_order(ctx: DataContext) -> list[Finding]:
    out = []
    for a, b in split_pairs(ctx):
        try:
            ta, tb = (
                _time_values(ctx.rows(a), ctx.options.time_column),
                _time_values(ctx.rows(b), ctx.options.time_column),
            )
        except (Unhashable, ValueError, TypeError):
            continue
        if ta is None or tb is None or ta[0] != tb[0] or not len(ta[1]) or not len(tb[1]):
            continue
        start_b = np.nanmin(tb[1])
        after = int((ta[1] > start_b).sum())
        if after:
            msg = (
                f"{after} of {len(ta[1])} rows of {a.name} ({after / len(ta[1]):.1%}) are dated after the "
                f"first row of {b.name} (time column {ta[0]!s}): training sees the future."
            )
            out.append(
                R.DATA005.finding(
                    ctx.location,
                    msg,
                    {
                        "train": a.name,
                        "other": b.name,
                        "time_column": ta[0],
                        "train_rows_after": after,
                        "train_rows": int(len(ta[1])),
                    },
                )
            )
    return out


CHECKS: list[tuple[str, Callable[[DataContext], list[Finding]]]] = [
    ("DATA001", check_row_overlap),
    ("DATA002", check_group_overlap),
    ("DATA003", check_transformers),
    ("DATA004", check_eval_set),
    ("DATA005", check_time_order),
    ("DATA006", check_single_feature),
]


def run_data_checks(ctx: DataContext) -> list[Finding]:
    """Every DATA check; a check that fails on unexpected objects is noted, never raised."""
    findings: list[Finding] = []
    for rid, check in CHECKS:
        try:
            findings.extend(check(ctx))
        except Exception as exc:  # noqa: BLE001 - a check must never stop the user's training
            ctx.notes.append(f"{rid}: not run ({type(exc).__name__})")
    return findings
