"""TIME001 (unsafe): splits of time-ordered data stop shuffling (`shuffle=False`), so the test rows come after
the training rows. Unsafe because the split itself changes, and with it every reported metric."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import FixContext
from ..model import UNSAFE
from ..registry import fixer
from ._cst import Target, add_keyword, fix_each, is_name, kwarg, replace_node

TIME_WORDS = ("date", "time", "timestamp", "day", "month", "year", "week", "hour")


def time_ordered(ctx: FixContext) -> str | None:
    """Why the notebook's data looks time-ordered (own detector), or None."""
    import libcst as cst

    for v, call, q in ctx.calls():
        leaf = q.rsplit(".", 1)[-1]
        if kwarg(call, "parse_dates") is not None:
            return f"{v.cell.label()} parses dates (parse_dates=)"
        if leaf in ("to_datetime", "date_range", "DatetimeIndex", "rolling", "ewm", "resample", "pct_change"):
            return f"{v.cell.label()} calls {leaf}()"
        if leaf in ("sort_values", "set_index", "sort_index") and call.args:
            arg = call.args[0].value
            texts = [arg] if isinstance(arg, cst.SimpleString) else \
                [e.value for e in getattr(arg, "elements", []) if isinstance(e.value, cst.SimpleString)]
            for s in texts:
                if any(w in s.evaluated_value.lower() for w in TIME_WORDS):
                    return f"{v.cell.label()} orders rows by {s.value}"
    return None


def _targets(ctx: FixContext) -> Iterator[Target]:
    for v, call, q in ctx.calls():
        leaf = q.rsplit(".", 1)[-1]
        if not q.startswith("sklearn."):
            continue
        shuffle = kwarg(call, "shuffle")
        if leaf == "train_test_split":
            if shuffle is not None and is_name(shuffle.value, "False"):
                continue
        elif leaf in ("KFold", "StratifiedKFold"):
            if shuffle is None or not is_name(shuffle.value, "True"):
                continue
        else:
            continue
        if ctx.allowed("TIME001", v, v.parsed.span(call)[0], v.parsed.span(call)[2], scope="cell"):
            yield Target(v, call, leaf)


@fixer(id="no-shuffle-time-split", rules="TIME001", safety=UNSAFE, category="leakage.temporal", order=10,
       description="Split time-ordered data without shuffling (`shuffle=False`), so the model never trains on "
                   "rows that come after the ones it is tested on.")
def no_shuffle(ctx: FixContext) -> None:
    if not ctx.engine.has_rule("TIME001"):
        why = time_ordered(ctx)
        if why is None:
            return
    else:
        why = "the TIME001 rule found time-ordered data"

    def fix(ctx: FixContext, t: Target) -> bool:
        call = t.node
        p = t.view.parsed
        if kwarg(call, "stratify") is not None:
            ctx.leave("TIME001", t.view, t.line, "the split is stratified, which needs shuffling; use a "
                                                 "time-based cut-off or TimeSeriesSplit by hand.")
            return False
        shuffle = kwarg(call, "shuffle")
        edits = [replace_node(p, shuffle.value, "False")] if shuffle is not None else \
            add_keyword(p, call, "shuffle", "False")
        rs = kwarg(call, "random_state")
        unseeded = t.what != "train_test_split" and rs is not None
        if unseeded:
            edits.append(replace_node(p, rs.value, "None"))
        detail = (f"{why}, but `{t.what}` shuffles rows, so training sees rows from after the test period; "
                  "set shuffle=False so the split keeps time order" +
                  (" (random_state=None: KFold rejects a seed without shuffling)" if unseeded else "") +
                  ". Metrics will change; consider TimeSeriesSplit.")
        return ctx.edit(t.view, edits, summary=f"{t.what} no longer shuffles time-ordered rows", detail=detail,
                        line=t.line)

    fix_each(ctx, _targets, fix)
