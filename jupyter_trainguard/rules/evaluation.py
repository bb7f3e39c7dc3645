"""EVAL001: a metric computed on training data is reported as a validation/test metric."""

from __future__ import annotations

from collections.abc import Iterator

from .context import NotebookContext
from .leakage import dedupe
from .registry import Hit, rule


@rule(
    id="EVAL001", name="train-metric-reported-as-validation", category="evaluation", severity="error",
    rationale="A score computed on the rows the model was fitted on measures memorisation; naming or printing it "
              "as a validation/test score misreports the model.",
    impact="The reported 'validation' or 'test' metric is the training metric: far too optimistic.",
    fix="Compute the reported metric on the held-out split (X_val/X_test), or label it as a training metric.",
    bad="model.fit(X_train, y_train)\ntest_acc = model.score(X_train, y_train)",
    good="model.fit(X_train, y_train)\ntest_acc = model.score(X_test, y_test)",
)
def train_metric_as_validation(ctx: NotebookContext) -> Iterator[Hit]:
    """Finds metric/score calls whose data is the training split (or exactly the data the model was fitted on)
    and whose result is assigned to a val/test-named variable or printed/logged under a validation/test label."""
    from ..analysis.provenance import record_of

    hits = []
    for site, d in record_of(ctx.parsed, ctx.cache).reports:
        label = f"as `{d['as']}`" if d.get("as") != "printed label" else "under a validation/test label"
        var = f" (`{d['variable']}`)" if d.get("variable") else (f" (`{d['metric']}`)" if d.get("metric") else "")
        hits.append(Hit(site.cell, site.line,
                        f"A metric computed on training data{var} is reported {label} in {site.where()}.",
                        evidence={**d, "cell": site.cell.index + 1, "line": site.line}))
    yield from dedupe(iter(hits))
