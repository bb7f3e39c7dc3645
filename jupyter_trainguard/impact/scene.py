"""What the executed code says about the model being measured: its fit calls and the metric it reported.

Read from the ASTs of the executed cells (never by running anything): `model.fit(X_train, y_train, ...)`,
`acc = model.score(X_test, y_test)`, `f1_score(y_test, model.predict(X_test), average="macro")`,
`pred = model.predict(X_test)` then `accuracy_score(y_test, pred)`, `np.sqrt(mean_squared_error(...))`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

PREDICT_METHODS = ("predict", "predict_proba", "decision_function")


@dataclass
class FitCall:
    """`model.fit(x, y, **kwargs)` (or `model = Est(...).fit(x, y)`) in cell `cell`."""

    model: str
    x: str | None
    y: str | None
    kwargs: dict[str, ast.expr] = field(default_factory=dict)
    cell: int = 0
    code: str = ""


@dataclass
class ScoreCall:
    """A metric computed from `model` on the evaluation rows `x`/`y` in cell `cell`."""

    model: str
    x: str
    y: str
    metric: str  # a sklearn.metrics function name, or "score" (the estimator's own score)
    method: str = "score"  # predict | predict_proba | decision_function | score
    column: int | None = None  # predict_proba(X)[:, column]
    kwargs: dict[str, Any] = field(default_factory=dict)  # literal keyword arguments of the metric call
    sqrt: bool = False
    target: str | None = None  # the variable the value was assigned to
    cell: int = 0
    code: str = ""


def _name(node: ast.AST | None) -> str | None:
    return node.id if isinstance(node, ast.Name) else None


def _func_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _predict_of(
    node: ast.AST, preds: dict[str, tuple[str, str, str, int | None]]
) -> tuple[str, str, str, int | None] | None:
    """(model, x, method, column) for `model.predict(x)`, `model.predict_proba(x)[:, 1]` or a name bound to one."""
    column = None
    if isinstance(node, ast.Subscript):  # proba[:, 1]
        sl = node.slice
        if isinstance(sl, ast.Tuple) and len(sl.elts) == 2 and isinstance(sl.elts[1], ast.Constant):
            column = sl.elts[1].value if isinstance(sl.elts[1].value, int) else None
        inner = _predict_of(node.value, preds)
        if inner is None:
            return None
        return inner[0], inner[1], inner[2], column if column is not None else inner[3]
    if isinstance(node, ast.Name):
        return preds.get(node.id)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in PREDICT_METHODS
        and len(node.args) == 1
    ):
        model, x = _name(node.func.value), _name(node.args[0])
        if model and x:
            return model, x, node.func.attr, None
    return None


def _literal_kwargs(call: ast.Call) -> dict[str, Any]:
    out = {}
    for kw in call.keywords:
        if kw.arg is None:
            continue
        try:
            out[kw.arg] = ast.literal_eval(kw.value)
        except (ValueError, SyntaxError):
            continue
    return out


def _metric_call(call: ast.Call, preds: dict[str, tuple[str, str, str, int | None]]) -> ScoreCall | None:
    fname = _func_name(call.func)
    if fname is None:
        return None
    if fname == "score" and isinstance(call.func, ast.Attribute) and len(call.args) >= 2:
        model, x, y = _name(call.func.value), _name(call.args[0]), _name(call.args[1])
        if model and x and y:
            return ScoreCall(model, x, y, "score")
        return None
    if not (fname.endswith("_score") or fname.endswith("_error") or fname in ("log_loss",)) or len(call.args) < 2:
        return None
    y = _name(call.args[0])
    pred = _predict_of(call.args[1], preds)
    if y is None or pred is None:
        return None
    model, x, method, column = pred
    return ScoreCall(model, x, y, fname, method, column, _literal_kwargs(call))


def _is_sqrt(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and _func_name(node.func) == "sqrt" and len(node.args) == 1


class _Visitor(ast.NodeVisitor):
    def __init__(self, cell: int, code: str) -> None:
        self.cell, self.code = cell, code
        self.fits: list[FitCall] = []
        self.scores: list[ScoreCall] = []
        self.preds: dict[str, tuple[str, str, str, int | None]] = {}

    def _segment(self, node: ast.AST) -> str:
        return (ast.get_source_segment(self.code, node) or "")[:200]

    def visit_Assign(self, node: ast.Assign) -> None:
        target = _name(node.targets[0]) if len(node.targets) == 1 else None
        value = node.value
        if target:
            pred = _predict_of(value, self.preds)
            if pred is not None:
                self.preds[target] = pred
        self._calls(value, target)

    def visit_Expr(self, node: ast.Expr) -> None:
        self._calls(node.value, None)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._calls(node.value, None)

    def _calls(self, value: ast.AST, target: str | None) -> None:
        sqrt = _is_sqrt(value)
        top = value.args[0] if sqrt else value  # type: ignore[attr-defined]
        seen: set[int] = set()
        if isinstance(top, ast.Call):
            sc = _metric_call(top, self.preds)
            if sc is not None:
                sc.sqrt, sc.target, sc.cell, sc.code = sqrt, target, self.cell, self._segment(value)
                self.scores.append(sc)
                seen.add(id(top))
        for node in ast.walk(value):
            if not isinstance(node, ast.Call) or id(node) in seen:
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "fit" and node.args:
                self._fit(node, target)
            else:
                sc = _metric_call(node, self.preds)
                if sc is not None:
                    sc.cell, sc.code = self.cell, self._segment(node)
                    self.scores.append(sc)

    def _fit(self, node: ast.Call, target: str | None) -> None:
        owner = node.func.value  # type: ignore[attr-defined]
        model = _name(owner) or (target if isinstance(owner, ast.Call) else None)
        if model is None:
            return
        x = _name(node.args[0])
        y = (
            _name(node.args[1])
            if len(node.args) > 1
            else _name(next((k.value for k in node.keywords if k.arg == "y"), None))
        )
        kwargs = {k.arg: k.value for k in node.keywords if k.arg and k.arg != "y"}
        self.fits.append(FitCall(model, x, y, kwargs, self.cell, self._segment(node)))


@dataclass
class Scene:
    fits: list[FitCall] = field(default_factory=list)
    scores: list[ScoreCall] = field(default_factory=list)

    def fit_of(self, model: str, before_cell: int | None = None) -> FitCall | None:
        """The last fit of `model` at or before `before_cell`."""
        found = [f for f in self.fits if f.model == model and (before_cell is None or f.cell <= before_cell)]
        return found[-1] if found else None


_CELLS: dict[tuple[int, str], tuple[list[FitCall], list[ScoreCall]]] = {}  # (position, code) -> its calls


def _cell_calls(i: int, code: str) -> tuple[list[FitCall], list[ScoreCall]]:
    """The fit and metric calls of one cell (memoised: a session's earlier cells are read once)."""
    key = (i, code)
    if key not in _CELLS:
        try:
            tree = ast.parse(code)
        except SyntaxError:
            return [], []
        v = _Visitor(i, code)
        for stmt in tree.body:
            v.visit(stmt)
        if len(_CELLS) > 4096:
            _CELLS.clear()
        _CELLS[key] = (v.fits, v.scores)
    return _CELLS[key]


def read_scene(sources: list[str]) -> Scene:
    """Fit and metric calls of the executed cells (Python source, magics already transformed), in order."""
    scene = Scene()
    for i, code in enumerate(sources):
        fits, scores = _cell_calls(i, code)
        scene.fits.extend(fits)
        scene.scores.extend(scores)
    return scene
