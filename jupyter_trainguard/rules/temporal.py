"""TIME001: a random split or shuffled cross-validation on time-ordered data."""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import cell_label, cell_ref
from .context import NotebookContext
from .leakage import dedupe
from .registry import Hit, rule

# evidence of time order and its weight; two points make the data time-ordered
WEIGHTS = {"op": 2, "window": 2, "datetime": 1, "parse_dates": 1, "set_index": 1, "sort_values": 1}


def time_weight(evidence) -> int:
    kinds = {e[0].split(":")[0] for e in evidence}
    return sum(WEIGHTS.get(k, 0) for k in kinds)


def describe(evidence, cells=()) -> str:
    parts: list[str] = []
    for what, cell, _line in sorted(evidence, key=lambda e: (e[1], e[2] or 0, e[0])):
        kind, _, arg = what.partition(":")
        label = {"op": f"`.{arg}()`", "datetime": "`to_datetime`", "parse_dates": "`parse_dates=`",
                 "set_index": f"`set_index('{arg}')`", "sort_values": f"`sort_values('{arg}')`",
                 "window": "sliding windows `x[i:i + n]`"}.get(kind, kind)
        part = f"{label} in {cell_ref(cells[cell]) if 0 <= cell < len(cells) else cell_label(cell)}"
        if part not in parts:  # the same operation on several columns of one cell is one piece of evidence
            parts.append(part)
    return ", ".join(parts[:3])


@rule(
    id="TIME001", name="shuffled-split-on-time-series", category="leakage.temporal", severity="error",
    fix_safety="unsafe",
    rationale="Shuffling time-ordered rows before splitting (train_test_split, KFold(shuffle=True), ShuffleSplit, "
              "df.sample) trains on the future and tests on the past.",
    impact="Lag/rolling features and trends leak from later rows: scores much better than a real forecast.",
    fix="Split by time: train_test_split(..., shuffle=False), a cut-off date, or TimeSeriesSplit for CV.",
    bad="df['lag1'] = df['sales'].shift(1)\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)",
    good="df['lag1'] = df['sales'].shift(1)\nX_tr, X_te, y_tr, y_te = train_test_split(X, y, shuffle=False)",
)
def shuffled_time_split(ctx: NotebookContext) -> Iterator[Hit]:
    """Time order is inferred from lag/rolling/diff/resample operations (strong), datetime parsing, and setting
    the index or sorting by a date-like column; a shuffling split of such data fires."""
    from ..analysis.provenance import record_of

    hits = []
    for s in record_of(ctx.parsed, ctx.cache).splits:
        if not s.shuffle:
            continue
        for i in s.inputs:
            if time_weight(i.time) >= 2:
                how = s.how if s.how != "sample" else "a random `sample`"
                hits.append(Hit(s.site.cell, s.site.line,
                                f"{how} in {s.site.where()} shuffles `{i.name or 'the data'}`, which is "
                                f"time-ordered ({describe(i.time, ctx.notebook.cells)}): the model trains on the "
                                "future.",
                                evidence={"split": how, "data": i.name, "cell": s.site.cell.index + 1,
                                          "time_evidence": sorted(e[0] for e in i.time)}))
                break
    yield from dedupe(iter(hits))
