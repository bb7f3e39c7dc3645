"""LEAK001-LEAK006: data leakage found by the notebook's cross-cell dataflow (`analysis.dataflow`)."""

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
    id="LEAK001", name="preprocessing-fit-on-test-data", category="leakage.preprocessing", severity="error",
    fix_safety="unsafe",
    rationale="A scaler, imputer, encoder, selector, vectorizer or PCA fitted on rows that later form the "
              "validation/test set carries their statistics into training.",
    impact="Validation/test scores are optimistic: the model was tuned with information from the evaluation rows.",
    fix="Split first, then fit the transform on the training split only (or put it in a Pipeline and fit/"
        "cross-validate the pipeline).",
    bad="X = StandardScaler().fit_transform(X)\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)",
    good="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\npipe = make_pipeline(StandardScaler(), "
         "LogisticRegression())\npipe.fit(X_tr, y_tr)",
)
def preprocessing_leak(ctx: NotebookContext) -> Iterator[Hit]:
    """Follows each transformer fit: fires when the fitted data is (an ancestor of) data that a later split, a
    cross-validation helper or a search turns into a held-out part, or when it already contains held-out rows,
    and the transformer's output (or the fitted object, through `transform`) reaches training."""
    flow = flow_of(ctx)
    holdouts = strong_holdouts(flow)
    trained = [f.data for f in model_fits(flow)]
    yield from dedupe(_preprocessing(flow, holdouts, trained))


def _fitted(fe) -> str:
    """How a fit reads in a message: a transformer's fit call, or a pandas/NumPy statistic."""
    if fe.est.ekind == "statistic":
        return f"The statistic `{fe.est.cls}` is computed"
    return f"{est_label(fe.est)} is fitted ({fe.method})"


def _feature_inputs(flow: Flow) -> list[Value]:
    """The split inputs that are features: everything but the label arguments of `train_test_split(X, y)`."""
    out = []
    for s in flow.splits:
        labels = s.inputs[1:] if s.kind == "split" and last_part(s.func) == "train_test_split" else []
        out += [i for i in s.inputs if i not in labels]
    return out


def _label_only(flow: Flow, fe, inputs: list[Value], reached: list[Value]) -> bool:
    """A statistic that only shapes the label (binarising or scaling the target) is not a feature leak."""
    if fe.data is not None and (fe.data.label is not None or fe.est.name):
        frame, c = fe.data.label if fe.data.label is not None else (None, fe.est.name)
        for fit in model_fits(flow):
            lab = fit.y.label if fit.y is not None else None
            if lab is not None and frame in (lab[0], None) and (lab[1] == c or c in (
                    flow.derived_cols.get(lab) or (set(),))[0]):
                return True
    cols = flow.stat_cols.get(fe.eid)
    carriers = [i for i in inputs + reached if fe.eid in i.taints]
    if not carriers:
        return True  # it reaches no features (only the labels of a split, or nothing at all)
    if all(i.label is not None for i in carriers):
        return True
    if not cols:
        return False
    for i in carriers:
        if i.cols is None:
            return False
        sel, removed = i.cols.get("selected"), i.cols["removed"]
        if any((c in sel) if sel is not None else (c not in removed) for c in cols):
            return False
    return True


