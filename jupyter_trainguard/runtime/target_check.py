"""DATA006: one feature that alone (almost) determines the label.

Features are told from the label first: a column of the training frame that is the label itself (the `--target`
column, a column named like the label series, the column the cell passes as `y` or drops before `fit`, or, when
the frame is not passed to `fit` as it is, a column equal to the label) is the label, not a leaking feature.

Cost is bounded whatever the width: numeric columns are screened together on a small row sample (one sort of a
keys matrix per column block) with bounds that a leaking column meets with a wide margin, and only the columns that
pass get the exact per-column score on the full sample (at most `DATA006_ROWS` rows).
"""

from __future__ import annotations

import ast
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..findings import Finding
from . import rules as R
from .hashing import Unhashable
from .splits import Split, feature_splits, label_for

if TYPE_CHECKING:
    from .data_checks import DataContext

DATA006_ROWS = 20_000
DATA006_SECONDS = 0.3
SCREEN_ROWS = 512
FIT_NAMES = frozenset(
    {
        "fit",
        "fit_transform",
        "fit_predict",
        "partial_fit",
        "cross_val_score",
        "cross_validate",
        "cross_val_predict",
        "train",
    }
)


def _codes(values: np.ndarray) -> tuple[np.ndarray, int]:
    """(integer code per value, -1 for missing; number of distinct values). NumPy only for plain dtypes, so a
    session without pandas does not import it here."""
    values = np.asarray(values)
    if values.dtype.kind in "biuUS" or (values.dtype.kind == "f" and not np.isnan(values).any()):
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.reshape(-1).astype(np.intp), len(uniques)
    import pandas as pd

    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes, len(uniques)


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
    # a discrete feature: accuracy of the majority label per value, once each value is seen twice on average
    # (with a row or two per value, every group is pure whatever the label: noise would score 1.0)
    if groups <= 64 and 2 * groups <= len(y):
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


# -- telling the label from the features ------------------------------------------------------------------------


def _const_names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def fit_usage(tree: ast.AST | None, name: str) -> tuple[bool, set[str]]:
    """(the frame `name` is passed to a fit call as it is, columns the cell uses as y or drops from X)."""
    as_is, label_cols = False, set()
    if tree is None:  # the cell is unknown: treat the frame as the model's input, as before
        return True, label_cols
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        fname = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if fname not in FIT_NAMES:
            continue
        args = list(node.args) + [kw.value for kw in node.keywords if kw.arg in ("X", "x", "y")]
        for arg in args:
            if isinstance(arg, ast.Name) and arg.id == name:
                as_is = True
            elif isinstance(arg, ast.Subscript) and isinstance(arg.value, ast.Name) and arg.value.id == name:
                label_cols.update(_const_names(arg.slice))  # frame['label'] as y (or a column list as X)
            elif isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id == name:
                label_cols.add(arg.attr)
            elif (
                isinstance(arg, ast.Call)
                and isinstance(arg.func, ast.Attribute)
                and arg.func.attr == "drop"
                and isinstance(arg.func.value, ast.Name)
                and arg.func.value.id == name
            ):
                for kw in arg.keywords:
                    if kw.arg in ("columns", "labels"):
                        label_cols.update(_const_names(kw.value))
                for a in arg.args[:1]:
                    label_cols.update(_const_names(a))
    return as_is, label_cols


def _label_columns(ctx: DataContext, split: Split, rows: Any, lab: Split | None, y: np.ndarray) -> set[str]:
    """Columns of a training frame that are the label, not features."""
    if not hasattr(rows, "columns"):
        return set()
    cols = {str(c): c for c in rows.columns}
    out: set[str] = set()
    name = getattr(lab.value, "name", None) if lab is not None else None
    if isinstance(name, str) and name in cols:
        out.add(name)
    as_is, used = fit_usage(ctx.cell_tree, split.name)
    out.update(c for c in used if c in cols)
    if not as_is:  # not the matrix the model sees: a column equal to the label is the label itself
        for c, key in cols.items():
            try:
                col = rows[key].to_numpy()
                if c not in out and np.array_equal(col[:64], y[:64]) and np.array_equal(col, y):
                    out.add(c)
                    ctx.notes.append(
                        f"DATA006: {split.name}[{c!r}] equals {lab.name if lab else 'the label'} and "
                        "is taken as the label column, not a feature"
                    )
            except (TypeError, ValueError):
                continue
    return out


# -- screening many numeric columns at once ---------------------------------------------------------------------


def _ordered_keys(x: np.ndarray) -> np.ndarray:
    """int64 keys ordered like the float64 values (NaN last), for a sort with the row index in the low bits."""
    bits = np.ascontiguousarray(x, dtype=np.float64).view(np.int64)
    return bits ^ ((bits >> 63) & np.int64(0x7FFFFFFFFFFFFFFF))


