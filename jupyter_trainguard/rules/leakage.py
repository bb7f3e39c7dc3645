"""LEAK004-LEAK006: test-set selection, repeated scoring and target leakage, from the cross-cell dataflow
(`analysis.dataflow`). Preprocessing and overlap leakage live in `leakage_provenance`."""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.dataflow import HOLDOUT, Flow, Value, flow_of
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


def strong_holdouts(flow: Flow) -> dict[int, Value]:
    out = {}
    for s in flow.splits:
        for o in s.outputs:
            if o.role in HOLDOUT and o.strong:
                out[o.vid] = o
    return out


def model_fits(flow: Flow):
    return [f for f in flow.fits if f.est.ekind in MODEL_KINDS and f.data is not None]


@rule(
    id="LEAK004", name="test-set-used-for-selection", category="leakage.multi-test", severity="error",
    rationale="Early stopping, hyperparameter search or model choice driven by the test set makes the test score "
              "a training signal.",
    impact="The reported test score is biased upwards; there is no untouched data left to estimate real "
           "performance.",
    fix="Carve a validation split (or use cross-validation) for early stopping and selection; score the test set "
        "once at the end.",
    bad="model.fit(X_tr, y_tr, eval_set=[(X_te, y_te)], early_stopping_rounds=20)",
    good="X_tr, X_val, y_tr, y_val = train_test_split(X_tr, y_tr)\nmodel.fit(X_tr, y_tr, eval_set=[(X_val, y_val)],"
         " early_stopping_rounds=20)",
)
def test_set_selection(ctx: NotebookContext) -> Iterator[Hit]:
    """Fires on test data passed as eval_set/validation_data/evals/valid_sets/eval_dataset, on a search fitted on
    test data, on a test score used in a comparison, max/argmax/idxmax or sort, and on test scores computed in a
    loop over hyperparameter values."""
    flow = flow_of(ctx)
    hits = []
    for ev in flow.eval_uses:
        d = ev.detail
        effect = ("with early stopping/callbacks: it decides when training stops" if d.get("early_stopping")
                  else "as validation data: epochs and settings get chosen by watching it")
        hits.append(Hit.at(ev.cell, ev.node,
                           f"The test split `{d.get('variable')}` is passed as `{d['kwarg']}` to "
                           f"`{d.get('est')}` in cell {ev.cell.index + 1} {effect}, so it can no longer give an "
                           f"unbiased score.",
                           evidence={k: v for k, v in d.items() if k != "value"}))
    for fe in flow.fits:
        if fe.est.ekind == "search" and fe.data is not None and fe.data.role == "test":
            hits.append(Hit.at(fe.cell, fe.node,
                               f"{est_label(fe.est)} searches hyperparameters on the test split {vname(fe.data)} "
                               f"in cell {fe.cell.index + 1}.",
                               evidence={"search": last_part(fe.est.cls), "data": fe.data.name,
                                         "cell": cell_no(fe)}))
    for ev in flow.selections:
        v = ev.detail.get("value")
        if v is not None and v.role == "test" and v.strong:
            hits.append(Hit.at(ev.cell, ev.node,
                               f"A score computed on the test split is used to pick a model or setting in cell "
                               f"{ev.cell.index + 1} ({vname(v) if v.name else 'test score'}).",
                               evidence={"score": v.name, "cell": ev.cell.index + 1}))
    for sc in flow.scores:
        if sc.fit is None or not sc.fit.est.hyper or sc.data.role != "test" or not sc.data.strong:
            continue
        if any(kind == "hyper" for _, kind in sc.loops):
            hits.append(Hit.at(sc.cell, sc.node,
                               f"{est_label(sc.fit.est)} is rebuilt for each hyperparameter value of a loop and "
                               f"scored on the test split {vname(sc.data)} in cell {sc.cell.index + 1}: the test "
                               f"set is choosing the hyperparameter.",
                               evidence={"model": sc.fit.est.name, "test": sc.data.name, "cell": cell_no(sc)}))
    yield from dedupe(iter(hits))


@rule(
    id="LEAK005", name="test-set-scored-repeatedly", category="leakage.multi-test", severity="warning",
    rationale="Scoring several models or configurations on the same test set turns it into a selection set.",
    impact="The best of several test scores is an optimistic estimate (selection bias).",
    fix="Compare models with cross-validation or a validation split; report the chosen model's test score once.",
    bad="for m in models:\n    m.fit(X_tr, y_tr)\n    print(m.score(X_te, y_te))",
    good="for m in models:\n    print(cross_val_score(m, X_tr, y_tr).mean())\nbest.fit(X_tr, y_tr)\n"
         "print(best.score(X_te, y_te))",
)
def test_scored_repeatedly(ctx: NotebookContext) -> Iterator[Hit]:
    """Groups the scored evaluations by the held-out rows they read (row provenance): two or more model
    configurations (a model rebuilt in a loop over settings counts as several) on the same rows give a finding;
    one model scored twice, or a blend of models scored once, does not."""
    from ..analysis.provenance import record_of
    from ..analysis.provenance.detectors import multitest_leaks

    for lk in multitest_leaks(record_of(ctx.parsed, ctx.cache)):
        if lk.at.cell is not None:
            yield Hit(lk.at.cell, lk.at.line, lk.message, evidence=lk.evidence, severity=lk.severity)


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
