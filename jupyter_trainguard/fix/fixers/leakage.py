"""LEAK001 (unsafe): preprocessing fitted on all rows before the split is moved after it, fitted on the training
split only; fitted before a cross-validation (LEAK001 on all rows, LEAK008 on a training split) it moves into a
Pipeline with the model. Handles the common shape

    X_s = StandardScaler().fit_transform(X)          # or: scaler = ...; X_s = scaler.fit_transform(X)
    X_train, X_test, y_train, y_test = train_test_split(X_s, y, ...)

Unsafe because the scaled values, and so every metric, change (they stop being optimistic)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..context import FixContext, View
from ..model import UNSAFE
from ..registry import fixer
from ..work import TextEdit
from ._cst import Target, fix_each, line_indent

CV_HELPERS = frozenset({"cross_val_score", "cross_validate", "cross_val_predict", "learning_curve",
                        "validation_curve", "permutation_test_score"})
PREPROCESSING = ("sklearn.preprocessing.", "sklearn.decomposition.", "sklearn.feature_selection.",
                 "sklearn.impute.", "sklearn.feature_extraction.", "sklearn.random_projection.")


@dataclass
class Shape:
    fit_view: View
    fit_stmt: Any
    scaled: str  # X_s
    data: str  # X
    label: str | None  # y passed to fit_transform, if any
    transformer: str | None  # the fitted object's name, or None when created inline
    inline: Any | None  # the inline constructor call
    cls: str
    split_view: View
    split_stmt: Any
    split_call: Any
    targets: list[str]
    kind: str = "split"  # "split": train_test_split; "cv": cross_val_score & co. (fixed with a Pipeline)
    rule: str = "LEAK001"  # the finding fixed: LEAK008 when the rows fitted on are a training split


def _assign(stmt: Any) -> tuple[list[Any], Any] | None:
    import libcst as cst

    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        a = stmt.body[0]
        return [t.target for t in a.targets], a.value
    return None


def _names(ctx: FixContext) -> dict[str, int]:
    import libcst as cst

    counts: dict[str, int] = {}
    for v in ctx.views():
        class Count(cst.CSTVisitor):
            def visit_Name(self, node: cst.Name) -> None:
                counts[node.value] = counts.get(node.value, 0) + 1

        v.parsed.module.visit(Count())
    return counts


def _constructors(ctx: FixContext) -> dict[str, tuple[str, Any]]:
    """name -> (class qualname, call) for `name = SomePreprocessor(...)` at the top level."""
    import libcst as cst

    out: dict[str, tuple[str, Any]] = {}
    for _, stmt in ctx.top_statements():
        a = _assign(stmt)
        if a and len(a[0]) == 1 and isinstance(a[0][0], cst.Name) and isinstance(a[1], cst.Call):
            q = ctx.qualname(a[1].func)
            if q.startswith(PREPROCESSING):
                out[a[0][0].value] = (q, a[1])
    return out


def _shapes(ctx: FixContext) -> Iterator[Shape | tuple[View, Any, str]]:
    import libcst as cst

    ctors = _constructors(ctx)
    stmts = list(ctx.top_statements())
    for n, (v, stmt) in enumerate(stmts):
        a = _assign(stmt)
        if not a or len(a[0]) != 1 or not isinstance(a[0][0], cst.Name) or not isinstance(a[1], cst.Call):
            continue
        call = a[1]
        if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "fit_transform"):
            continue
        recv = call.func.value
        if isinstance(recv, cst.Call) and ctx.qualname(recv.func).startswith(PREPROCESSING):
            transformer, inline, cls = None, recv, ctx.qualname(recv.func)
        elif isinstance(recv, cst.Name) and recv.value in ctors:
            transformer, inline, cls = recv.value, None, ctors[recv.value][0]
        else:
            continue
        args = [x.value for x in call.args if x.keyword is None and not x.star]
        if not args or not all(isinstance(x, cst.Name) for x in args) or len(args) > 2 or \
                len(args) != len(call.args):
            continue
        scaled = a[0][0].value
        for sv, s2 in stmts[n + 1:]:
            cv = _cv_call(ctx, sv, s2, scaled)
            if cv is not None:
                lines = (v.parsed.span(stmt)[0], sv.parsed.span(s2)[0])
                rule = next((r for r in ("LEAK001", "LEAK008") if ctx.allowed(r, v, lines[0], v.parsed.span(stmt)[2])
                             or ctx.allowed(r, sv, lines[1], sv.parsed.span(s2)[2])), None)
                if rule is not None:
                    yield Shape(v, stmt, scaled, args[0].value, args[1].value if len(args) > 1 else None,
                                transformer, inline, cls, sv, s2, cv, [], kind="cv", rule=rule)
                break
            b = _assign(s2)
            if not b or not isinstance(b[1], cst.Call) or \
                    ctx.qualname(b[1].func).rsplit(".", 1)[-1] != "train_test_split":
                continue
            split = b[1]
            if not split.args or split.args[0].keyword is not None or \
                    not isinstance(split.args[0].value, cst.Name) or split.args[0].value.value != scaled:
                continue
            tgt = b[0][0] if len(b[0]) == 1 else None
            names = [e.value.value for e in getattr(tgt, "elements", []) if isinstance(e.value, cst.Name)]
            if not names or len(names) != len(getattr(tgt, "elements", [])) or len(names) % 2:
                yield (v, stmt, "the split's results are not unpacked into plain names")
                break
            lines = (v.parsed.span(stmt)[0], sv.parsed.span(s2)[0])
            if not (ctx.allowed("LEAK001", v, lines[0], v.parsed.span(stmt)[2]) or
                    ctx.allowed("LEAK001", sv, lines[1], sv.parsed.span(s2)[2])):
                break
            yield Shape(v, stmt, scaled, args[0].value, args[1].value if len(args) > 1 else None, transformer,
                        inline, cls, sv, s2, split, names)
            break


def _cv_call(ctx: FixContext, view: View, stmt: Any, scaled: str) -> Any | None:
    """A `cross_val_score(model, <scaled>, ...)`-like call inside `stmt`, with the data passed by position."""
    import libcst as cst

    sl, _, el, _ = view.parsed.span(stmt)
    for call in view.parsed.calls():
        if not sl <= view.parsed.span(call)[0] <= el:
            continue
        q = ctx.qualname(call.func)
        if not q.startswith("sklearn.") or q.rsplit(".", 1)[-1] not in CV_HELPERS or len(call.args) < 2:
            continue
        data = call.args[1]
        if call.args[0].keyword is None and data.keyword is None and isinstance(data.value, cst.Name) and \
                data.value.value == scaled:
            return call
    return None


def _targets(ctx: FixContext) -> Iterator[Target]:
    for s in _shapes(ctx):
        if isinstance(s, Shape):
            yield Target(s.fit_view, s.fit_stmt, s.scaled)
        else:
            yield Target(s[0], s[1], "?" + s[2])


def _free_name(base: str, used: dict[str, int]) -> str:
    name, n = base, 2
    while name in used:
        name, n = f"{base}_{n}", n + 1
    return name


def _snake(cls: str) -> str:
    leaf = cls.rsplit(".", 1)[-1]
    if leaf.endswith("Scaler"):
        return "scaler"
    return re.sub(r"(?<!^)(?=[A-Z])", "_", leaf).lower()


@fixer(id="split-before-preprocessing", rules=("LEAK001", "LEAK008"), safety=UNSAFE, category="leakage.preprocessing",
       order=20, description="Move `X_s = Scaler().fit_transform(X)` after `train_test_split`: fit on the "
                             "training split, transform the other splits.")
def split_first(ctx: FixContext) -> None:
    def fix(ctx: FixContext, t: Target) -> bool:
        if t.what.startswith("?"):
            ctx.leave("LEAK001", t.view, t.line, t.what[1:] + "; move the preprocessing after the split by hand.")
            return False
        shape = next((s for s in _shapes(ctx) if isinstance(s, Shape) and s.fit_stmt is t.node), None)
        if shape is None:
            return False
        used = _names(ctx)
        if shape.scaled == shape.data or used.get(shape.scaled, 0) != 2:
            ctx.leave("LEAK001", t.view, t.line,
                      f"`{shape.scaled}` is used elsewhere too, so moving the preprocessing would change other "
                      "code; fit it on the training split by hand (or use a Pipeline).")
            return False
        if shape.kind == "cv":
            return _into_pipeline(ctx, t, shape)
        n_arrays = len(shape.targets) // 2
        positional = [a for a in shape.split_call.args if a.keyword is None]
        y_pos = next((k for k, a in enumerate(positional[:n_arrays])
                      if shape.label and getattr(a.value, "value", None) == shape.label), None)
        if shape.label and y_pos is None:
            ctx.leave("LEAK001", t.view, t.line, f"the labels given to fit_transform ({shape.label}) are not "
                                                 "split alongside; move the preprocessing by hand.")
            return False
        fv, sv = shape.fit_view, shape.split_view
        name = shape.transformer or _free_name(_snake(shape.cls), used)
        train, others = shape.targets[0], [shape.targets[1]]
        y_train = shape.targets[2 * y_pos] if shape.label is not None else None
        indent = line_indent(sv.parsed, sv.parsed.span(shape.split_stmt)[0])
        new = []
        if shape.inline is not None:
            new.append(f"{name} = {fv.parsed.text(shape.inline)}")
        new.append(f"{train} = {name}.fit_transform({train}" + (f", {y_train})" if y_train else ")"))
        new.extend(f"{o} = {name}.transform({o})" for o in others)
        fsl, _, fel, fec = fv.parsed.span(shape.fit_stmt)
        old_text = fv.parsed.text(shape.fit_stmt.body[0]).replace("\n", " ")
        comment = f"# moved after the split, fitted on {train} only (trainguard fix LEAK001): {old_text}"
        ssl, _, sel, _ = sv.parsed.span(shape.split_stmt)
        first_arg = shape.split_call.args[0].value
        al, ac, ael, aec = sv.parsed.span(first_arg)
        split_line = sv.parsed.line(sel)
        edits_split = [TextEdit(al, ac, ael, aec, shape.data),
                       TextEdit.insert(sel, len(split_line), "".join("\n" + indent + x for x in new))]
        fit_edit = TextEdit(fsl, len(line_indent(fv.parsed, fsl)), fel, fec, comment)
        if fv.cell is sv.cell:
            return ctx.edit(sv, [fit_edit, *edits_split], summary="preprocessing moved after the split",
                            detail=_detail(shape, name, train, others), line=fsl)
        if not ctx.edit(sv, edits_split, summary="preprocessing moved after the split",
                        detail=_detail(shape, name, train, others), line=ssl):
            return False
        fresh = next((v for v in ctx.views() if v.cell is fv.cell), None)
        if fresh is not None:
            stmt = next((s for s in fresh.parsed.module.body if fresh.parsed.span(s)[0] == fsl), None)
            if stmt is not None:
                a, _, b, c = fresh.parsed.span(stmt)
                ctx.edit(fresh, [TextEdit(a, len(line_indent(fresh.parsed, a)), b, c, comment)],
                         summary="fit on all rows removed", line=a,
                         detail=f"`{shape.scaled}` was fitted on every row before the split; the fit now "
                                f"happens on {train} after the split (see {sv.cell.label()}).")
        return True

    fix_each(ctx, _targets, fix)


def _into_pipeline(ctx: FixContext, t: Target, shape: Shape) -> bool:
    """`X_s = Scaler().fit_transform(X)` + `cross_val_score(model, X_s, y)` ->
    `cross_val_score(make_pipeline(Scaler(), model), X, y)`: each fold fits the scaler on its own training part."""
    fv, sv = shape.fit_view, shape.split_view
    call = shape.split_call
    local = next((k for k, q in ctx.aliases.items() if q == "sklearn.pipeline.make_pipeline"), None)
    step = fv.parsed.text(shape.inline) if shape.inline is not None else shape.transformer
    model = sv.parsed.text(call.args[0].value)
    leaf = shape.cls.rsplit(".", 1)[-1]
    helper = ctx.qualname(call.func).rsplit(".", 1)[-1]
    fsl, _, fel, fec = fv.parsed.span(shape.fit_stmt)
    old_text = fv.parsed.text(shape.fit_stmt.body[0]).replace("\n", " ")
    indent = line_indent(fv.parsed, fsl)
    comment = f"# moved into a Pipeline with the model (trainguard fix {shape.rule}): {old_text}"
    if local is None:
        comment += f"\n{indent}from sklearn.pipeline import make_pipeline"
    edits_cv = [_replace(sv, call.args[0].value, f"{local or 'make_pipeline'}({step}, {model})"),
                _replace(sv, call.args[1].value, shape.data)]
    fit_edit = TextEdit(fsl, len(indent), fel, fec, comment)
    detail = (f"{leaf} was fitted on all rows of {shape.data} before {helper}, so every validation fold had "
              f"already been seen by it; it now runs inside make_pipeline({leaf}(...), model), which {helper} "
              f"refits on each fold's training part. Scores will drop to honest values.")
    if fv.cell is sv.cell:
        return ctx.edit(sv, [fit_edit, *edits_cv], summary="preprocessing moved into a Pipeline", detail=detail,
                        line=fsl, rule_id=shape.rule)
    if not ctx.edit(fv, [fit_edit], summary="preprocessing moved into a Pipeline", detail=detail, line=fsl,
                    rule_id=shape.rule):
        return False
    fresh = next((v for v in ctx.views() if v.cell is sv.cell), None)
    cv = None
    if fresh is not None:
        stmt = next((s for s in fresh.parsed.module.body if s is shape.split_stmt), None)
        cv = _cv_call(ctx, fresh, stmt, shape.scaled) if stmt is not None else None
    if cv is None:
        return True
    ctx.edit(fresh, [_replace(fresh, cv.args[0].value, f"{local or 'make_pipeline'}({step}, {model})"),
                     _replace(fresh, cv.args[1].value, shape.data)],
             summary="model wrapped in a Pipeline", line=fresh.parsed.span(cv)[0], rule_id=shape.rule,
             detail=f"{helper} now gets the pipeline and the raw {shape.data}.")
    return True


def _replace(view: View, node: Any, text: str) -> TextEdit:
    sl, sc, el, ec = view.parsed.span(node)
    return TextEdit(sl, sc, el, ec, text)


def _detail(shape: Shape, name: str, train: str, others: list[str]) -> str:
    leaf = shape.cls.rsplit(".", 1)[-1]
    return (f"{leaf} was fitted on all rows of {shape.data} before train_test_split, so statistics of the test "
            f"rows leaked into training; the split now takes {shape.data}, {name} is fitted on {train} only and "
            f"applied to {', '.join(others)}. Test scores will drop to honest values.")
