"""LEAK006: target leakage, from the column facts of row provenance (`analysis.provenance.columns`); the other
leakage rules are in `leakage_provenance`. `dedupe` is shared by the rules that report one finding per line."""

from __future__ import annotations

from collections.abc import Iterator

from .context import NotebookContext
from .registry import Hit, rule


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
    """At each model fit (or cross-validation) whose labels are a column of a frame and whose features come from
    the same frame with known columns (`drop`, a column list, the frame itself), checks that the label column,
    the columns the label was built from and the columns built from the label are gone."""
    from ..analysis.provenance import record_of
    from ..analysis.provenance.detectors import target_leaks

    yield from dedupe(Hit(lk.at.cell, lk.at.line, lk.message, evidence=lk.evidence)
                      for lk in target_leaks(record_of(ctx.parsed, ctx.cache)) if lk.at.cell is not None)
