"""Which namespace objects are the session's datasets: read from the code that ran.

Names passed to training and evaluation (`fit`, `score`, `DataLoader`, a split, ...) are datasets; names
that only hold a leftover of a loop (`for X, y in loader:`), a model's output (`pred = model(x)`) or one
sample (`x = test_data[0][0]`) are not, however array-like they look.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

DATA_CALLS = frozenset(
    {
        "fit",
        "fit_transform",
        "partial_fit",
        "fit_resample",
        "score",
        "evaluate",
        "cross_val_score",
        "cross_validate",
        "cross_val_predict",
        "train_test_split",
        "random_split",
        "DataLoader",
        "TensorDataset",
        "Subset",
        "GridSearchCV",
        "RandomizedSearchCV",
        "train",
        "test",
        "validate",
        "train_loop",
        "test_loop",
        "fit_one_epoch",
        "learning_curve",
        "permutation_importance",
    }
)
OUTPUT_CALLS = frozenset({"predict", "predict_proba", "predict_log_proba", "decision_function", "forward"})
DATA_KEYWORDS = frozenset(
    {
        "X",
        "y",
        "x",
        "dataset",
        "train_dataset",
        "eval_dataset",
        "eval_set",
        "validation_data",
        "train_data",
        "test_data",
        "dataloader",
        "train_dataloaders",
        "val_dataloaders",
    }
)


@dataclass
class Roles:
    used: dict[str, str] = field(default_factory=dict)  # name -> the call it was passed to
    leftover: dict[str, str] = field(default_factory=dict)  # name -> why it is not a dataset


def _leaf(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _names(target: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]


def _single_sample(value: ast.AST) -> bool:
    """`ds[0]`, `ds[0][1]`: constant indexes pick one sample, not a dataset."""
    if not isinstance(value, ast.Subscript):
        return False
    index = value.slice
    return (
        isinstance(index, ast.Constant)
        and isinstance(index.value, int)
        and (isinstance(value.value, ast.Name) or _single_sample(value.value))
    )


class _Visitor(ast.NodeVisitor):
    def __init__(self, roles: Roles, models: frozenset[str]) -> None:
        self.roles, self.models, self.loop = roles, models, 0

    def visit_FunctionDef(self, node: ast.AST) -> None:  # locals never reach the namespace
        return

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def _loop(self, node: ast.For | ast.AsyncFor | ast.While) -> None:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            for name in _names(node.target):
                self.roles.leftover[name] = "a loop variable: the last item of a loop, not a dataset"
            self.visit(node.iter)
        else:
            self.visit(node.test)
        self.loop += 1
        for stmt in node.body + node.orelse:
            self.visit(stmt)
        self.loop -= 1

    visit_For = visit_AsyncFor = visit_While = _loop

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        values = node.value.elts if isinstance(node.value, ast.Tuple) else None
        for target in node.targets:
            if values is not None and isinstance(target, ast.Tuple) and len(target.elts) == len(values):
                pairs = list(zip(target.elts, values))
            else:
                pairs = [(target, node.value)]
            for tgt, value in pairs:
                why = self._why_leftover(value)
                for name in _names(tgt):
                    if why:
                        self.roles.leftover[name] = why
                    else:
                        self.roles.leftover.pop(name, None)

    def _why_leftover(self, value: ast.AST) -> str | None:
        if self.loop:
            return "assigned inside a loop: the last iteration's value, not a dataset"
        if isinstance(value, ast.Call):
            leaf = _leaf(value.func)
            if leaf in OUTPUT_CALLS or (isinstance(value.func, ast.Name) and value.func.id in self.models):
                return "a model's output, not a dataset"
        if _single_sample(value):
            return "one sample picked by index, not a dataset"
        return None

    def visit_Call(self, node: ast.Call) -> None:
        leaf = _leaf(node.func)
        if (
            leaf == "run_cell_magic"
            and len(node.args) == 3
            and isinstance(node.args[2], ast.Constant)
            and isinstance(node.args[2].value, str)
        ):  # a %%cell magic's body is code too
            read_code(node.args[2].value, self.roles, self.models)
        if leaf in DATA_CALLS:
            for arg in node.args:
                if isinstance(arg, ast.Name):
                    self.roles.used.setdefault(arg.id, leaf)
            for kw in node.keywords:
                if kw.arg in DATA_KEYWORDS and isinstance(kw.value, ast.Name):
                    self.roles.used.setdefault(kw.value.id, leaf)
        self.generic_visit(node)


def read_code(source: str, roles: Roles, models: frozenset[str] = frozenset()) -> None:
    """Add what one cell's code says about its names to `roles`; code that does not parse adds nothing."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return
    _Visitor(roles, models).visit(tree)


def code_roles(sources: list[str], models: frozenset[str] = frozenset()) -> Roles:
    """Roles of names over the executed cells, in order (a later assignment replaces an earlier one)."""
    roles = Roles()
    for src in sources:
        if isinstance(src, str) and src.strip():
            read_code(src, roles, models)
    return roles
