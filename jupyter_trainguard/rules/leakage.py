"""LEAK006: target leakage, from the cross-cell dataflow (`analysis.dataflow`), which tracks columns derived from
the label. The other leakage rules read row provenance (`leakage_provenance`)."""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.dataflow import Value, flow_of
from ..analysis.parsed import last_part
from .context import NotebookContext
from .registry import Hit, rule

REGRESSORS = ("Regressor", "Regression", "SVR", "Ridge", "Lasso", "ElasticNet", "Lars", "LassoLars")
MODEL_KINDS = ("model", "pipeline", "search", "torch", "unknown")


def vname(v: Value | None) -> str:
    if v is None:
        return "the data"
    return f"`{v.text()}`"


def where(v: Value | None) -> str:
    return f"cell {v.cell.index + 1}" if v is not None and v.cell is not None else "an earlier cell"


def cell_no(obj) -> int | None:
    c = getattr(obj, "cell", None)
    return c.index + 1 if c is not None else None


def est_label(est) -> str:
    return f"`{est.name}` ({last_part(est.cls)})" if est.name else f"`{last_part(est.cls)}`"


def dedupe(hits: Iterator[Hit]) -> Iterator[Hit]:
    seen = set()
    for h in hits:
        key = (h.cell.index if h.cell else None, h.line)
        if key not in seen:
            seen.add(key)
            yield h


@rule(
    id="LEAK006", name="target-leakage", category="leakage.target", severity="error",
    rationale="The label column, a column the label was computed from, or a feature computed from the label is "
              "left in the features.",
    impact="The model reads the answer from its input: near-perfect scores that vanish in production.",
    fix="Drop the label and every column derived from it (or from the columns it was derived from) from X.",
    bad="y = df['churn']\nX = df.drop(columns=['customer_id'])\nmodel.fit(X, y)",
    good="y = df['churn']\nX = df.drop(columns=['customer_id', 'churn'])\nmodel.fit(X, y)",
)
def target_leakage(ctx: NotebookContext) -> Iterator[Hit]:
    """At each model fit whose labels are a column of a frame and whose features come from the same frame with
    known columns (`drop`, a column list, the frame itself), checks that the label column, the columns the label
    was built from and the columns built from the label are gone."""
    flow = flow_of(ctx)
    hits = []
    for fe in flow.fits:
        if fe.est.ekind not in MODEL_KINDS and fe.method != "cv":
            continue
        x, y = fe.data, fe.y
        if x is None or y is None or y.label is None or x.cols is None:
            continue
        frame, col = y.label
        if x.cols["frame"] != frame:
            continue
        # only columns that existed when the features were taken (flow-sensitive)
        cols = {c: v for (f, c), v in flow.derived_cols.items() if f == frame}

        def existed(c: str, cols=cols, taken=x.vid) -> bool:
            """Was column `c` in the frame when the features were taken?"""
            info = cols.get(c)
            return info is None or info[1] < taken or info[2]

        label_info = cols.get(col)
        sources = label_info[0] if label_info is not None else set()
        label_cols = ({col} if existed(col) else set()) | {c for c in sources if existed(c)}
        derived = {c for c, (refs, seq, _) in cols.items() if c != col and col in refs and seq < x.vid}
        selected = x.cols.get("selected")
        removed = x.cols["removed"]
        # select_dtypes('number') keeps the label only when it is numeric, which a regressor's label is
        est_cls = last_part(fe.est.cls)
        numeric_only = x.cols.get("numeric_only") and not (est_cls.endswith(REGRESSORS) and
                                                           not est_cls.startswith("Logistic"))

        def present(c: str, selected=selected, removed=removed, numeric_only=numeric_only, label=col) -> bool:
            if numeric_only and c == label:
                return False
            return c in selected if selected is not None else c not in removed

        leaks = sorted(c for c in label_cols | derived if present(c))
        if not leaks:
            continue
        kinds = []
        for c in leaks:
            if c == col:
                kinds.append(f"the label column '{c}'")
            elif c in derived:
                kinds.append(f"'{c}' (computed from the label)")
            else:
                kinds.append(f"'{c}' (the label was computed from it)")
        hits.append(Hit.at(fe.cell, fe.node,
                           f"{est_label(fe.est)} is fitted in cell {fe.cell.index + 1} on {vname(x)} with labels "
                           f"{vname(y)}, but the features still contain {', '.join(kinds)}.",
                           evidence={"features": x.name, "labels": y.name, "columns": leaks,
                                     "fit_cell": cell_no(fe)}))
    yield from dedupe(iter(hits))
