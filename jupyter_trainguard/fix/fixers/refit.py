"""LEAK001 (unsafe): a transformer fitted on the training rows is fitted again on the rows it is then evaluated
on. Handles

    X_train = scaler.fit_transform(X_train)
    X_test = scaler.fit_transform(X_test)        # -> scaler.transform(X_test)
    scaler.fit(X_test)                           # -> removed (kept as a comment)

Unsafe because the evaluated features, and so every metric, change (they stop being optimistic)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..context import FixContext, View
from ..model import UNSAFE
from ..registry import fixer
from ..work import TextEdit
from ._cst import Target, fix_each, line_indent


def _fit_call(stmt: Any) -> tuple[Any, str, str] | None:
    """(call, object name, method) for a top-level `[targets =] name.fit(...)`/`name.fit_transform(...)`."""
    import libcst as cst

    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    value = small.value if isinstance(small, (cst.Assign, cst.Expr)) else None
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return None
    if value.func.attr.value not in ("fit", "fit_transform") or not value.args or value.args[0].keyword is not None:
        return None
    if isinstance(value.func.value, cst.Name):
        return value, value.func.value.value, value.func.attr.value
    if isinstance(value.func.value, cst.Call) and value.func.attr.value == "fit" and isinstance(small, cst.Assign) \
            and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        return value, small.targets[0].target.value, "first-fit"  # sc = StandardScaler().fit(X_tr)
    return None


def _targets(ctx: FixContext) -> Iterator[Target]:
    """Second and later fits of one object on other data, after it was fitted once (document order)."""
    first: dict[str, str] = {}  # object name -> the data text of its first fit
    for view, stmt in ctx.top_statements():
        found = _fit_call(stmt)
        if found is None:
            continue
        call, name, _method = found
        data = view.parsed.text(call.args[0].value)
        if name not in first or _method == "first-fit":
            first[name] = data
        elif data != first[name]:
            yield Target(view, stmt, name)


@fixer(id="no-refit-on-evaluated-rows", rules="LEAK001", safety=UNSAFE, category="leakage.preprocessing",
       order=25, description="`X_test = scaler.fit_transform(X_test)` after fitting on the training rows becomes "
                             "`scaler.transform(X_test)`; a bare re-fit on the evaluated rows is removed.")
def no_refit(ctx: FixContext) -> None:
    def fix(ctx: FixContext, t: Target) -> bool:
        line = t.line
        if not ctx.allowed("LEAK001", t.view, line):
            return False
        found = _fit_call(t.node)
        if found is None:
            return False
        call, name, method = found
        if method == "first-fit":
            return False
        view: View = t.view
        data = view.parsed.text(call.args[0].value)
        old = view.parsed.text(t.node.body[0]).replace("\n", " ")
        if method == "fit_transform":
            sl, sc, el, ec = view.parsed.span(call.func.attr)
            if len(call.args) > 1:  # fit_transform(X, y): transform takes the features only
                _, _, al, ac = view.parsed.span(call.args[0].value)
                _, _, bl, bc = view.parsed.span(call)
                edits = [TextEdit(al, ac, bl, bc - 1, ""), TextEdit(sl, sc, el, ec, "transform")]
            else:
                edits = [TextEdit(sl, sc, el, ec, "transform")]
            detail = (f"`{name}` was fitted on the training rows, then fitted again on `{data}`, the rows it is "
                      f"evaluated on; `{data}` is now transformed with the training statistics.")
            return ctx.edit(view, edits, summary="re-fit on evaluated rows replaced by transform", detail=detail,
                            line=line)
        sl, _, el, ec = view.parsed.span(t.node)
        indent = line_indent(view.parsed, sl)
        comment = f"# removed: re-fitted {name} on the evaluated rows (trainguard fix LEAK001): {old}"
        detail = (f"`{name}` was fitted on the training rows, then fitted again on `{data}`, the rows it is "
                  f"evaluated on; the re-fit is removed so `{data}` is transformed with the training statistics.")
        return ctx.edit(view, [TextEdit(sl, len(indent), el, ec, comment)],
                        summary="re-fit on evaluated rows removed", detail=detail, line=line)

    fix_each(ctx, _targets, fix)