def _preprocessing(flow: Flow, holdouts: dict[int, Value], trained: list[Value]) -> Iterator[Hit]:
    for fe in flow.fits:
        est = fe.est
        if not (est.ekind in ("transformer", "statistic") or (est.ekind == "pipeline" and
                                                               fe.method == "fit_transform")):
            continue
        d = fe.data
        if d is None or (d.role in HOLDOUT or d.role == "fold_val"):
            continue
        reached = [i for i in trained if fe.eid in i.taints]
        if est.ekind == "statistic" and _label_only(flow, fe, _feature_inputs(flow), reached):
            continue
        # an unnamed expression (df[cols], texts.str.lower()) stands for the named data it was read from
        core = d.anc if d.name else (d.anc - {d.vid}) or d.anc
        for s in flow.splits:
            if s.kind == "cv" and d.role in ("train", "fold_train"):
                continue
            inputs = [i for i in s.inputs if core <= i.anc]
            if not inputs:
                continue
            tainted_inputs = [i for i in s.inputs if fe.eid in i.taints]
            if not (tainted_inputs or reached):
                continue
            outs = [o for o in s.outputs if o.role in HOLDOUT + ("fold_val",) and o.name and core <= o.anc]
            if s.sources:  # prefer the held-out part of the input that carries this transformer's output
                direct = [o for o, src in zip(s.outputs, s.sources) if o in outs and src is not None and
                          fe.eid in src.taints]
                outs = direct or outs
            target = ", ".join(f"`{o.name}`" for o in outs[:2]) or "held-out folds"
            how = ("cross-validation" if s.kind in ("cv", "folds") else
                   "slicing/filtering rows" if s.kind == "slice" else last_part(s.func))
            yield Hit.at(fe.cell, fe.node,
                         f"{_fitted(fe)} in cell {fe.cell.index + 1} on {vname(d)}, "
                         f"whose rows are later split into {target} by {how} in cell {s.cell.index + 1}: "
                         f"test statistics leak into training.",
                         evidence={"transformer": last_part(est.cls), "fitted_on": d.name, "fit_cell": cell_no(fe),
                                   "fit_line": getattr(fe.node, "lineno", None), "split": last_part(s.func),
                                   "split_cell": cell_no(s), "split_line": getattr(s.node, "lineno", None),
                                   "held_out": [o.name for o in outs]})
            break
        else:
            inside = [holdouts[v] for v in d.anc if v in holdouts and v != d.vid]
            if inside and d.role is None and reached:
                h = inside[0]
                yield Hit.at(fe.cell, fe.node,
                             f"{_fitted(fe)} in cell {fe.cell.index + 1} on {vname(d)}, "
                             f"which contains the held-out {vname(h)} (split in {where(h)}): test statistics "
                             f"leak into training.",
                             evidence={"transformer": last_part(est.cls), "fitted_on": d.name,
                                       "fit_cell": cell_no(fe), "held_out": h.name, "held_out_cell": cell_no(h)})


@rule(
    id="LEAK002", name="resampling-before-split", category="leakage.overlap", severity="error",
    rationale="Oversampling (SMOTE, resample with replacement) or augmentation before the split puts copies of "
              "rows into both training and evaluation data.",
    impact="Evaluation rows are (near-)duplicates of training rows, so scores are far too high.",
    fix="Split first and resample/augment only the training split (imblearn Pipeline inside cross-validation).",
    bad="X_res, y_res = SMOTE().fit_resample(X, y)\nX_tr, X_te, y_tr, y_te = train_test_split(X_res, y_res)",
    good="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\nX_tr, y_tr = SMOTE().fit_resample(X_tr, y_tr)",
)
def resampling_before_split(ctx: NotebookContext) -> Iterator[Hit]:
    """Fires when resampled or augmented data is the input (or an ancestor of the input) of a split,
    cross-validation helper or search."""
    flow = flow_of(ctx)
    events = {id(ev): ev for ev in flow.resamples}
    seen = set()
    for s in flow.splits:
        for i in s.inputs:
            for rid in i.resampled:
                ev = events.get(rid)
                if ev is None or rid in seen:
                    continue
                seen.add(rid)
                how = "cross-validation" if s.kind in ("cv", "folds") else last_part(s.func)
                what = ev.detail.get("call") or ("augmentation (data concatenated with a transformed copy)"
                                                 if ev.what == "augment" else ev.what)
                yield Hit.at(ev.cell, ev.node,
                             f"{what} in cell {ev.cell.index + 1} creates rows before {vname(i)} is split by {how} "
                             f"in cell {s.cell.index + 1}: copies of the same rows end up in train and test.",
                             evidence={"resampling": what, "cell": ev.cell.index + 1,
                                       "line": getattr(ev.node, "lineno", None), "split": last_part(s.func),
                                       "split_cell": cell_no(s), "split_input": i.name})