def screen_columns(xs: np.ndarray, ys: np.ndarray, classification: bool, k: int) -> np.ndarray:
    """Indices of the columns of xs (m x d, numeric) that may predict ys; the others cannot reach the threshold.

    Classification: label changes along each column in stable sorted order. A leaking column has at most
    0.005 of the full sample's rows as changes (plus k - 1, plus at most 63 value groups for a discrete column);
    a row subsample never has more changes than the sample it is taken from, so the bound below keeps a wide margin.
    Regression: |correlation| on the subsample far below the 0.999 threshold."""
    m, d = xs.shape
    if not classification:
        xf, yf = xs.astype(np.float64), ys.astype(np.float64)
        finite = np.isfinite(xf).all(axis=0) & bool(np.isfinite(yf).all())
        xc, yc = xf - xf.mean(axis=0), yf - yf.mean()
        denom = np.sqrt((xc * xc).sum(axis=0) * (yc @ yc))
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.abs(yc @ xc) / denom
        return np.flatnonzero(~finite | ~(corr < 0.95))
    ycodes, _ = _codes(ys)
    shift = int(np.ceil(np.log2(m + 1)))
    keys = (_ordered_keys(xs.T) >> shift) << shift  # (d, m): each column a contiguous row
    keys |= np.arange(m, dtype=np.int64)
    keys.sort(axis=1)
    labels = ycodes[keys & np.int64((1 << shift) - 1)]
    changes = np.count_nonzero(labels[:, 1:] != labels[:, :-1], axis=1)
    limit = int(np.ceil(0.03 * m)) + 2 * k + 74
    return np.flatnonzero(changes <= limit)


def _numeric_block(rows: Any) -> tuple[list[str], Any] | None:
    """(column names, 2-D numeric array-like) for an all-numeric frame or array; None otherwise."""
    if hasattr(rows, "columns"):
        if len(rows.columns) and all(dt.kind in "biuf" for dt in rows.dtypes):
            return [str(c) for c in rows.columns], rows
        return None
    arr = np.asarray(rows)
    if arr.dtype.kind not in "biuf":
        return None
    arr = arr.reshape(len(arr), -1)
    return [f"column {j}" for j in range(arr.shape[1])], arr


def _take(rows: Any, idx: np.ndarray | None, col: int | None = None) -> np.ndarray:
    """rows[idx] (all columns) or rows[idx, col] (one column), gathering nothing else."""
    if hasattr(rows, "iloc"):
        part = rows.iloc[:, col] if col is not None else rows
        part = part.iloc[idx] if idx is not None else part
        return part.to_numpy()
    if col is not None:
        return rows[idx, col] if idx is not None else rows[:, col]
    return rows[idx] if idx is not None else rows


def _columns(
    rows: Any, idx: np.ndarray | None, y: np.ndarray, classification: bool, k: int, rng: np.random.Generator
) -> Iterator[tuple[str, np.ndarray]]:
    """(name, sampled values) of every column that can still predict the label."""
    block = _numeric_block(rows)
    n = len(idx) if idx is not None else len(rows)
    if block is not None and n > SCREEN_ROWS and len(block[0]) > 8:
        names, values = block
        sub = np.sort(rng.choice(n, SCREEN_ROWS, replace=False))
        keep = screen_columns(
            _take(values, idx[sub] if idx is not None else sub).reshape(SCREEN_ROWS, -1), y[sub], classification, k
        )
        for j in keep:
            yield names[j], _take(values, idx, int(j)).reshape(-1)
        return
    sample = (
        rows.iloc[idx]
        if (idx is not None and hasattr(rows, "iloc"))
        else (np.asarray(rows)[idx] if idx is not None else rows)
    )
    if hasattr(sample, "columns"):
        for c in sample.columns:
            yield str(c), sample[c].to_numpy()
    else:
        arr = np.asarray(sample)
        arr = arr.reshape(len(arr), -1)
        for j in range(arr.shape[1]):
            yield f"column {j}", arr[:, j]


def check_single_feature(ctx: DataContext, deadline_s: float = DATA006_SECONDS) -> list[Finding]:
    out: list[Finding] = []
    # the box bounds this check's own work: CPU time of this thread, so a loaded machine or a background analysis
    # holding the GIL does not cut it short
    start = time.thread_time()
    rng = np.random.default_rng(0)  # private generator: the user's RNG state is not touched
    for split in feature_splits(ctx.splits):
        if split.role != "train":
            continue
        kept_key, refs = _kept_key(ctx, split)
        kept = _KEPT.get(kept_key) if kept_key is not None else None
        if kept is not None and all(r() is not None and r() is o for r, o in zip(kept[0], refs)):
            found, notes = kept[1], kept[2]  # the same objects, unchanged since the last guarded cell
            ctx.notes.extend(notes)
        else:
            n_notes = len(ctx.notes)
            found, complete = _check_split(ctx, split, rng, start, deadline_s)
            if complete and kept_key is not None:
                _keep(kept_key, refs, found, ctx.notes[n_notes:])
            if not complete:
                out += [R.DATA006.finding(ctx.location, msg, dict(ev)) for msg, ev in found]
                return out
        out += [R.DATA006.finding(ctx.location, msg, dict(ev)) for msg, ev in found]
    return out


