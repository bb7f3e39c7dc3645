"""LEAK001-LEAK005, LEAK007, LEAK008: preprocessing, overlap and multi-test leakage proven by row provenance
(`analysis.provenance`): every finding names the rows' path (fit, split, evaluation) with cell and line."""

from __future__ import annotations

from collections.abc import Iterator

from ..analysis.provenance import record_of
from ..analysis.provenance.detectors import (
    Leak,
    multitest_leaks,
    overlap_leaks,
    preprocessing_leaks,
    selection_leaks,
    synthesis_leaks,
)
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


def _in_progress(ctx: NotebookContext) -> bool:
    """The live session's cells so far (more may follow), not a finished notebook: a leak whose evaluation has not
    been written yet is reported ahead of it."""
    return ctx.notebook.format == "session"


def _preprocessing(ctx: NotebookContext) -> list[Leak]:
    if "provenance_preprocessing" not in ctx.cache:
        ctx.cache["provenance_preprocessing"] = preprocessing_leaks(_record(ctx), pending=_in_progress(ctx))
    return ctx.cache["provenance_preprocessing"]


def _overlaps(ctx: NotebookContext) -> list[Leak]:
    if "provenance_overlap" not in ctx.cache:
        ctx.cache["provenance_overlap"] = overlap_leaks(_record(ctx), pending=_in_progress(ctx))
    return ctx.cache["provenance_overlap"]


@rule(
    id="LEAK001", name="preprocessing-fit-on-test-data", category="leakage.preprocessing", severity="error",
    fix_safety="unsafe",
    rationale="A scaler, imputer, selector, vectorizer, PCA, SMOTE or pandas/NumPy statistic learned from rows "
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
    (held out from the model's training) carry statistics learned from rows that include them, or when an
    interpolating oversampler run before the split built training rows from them."""
    yield from _hits(_preprocessing(ctx) + synthesis_leaks(_overlaps(ctx)), ("preprocessing",))


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
    """Reads row provenance: fires when the final held-out rows (no disjoint held-out part is left) are the
    early-stopping/best-checkpoint set of a fit or trainer, the data of a search, the scores compared, maxed,
    sorted or fed to a plateau scheduler to pick a candidate, or the scores of a model rebuilt per setting."""
    yield from _hits(selection_leaks(_record(ctx)), ("selection",))


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
    yield from _hits(multitest_leaks(_record(ctx)), ("multi-test",))


@rule(
    id="LEAK008", name="fitted-before-cross-validation", category="leakage.validation", severity="warning",
    fix_safety="unsafe",
    rationale="A transform or oversampler fitted on the whole training split before cross-validating on it "
              "gives each held-out fold its own rows' statistics or copies.",
    impact="The cross-validated score that picks settings or models is optimistic; the test part the split kept "
           "aside is not affected.",
    fix="Put the transform or sampler in a Pipeline (imblearn's for samplers) with the model and cross-validate "
        "the pipeline, so each fold fits it on its own training rows.",
    bad="X_tr = StandardScaler().fit_transform(X_tr)\nGridSearchCV(SVC(), grid, cv=5).fit(X_tr, y_tr)",
    good="GridSearchCV(make_pipeline(StandardScaler(), SVC()), {'svc__C': [1, 10]}, cv=5).fit(X_tr, y_tr)",
)
def fitted_before_cross_validation(ctx: NotebookContext) -> Iterator[Hit]:
    """Row provenance: a cross-validation (or search) over rows that all lie on the training side of a split,
    whose held-out folds carry statistics learned from them, or copies made from them, before the folds were cut."""
    yield from _hits(_preprocessing(ctx) + _overlaps(ctx), ("validation",))
