"""LEAK001, LEAK002, LEAK003, LEAK007: preprocessing and overlap leakage proven by row provenance
(`analysis.provenance`): every finding names the fit, the split and the evaluation, with cell and line."""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.provenance import record_of
from ..analysis.provenance.detectors import Leak, overlap_leaks, preprocessing_leaks
from .context import NotebookContext
from .registry import Hit, rule


def _hits(leaks: list[Leak], kinds: tuple[str, ...]) -> Iterator[Hit]:
    seen = set()
    for lk in leaks:
        if lk.kind not in kinds:
            continue
        key = (id(lk.at.cell), lk.at.line)
        if key in seen or lk.at.cell is None:
            continue
        seen.add(key)
        yield Hit(lk.at.cell, lk.at.line, lk.message, evidence=lk.evidence, severity=lk.severity)


def _record(ctx: NotebookContext):
    return record_of(ctx.parsed, ctx.cache)


def _overlaps(ctx: NotebookContext) -> list[Leak]:
    if "provenance_overlap" not in ctx.cache:
        ctx.cache["provenance_overlap"] = overlap_leaks(_record(ctx))
    return ctx.cache["provenance_overlap"]


@rule(
    id="LEAK001", name="preprocessing-fit-on-test-data", category="leakage.preprocessing", severity="error",
    fix_safety="unsafe",
    rationale="A scaler, imputer, selector, vectorizer, PCA or pandas/NumPy statistic learned from rows that are "
              "later evaluated carries them into the features.",
    impact="Validation/test scores are optimistic: the features of the evaluation rows were computed with "
           "information from those very rows.",
    fix="Split first, then fit the transform on the training split only and apply it to the others (or put it in "
        "a Pipeline and fit/cross-validate the pipeline).",
    bad="X = StandardScaler().fit_transform(X)\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)",
    good="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\npipe = make_pipeline(StandardScaler(), "
         "LogisticRegression())\npipe.fit(X_tr, y_tr)",
)
def preprocessing_leak(ctx: NotebookContext) -> Iterator[Hit]:
    """Follows the rows each fit learned from to every evaluation of a model: fires when the evaluated rows
    (held out from the model's training) carry statistics learned from rows that include them."""
    yield from _hits(preprocessing_leaks(_record(ctx)), ("preprocessing",))


@rule(
    id="LEAK002", name="resampling-before-split", category="leakage.overlap", severity="error",
    rationale="Oversampling (SMOTE, resample with replacement), augmentation or duplication before the split puts "
              "copies of rows into both training and evaluation data.",
    impact="Evaluation rows are (near-)duplicates of training rows, so scores are far too high.",
    fix="Split first and resample/augment only the training split (imblearn Pipeline inside cross-validation).",
    bad="X_res, y_res = SMOTE().fit_resample(X, y)\nX_tr, X_te, y_tr, y_te = train_test_split(X_res, y_res)",
    good="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\nX_tr, y_tr = SMOTE().fit_resample(X_tr, y_tr)",
)
def resampling_before_split(ctx: NotebookContext) -> Iterator[Hit]:
    """Fires when a model is evaluated on copies of its training rows made by resampling before the split."""
    yield from _hits(_overlaps(ctx), ("resampled",))


@rule(
    id="LEAK003", name="train-test-overlap", category="leakage.overlap", severity="error",
    rationale="The model is evaluated on rows it was trained on (fitted on the full data, or on a set that "
              "contains the evaluation rows).",
    impact="The evaluation measures memorisation of seen rows, not generalisation.",
    fix="Train only on the training split; keep one split of each source and never concatenate test rows into "
        "the training data.",
    bad="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\nmodel.fit(X, y)\nmodel.score(X_te, y_te)",
    good="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\nmodel.fit(X_tr, y_tr)\nmodel.score(X_te, y_te)",
)
def train_test_overlap(ctx: NotebookContext) -> Iterator[Hit]:
    """Compares the rows each evaluation receives with the rows the model was fitted on."""
    yield from _hits(_overlaps(ctx), ("overlap",))


@rule(
    id="LEAK007", name="evaluated-on-training-rows", category="leakage.overlap", severity="error",
    rationale="A score computed on the rows the model was fitted on measures memorisation; reported as the "
              "model's score it overstates how well it generalises.",
    impact="The reported number is a training score (often near perfect), not an estimate on unseen data.",
    fix="Report the score on a held-out split or from cross-validation; label a training score as such "
        "(this finding is a warning when a held-out score of the same model is reported too).",
    bad="model.fit(X, y)\nprint(accuracy_score(y, model.predict(X)))",
    good="X_tr, X_te, y_tr, y_te = train_test_split(X, y)\nmodel.fit(X_tr, y_tr)\n"
         "print(accuracy_score(y_te, model.predict(X_te)))",
)
def evaluated_on_training_rows(ctx: NotebookContext) -> Iterator[Hit]:
    """Fires when a model is scored or predicts on exactly the rows it was fitted on."""
    yield from _hits(_overlaps(ctx), ("train-rows",))
