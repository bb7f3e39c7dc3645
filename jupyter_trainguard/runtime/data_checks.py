"""DATA001-DATA006: leakage checks on the live split objects (names, counts, ratios only; never values)."""

from __future__ import annotations

import ast
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..findings import Finding, Location
from . import rules as R
from .hashing import Unhashable, as_rows, row_hashes, subset_indices
from .splits import Split, feature_splits, label_for

ROLE_ORDER = {"train": 0, "val": 1, "test": 2}
EVAL_KEYWORDS = frozenset({
    "eval_set", "validation_data", "val_dataloaders", "valid_sets", "eval_dataset", "valid_set",
    "validation_set", "val_dataloader", "eval_data", "valid_data", "validation_dataset",
})
VERIFY_SAMPLE = 2000
DATA006_ROWS = 20_000
DATA006_SECONDS = 0.3


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
    _hashes: dict[int, np.ndarray] = field(default_factory=dict)

    def hashes(self, split: Split) -> np.ndarray:
        key = id(split.value)
        if key not in self._hashes:
            self._hashes[key] = row_hashes(as_rows(split.value))
        return self._hashes[key]


def _width(rows: Any) -> int | None:
    shape = getattr(rows, "shape", None)
    if shape is None:
        return None
    return 1 if len(shape) == 1 else int(np.prod(shape[1:]))


def _comparable(a: Any, b: Any) -> bool:
    """Row hashes are comparable only within one family (frames with the same columns, arrays of one dtype)."""
    if hasattr(a, "iloc") or hasattr(b, "iloc"):
        if not (hasattr(a, "iloc") and hasattr(b, "iloc")):
            return False
        if hasattr(a, "columns") != hasattr(b, "columns"):
            return False
        if hasattr(a, "columns"):
            return list(a.columns) == list(b.columns) and list(a.dtypes) == list(b.dtypes)
        return a.dtype == b.dtype
    return _width(a) == _width(b) and getattr(a, "dtype", None) == getattr(b, "dtype", None)


def split_pairs(ctx: DataContext, labels: bool = False) -> Iterator[tuple[Split, Split]]:
    """(earlier, later) split pairs of the same stem, or compatible shape when stems differ."""
    pool = [s for s in ctx.splits if s.is_label == labels]
    for a in pool:
        for b in pool:
            if ROLE_ORDER[a.role] >= ROLE_ORDER[b.role] or a is b:
                continue
            if a.stem == b.stem or (a.via == "name" and b.via == "name" and _same_family(a, b, pool)):
                yield a, b


_FAMILY = {"frame": "table", "series": "table", "array": "array", "tensor": "array", "dataset": "torch-data",
           "loader": "torch-data"}


def _same_family(a: Split, b: Split, pool: list[Split]) -> bool:
    """Different stems still pair up when each is the only split of its role in that family of types."""
    fam = _FAMILY.get(a.kind)
    if fam is None or fam != _FAMILY.get(b.kind):
        return False
    return sum(1 for s in pool if s.role == a.role and _FAMILY.get(s.kind) == fam) == 1 and \
        sum(1 for s in pool if s.role == b.role and _FAMILY.get(s.kind) == fam) == 1


def _rows_equal(a: Any, ia: np.ndarray, b: Any, ib: np.ndarray) -> np.ndarray:
    if hasattr(a, "iloc"):
        va, vb = a.iloc[ia].to_numpy(), b.iloc[ib].to_numpy()
    else:
        va, vb = np.asarray(a)[ia], np.asarray(b)[ib]
    va = va.reshape(len(ia), -1)
    vb = vb.reshape(len(ib), -1)
    eq = (va == vb)
    try:
        eq |= (va != va) & (vb != vb)  # NaN equals NaN for duplicate detection
    except TypeError:
        pass
    return eq.all(axis=1)


