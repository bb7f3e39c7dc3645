"""Target leakage: the features a model is fitted on still hold the label column, a column the label was
computed from, or a column computed from the label (column facts from `columns.py`)."""

from __future__ import annotations

from ..state import Record
from .wording import Leak, code, step_text

REGRESSORS = ("Regressor", "Regression", "SVR", "Ridge", "Lasso", "ElasticNet", "Lars", "LassoLars")


def target_leaks(rec: Record) -> list[Leak]:
    out: list[Leak] = []
    seen: set = set()
    for site, cls, x, y in rec.supervised:
        if y.flabel is None or x.fcols is None or (id(site.cell), site.line) in seen:
            continue
        frame, col = y.flabel
        fc = x.fcols
        if fc["frame"] != frame:
            continue
        leaf = cls.rsplit(".", 1)[-1]
        leaks, derived = _leaking(rec, cls, fc, col)
        if not leaks:
            continue
        seen.add((id(site.cell), site.line))
        kinds = [f"the label column '{c}'" if c == col else f"'{c}' (computed from the label)" if c in derived
                 else f"'{c}' (the label was computed from it)" for c in leaks]
        out.append(Leak(
            "target", site,
            f"{code(site)} in {site.where()} fits `{leaf}` on `{x.text()}` with labels `{y.text()}`, but the "
            f"features still contain {', '.join(kinds)}.",
            evidence={"features": x.name, "labels": y.name, "columns": leaks, "fit": step_text(site),
                      "fit_cell": step_text(site).get("cell")},
        ))
    return out


def _leaking(rec: Record, cls: str, fc: dict, col: str) -> tuple[list[str], set[str]]:
    """The label-related columns still present in the features, and which of them were computed from the label."""
    cols = {c: info for (f, c), info in rec.derived.items() if f == fc["frame"]}
    added = fc.get("added", frozenset())
    sources = set(cols[col][0]) if col in cols and not cols[col][2] else set()
    # a column counts when it was there as the features were taken: an original one, or written before
    label_cols = {c for c in sources | {col} if c not in cols or c in added or cols[c][1]}
    derived = {c for c, (refs, _, _) in cols.items() if c != col and col in refs and c in added}
    leaf = cls.rsplit(".", 1)[-1]
    # select_dtypes('number') keeps the label only when it is numeric, which a regressor's label is
    numeric_only = fc.get("numeric_only") and not (leaf.endswith(REGRESSORS) and not leaf.startswith("Logistic"))
    selected, removed = fc.get("selected"), fc["removed"]
    present = [c for c in label_cols | derived if not (numeric_only and c == col) and
               (c in selected if selected is not None else c not in removed)]
    return sorted(present), derived