# -- results kept between guarded cells while the split objects are unchanged ------------------------------------

_KEPT: dict[tuple[Any, ...], tuple[tuple[Any, ...], list[tuple[str, dict[str, Any]]], list[str]]] = {}
_KEPT_MAX = 32


def _kept_key(ctx: DataContext, split: Split) -> tuple[tuple[Any, ...] | None, tuple[Any, ...]]:
    """A key for this split's result and the objects it rests on: the features' and the label's owners with
    their change tokens (shape, layout, in-place version, a digest of one value per row), the options and how the
    cell fits. None: not reusable."""
    from .hashing import identity_token

    try:
        feats = identity_token(split.value, ctx.rows(split))
        target = ctx.options.target
        lab = None if target else label_for(split, ctx.splits)
        labels = identity_token(lab.value, ctx.rows(lab)) if lab is not None else None
    except Exception:  # noqa: BLE001 - an object that cannot be read is checked afresh
        return None, ()
    if feats is None or (lab is not None and labels is None):
        return None, ()
    as_is, used = fit_usage(ctx.cell_tree, split.name)
    owners = (feats,) if labels is None else (feats, labels)
    key = (split.name, lab.name if lab is not None else None, target, as_is, frozenset(used),
           tuple((id(a), t) for a, t in owners))
    return key, tuple(a for a, _ in owners)


def _keep(key: tuple[Any, ...], owners: tuple[Any, ...], found: list, notes: list[str]) -> None:
    import weakref

    try:
        refs = tuple(weakref.ref(a) for a in owners)
    except TypeError:
        return
    if len(_KEPT) >= _KEPT_MAX:
        _KEPT.pop(next(iter(_KEPT)))
    _KEPT[key] = (refs, list(found), list(notes))


def _check_split(
    ctx: DataContext, split: Split, rng: np.random.Generator, start: float, deadline_s: float
) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
    """(message, evidence) of each feature of one training split that alone predicts its label; False when the
    time box cut the check short."""
    found: list[tuple[str, dict[str, Any]]] = []
    try:
        rows = ctx.rows(split)
    except Unhashable:
        return found, True
    target, lab = ctx.options.target, None
    if target and hasattr(rows, "columns") and target in rows.columns:
        label_name, y_all = f"{split.name}[{target!r}]", rows[target].to_numpy()
        rows = rows.drop(columns=[target])
    else:
        lab = label_for(split, ctx.splits)
        if lab is None:
            return found, True
        try:
            y_all = np.asarray(ctx.rows(lab)).reshape(-1)
        except Unhashable:
            return found, True
        label_name = lab.name
    n = len(rows)
    if n != len(y_all) or n < 20:
        return found, True
    drop = _label_columns(ctx, split, rows, lab, y_all)
    if drop:
        rows = rows.drop(columns=[c for c in rows.columns if str(c) in drop])
        if not len(rows.columns):
            return found, True
    idx = np.sort(rng.choice(n, DATA006_ROWS, replace=False)) if n > DATA006_ROWS else None
    y = y_all[idx] if idx is not None else y_all
    codes, k = _codes(y)
    classification = k <= 50 and (y.dtype.kind in "biuOUS")
    if classification:
        counts = np.bincount(codes[codes >= 0])
        baseline = counts.max() / max(1, counts.sum())
        if baseline >= 0.98:
            return found, True
    else:
        baseline = 0.0
    for col, x in _columns(rows, idx, y, classification, k, rng):
        if time.thread_time() - start > deadline_s:
            ctx.notes.append("DATA006: time box reached; some columns were not checked")
            return found, False
        res = predictiveness(x, y, classification)
        if res is None:
            continue
        score, method = res
        threshold = 0.999 if method == "abs_correlation" else 0.995
        if score >= threshold:
            how = "equals" if method == "equal" else f"predicts ({method} {score:.3f})"
            found.append((
                f"Feature {col} of {split.name} alone {how} the label {label_name}.",
                {
                    "features": split.name,
                    "label": label_name,
                    "column": col,
                    "score": round(score, 4),
                    "method": method,
                    "baseline": round(float(baseline), 4),
                    "sampled_rows": int(len(y)),
                },
            ))
    return found, True