def sorted_membership(ha: np.ndarray, hb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(argsort of ha, position of each hb in sorted ha, mask of hb values present in ha).

    One sort of ha plus a binary search per hb value: several times faster than np.isin on millions of rows."""
    order = np.argsort(ha)
    sa = ha[order]
    pos = np.searchsorted(sa, hb)
    pos[pos == len(sa)] = 0
    mask = sa[pos] == hb if len(sa) else np.zeros(len(hb), dtype=bool)
    return order, pos, mask


def overlap(ctx: DataContext, a: Split, b: Split) -> dict[str, Any] | None:
    """Exact row overlap of split b with split a: counts, ratio and a confirmation sample."""
    ra, rb = as_rows(a.value), as_rows(b.value)
    if not _comparable(ra, rb):
        return None
    ha, hb = ctx.hashes(a), ctx.hashes(b)
    if ra is rb:
        return {"rows": len(hb), "overlapping_rows": len(hb), "ratio": 1.0, "same_object": True}
    order, pos, mask = sorted_membership(ha, hb)
    count = int(mask.sum())
    result = {"rows": int(len(hb)), "overlapping_rows": count, "ratio": count / max(1, len(hb))}
    if count:
        ib = np.flatnonzero(mask)
        if len(ib) > VERIFY_SAMPLE:
            ib = ib[np.linspace(0, len(ib) - 1, VERIFY_SAMPLE).astype(np.int64)]
        ia = order[pos[ib]]
        confirmed = _rows_equal(ra, ia, rb, ib)
        result["confirmed_in_sample"] = f"{int(confirmed.sum())}/{len(ib)}"
        if not confirmed.any():
            return {"rows": int(len(hb)), "overlapping_rows": 0, "ratio": 0.0}
    return result


def index_overlap(a: Split, b: Split) -> dict[str, Any] | None:
    """Overlap of two Subsets of one dataset by their indices (for datasets whose rows cannot be hashed)."""
    sa, sb = subset_indices(a.value), subset_indices(b.value)
    if sa is None or sb is None or sa[0] is not sb[0]:
        return None
    mask = np.isin(sb[1], sa[1])
    count = int(mask.sum())
    return {"rows": int(len(sb[1])), "overlapping_rows": count, "ratio": count / max(1, len(sb[1])),
            "by": "subset indices"}


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
        msg = (f"{res['overlapping_rows']} of {res['rows']} rows of {b.name} ({res['ratio']:.1%}) also appear in "
               f"{a.name}" + (" (they are the same object)" if res.get("same_object") else "") + ".")
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
            ka, kb = _key_values(as_rows(a.value), key), _key_values(as_rows(b.value), key)
        except Unhashable:
            continue
        if ka is None or kb is None:
            continue
        seen_key = True
        mask = np.isin(kb, ka)
        shared = int(np.unique(kb[mask]).size)
        if shared:
            rows = int(mask.sum())
            msg = (f"{shared} distinct {key!s} values of {b.name} also occur in {a.name} "
                   f"({rows} of {len(kb)} rows of {b.name}, {rows / len(kb):.1%}).")
            out.append(R.DATA002.finding(ctx.location, msg, {
                "train": a.name, "other": b.name, "group_key": key, "shared_keys": shared,
                "distinct_keys_other": int(np.unique(kb).size), "rows_affected": rows}))
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
        trains = [s for s in feats if s.role == "train" and _width(as_rows(s.value)) == width]
        others = [s for s in feats if s.role != "train" and _width(as_rows(s.value)) == width]
        if not trains:
            continue
        n_train = max(len(as_rows(s.value)) for s in trains)
        if seen <= n_train:
            continue
        train = max(trains, key=lambda s: len(as_rows(s.value)))
        evidence: dict[str, Any] = {"transformer": name, "samples_seen": seen, "train": train.name,
                                    "train_rows": n_train}
        sizes = {s.name: len(as_rows(s.value)) for s in others}
        combo = [n for n in sizes if n_train + sizes[n] == seen] or \
            ([*sizes] if sizes and n_train + sum(sizes.values()) == seen else [])
        mean = getattr(est, "mean_", None)
        if mean is not None and others:
            m_train = _numeric_mean(as_rows(train.value))
            parts = [(m_train, n_train)] + [(_numeric_mean(as_rows(s.value)), sizes[s.name])
                                             for s in others if not combo or s.name in combo]
            if all(m is not None for m, _ in parts):
                full = sum(m * n for m, n in parts) / sum(n for _, n in parts)
                evidence["mean_matches_train"] = bool(np.allclose(mean, m_train, rtol=1e-6, atol=1e-9))
                evidence["mean_matches_train_plus_eval"] = bool(np.allclose(mean, full, rtol=1e-6, atol=1e-9))
        what = f" = {train.name} + " + " + ".join(combo) if combo else ""
        msg = (f"{name} ({type(est).__name__}) was fitted on {seen} rows, more than the {n_train} rows of "
               f"{train.name}{' (' + str(seen) + what + ')' if combo else ''}: it saw evaluation data.")
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
        srows = as_rows(s.value)
        if rows is srows:
            return s
        if len(rows) == len(srows) and _comparable(rows, srows) and len(rows):
            h = row_hashes(rows)
            if np.array_equal(np.sort(h), np.sort(ctx.hashes(s))):
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
            out.append(R.DATA004.finding(ctx.location, f"The test split is passed as {keyword}=: {desc}.", {
                "keyword": keyword, "names": [n for n, _, _ in hits], "test_splits": [t for _, t, _ in hits],
                "matched_by": [how for _, _, how in hits]}))
    return out


def _time_values(rows: Any, column: str | None) -> tuple[str, np.ndarray] | None:
    import pandas as pd

    if not hasattr(rows, "columns"):
        return None
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
            ta, tb = _time_values(as_rows(a.value), ctx.options.time_column), \
                _time_values(as_rows(b.value), ctx.options.time_column)
        except (Unhashable, ValueError, TypeError):
            continue
        if ta is None or tb is None or ta[0] != tb[0] or not len(ta[1]) or not len(tb[1]):
            continue
        start_b = np.nanmin(tb[1])
        after = int((ta[1] > start_b).sum())
        if after:
            msg = (f"{after} of {len(ta[1])} rows of {a.name} ({after / len(ta[1]):.1%}) are dated after the "
                   f"first row of {b.name} (time column {ta[0]!s}): training sees the future.")
            out.append(R.DATA005.finding(ctx.location, msg, {
                "train": a.name, "other": b.name, "time_column": ta[0], "train_rows_after": after,
                "train_rows": int(len(ta[1]))}))
    return out


def _codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    import pandas as pd

    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes, len(uniques)


def _column_iter(rows: Any) -> Iterator[tuple[str, np.ndarray]]:
    if hasattr(rows, "columns"):
        for c in rows.columns:
            yield str(c), rows[c].to_numpy()
    else:
        arr = np.asarray(rows)
        arr = arr.reshape(len(arr), -1)
        for j in range(arr.shape[1]):
            yield f"column {j}", arr[:, j]


def predictiveness(x: np.ndarray, y: np.ndarray, classification: bool) -> tuple[float, str] | None:
    """A score in [0, 1] for how well x alone predicts y, and the method used; None when not computable."""
    try:
        if np.array_equal(x, y):
            return 1.0, "equal"
    except (TypeError, ValueError):
        pass
    if not classification:
        try:
            xf, yf = x.astype(float), y.astype(float)
        except (TypeError, ValueError):
            return None
        ok = np.isfinite(xf) & np.isfinite(yf)
        if ok.sum() < 10 or np.std(xf[ok]) == 0 or np.std(yf[ok]) == 0:
            return None
        return float(abs(np.corrcoef(xf[ok], yf[ok])[0, 1])), "abs_correlation"
    ycodes, k = _codes(y)
    if k < 2:
        return None
    xcodes, groups = _codes(x)
    if groups <= 64:  # discrete feature: accuracy of the majority label per value
        table = np.zeros((groups + 1, k), dtype=np.int64)
        np.add.at(table, (xcodes + 1, ycodes), 1)
        return float(table.max(axis=1).sum() / len(y)), "group_purity"
    try:
        xf = x.astype(float)
    except (TypeError, ValueError):
        return None  # a high-cardinality categorical (an ID) is not judged
    order = np.argsort(xf, kind="stable")
    changes = int((np.diff(ycodes[order]) != 0).sum())
    return float(1.0 - max(0, changes - (k - 1)) / len(y)), "sorted_runs"


def check_single_feature(ctx: DataContext, deadline_s: float = DATA006_SECONDS) -> list[Finding]:
    out = []
    start = time.perf_counter()
    rng = np.random.default_rng(0)  # private generator: the user's RNG state is not touched
    for split in feature_splits(ctx.splits):
        if split.role != "train":
            continue
        try:
            rows = as_rows(split.value)
        except Unhashable:
            continue
        target = ctx.options.target
        if target and hasattr(rows, "columns") and target in rows.columns:
            label_name, y_all = f"{split.name}[{target!r}]", rows[target].to_numpy()
            rows = rows.drop(columns=[target])
        else:
            lab = label_for(split, ctx.splits)
            if lab is None:
                continue
            try:
                y_all = np.asarray(as_rows(lab.value)).reshape(-1)
            except Unhashable:
                continue
            label_name = lab.name
        n = len(rows)
        if n != len(y_all) or n < 20:
            continue
        idx = np.sort(rng.choice(n, DATA006_ROWS, replace=False)) if n > DATA006_ROWS else None
        sample = rows.iloc[idx] if (idx is not None and hasattr(rows, "iloc")) else \
            (np.asarray(rows)[idx] if idx is not None else rows)
        y = y_all[idx] if idx is not None else y_all
        _, k = _codes(y)
        classification = k <= 50 and (y.dtype.kind in "biuOUS")
        if classification:
            counts = np.bincount(_codes(y)[0][_codes(y)[0] >= 0])
            baseline = counts.max() / max(1, counts.sum())
            if baseline >= 0.98:
                continue
        else:
            baseline = 0.0
        for col, x in _column_iter(sample):
            if time.perf_counter() - start > deadline_s:
                ctx.notes.append("DATA006: time box reached; some columns were not checked")
                return out
            res = predictiveness(x, y, classification)
            if res is None:
                continue
            score, method = res
            threshold = 0.999 if method == "abs_correlation" else 0.995
            if score >= threshold:
                how = "equals" if method == "equal" else f"predicts ({method} {score:.3f})"
                msg = f"Feature {col} of {split.name} alone {how} the label {label_name}."
                out.append(R.DATA006.finding(ctx.location, msg, {
                    "features": split.name, "label": label_name, "column": col, "score": round(score, 4),
                    "method": method, "baseline": round(float(baseline), 4), "sampled_rows": int(len(y))}))
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