@rule(
    id="LEAK003", name="train-test-overlap", category="leakage.overlap", severity="error",
    rationale="The model is trained on rows that are also in its evaluation data (fitted on the full data, on a "
              "set including the test split, or duplicated data).",
    impact="The evaluation measures memorisation of seen rows, not generalisation.",
    fix="Train only on the training split; keep one split of each source and never concatenate test rows into "
        "the training data.",
    bad="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\nmodel.fit(X, y)\nmodel.score(X_te, y_te)",
    good="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\nmodel.fit(X_tr, y_tr)\nmodel.score(X_te, y_te)",
)
def train_test_overlap(ctx: NotebookContext) -> Iterator[Hit]:
    """For each scoring call on held-out data, compares it with the data the scored model was last fitted on:
    the training data is an ancestor of the held-out data, contains it, or comes from the same source without
    going through the split that produced the held-out part. Also reports data duplicated before a split."""
    flow = flow_of(ctx)
    holdouts = strong_holdouts(flow)
    split_of = {o.vid: s for s in flow.splits for o in s.outputs}
    hits = []
    for sc in flow.scores:
        t, fe = sc.data, sc.fit
        if fe is None or fe.data is None or not t.strong or t.role not in HOLDOUT + ("fold_val",):
            continue
        if fe.est.ekind not in MODEL_KINDS:
            continue
        v = fe.data
        reason = None
        core = v.anc if v.name else (v.anc - {v.vid}) or v.anc
        if v.vid != t.vid and core <= t.anc:
            reason = f"{vname(v)} is the data {vname(t)} was split from"
        elif v.vid == t.vid:
            reason = f"it was fitted on {vname(t)} itself"
        else:
            shared = [holdouts[h] for h in (v.anc & t.anc) if h in holdouts]
            if shared:
                reason = f"{vname(v)} contains the held-out {vname(shared[0])}"
            else:
                for h in t.anc:
                    s = split_of.get(h)
                    if s is None or s.kind == "cv":
                        continue
                    if any(i.vid in v.anc for i in s.inputs) and not any(o.vid in v.anc for o in s.outputs):
                        reason = (f"{vname(v)} comes from the same data that was split in cell {s.cell.index + 1} "
                                  f"without going through that split")
                        break
        if reason:
            hits.append(Hit.at(sc.cell, sc.node,
                               f"{est_label(fe.est)} is scored ({sc.method}) on {vname(t)} in cell "
                               f"{sc.cell.index + 1} but was trained in cell {fe.cell.index + 1} on rows that "
                               f"include it: {reason}.",
                               evidence={"model": fe.est.name, "trained_on": v.name, "fit_cell": cell_no(fe),
                                         "scored_on": t.name, "score_cell": cell_no(sc)}))
    dups = {id(ev): ev for ev in flow.dups}
    seen = set()
    for s in flow.splits:
        if any(i.resampled for i in s.inputs):
            continue  # augmentation duplicates its labels on purpose; LEAK002 reports it
        for i in s.inputs:
            for did in i.dup:
                ev = dups.get(did)
                if ev is not None and did not in seen:
                    seen.add(did)
                    hits.append(Hit.at(ev.cell, ev.node,
                                       f"Data is concatenated with itself in cell {ev.cell.index + 1} before "
                                       f"{vname(i)} is split in cell {s.cell.index + 1}: duplicated rows land in "
                                       f"train and test.",
                                       evidence={"cell": ev.cell.index + 1, "split_cell": cell_no(s)}))
    yield from dedupe(iter(hits))


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
    """Counts distinct fitted models (a model built in a loop counts as several) whose predictions or scores
    on the test split are computed; two or more give one finding."""
    flow = flow_of(ctx)
    configs: dict[int, tuple] = {}
    count = 0
    last = None
    tested = [sc for sc in flow.scores if sc.fit is not None and sc.data.role == "test" and sc.data.strong and
              sc.fit.est.ekind in MODEL_KINDS]
    only_blended = _only_blended(flow, tested)
    for sc in tested:
        fe = sc.fit
        if fe.eid in configs or fe.eid in only_blended:
            continue
        configs[fe.eid] = (fe.est.name or last_part(fe.est.cls), cell_no(sc))
        count += 2 if fe.est.multi else 1
        last = sc
    if count >= 2 and last is not None:
        names = sorted({n for n, _ in configs.values()})
        cells = sorted({c for _, c in configs.values() if c})
        loop = " (in a loop over models/settings)" if any(f.est.multi for f in flow.fits if f.eid in configs) else ""
        yield Hit.at(last.cell, last.node,
                     f"The test split {vname(last.data)} is scored by {count if not loop else 'several'} model "
                     f"configurations{loop}: {', '.join('`' + n + '`' for n in names)} in cell(s) "
                     f"{', '.join(map(str, cells))}.",
                     evidence={"models": names, "cells": cells, "test": last.data.name})


def _only_blended(flow: Flow, tested: list) -> set[int]:
    """Fits whose test predictions are only ever scored mixed with another model's (an ensemble scored once)."""
    out = set()
    preds = {sc.result.vid: sc.fit.eid for sc in tested if sc.result is not None and sc.method not in
             ("score", "evaluate")}
    if len({*preds.values()}) < 2:
        return out
    reach: dict[int, list[tuple[set[int], bool]]] = {}
    for m, in_loop in flow.metric_vals:
        fits = {eid for vid, eid in preds.items() if vid in m.anc}
        for eid in fits:
            reach.setdefault(eid, []).append((fits, in_loop))
    for eid in set(preds.values()):
        uses = reach.get(eid)
        # a blend scored in a loop over weights is several configurations on the test set
        if uses and all(len(f) > 1 and not in_loop for f, in_loop in uses) and not any(
                sc.fit.eid == eid and sc.method in ("score", "evaluate") for sc in tested):
            out.add(eid)
    return out


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
