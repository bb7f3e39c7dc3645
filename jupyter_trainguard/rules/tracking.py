"""TRACK001-TRACK003: experiment tracking missing, runs left open on failure, incomplete run records."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from ..analysis.parsed import dotted
from ..analysis.usage import usage_of
from ..findings import cell_ref
from .context import NotebookContext
from .registry import Hit, rule

STARTS = ("mlflow.start_run", "wandb.init")
ENDS = ("end_run", "finish")


@rule(
    id="TRACK001", name="training-not-tracked", category="tracking", severity="info",
    rationale="The notebook trains a model but logs nothing to an experiment tracker (MLflow, W&B, "
              "TensorBoard, ...).",
    impact="Parameters, metrics and data behind a result are lost; it cannot be compared or reproduced later.",
    fix="Wrap training in `with mlflow.start_run():` (or wandb.init) and log params, metrics and the data version.",
    bad="model.fit(X_train, y_train)", good="with mlflow.start_run():\n    mlflow.autolog()\n"
                                           "    model.fit(X_train, y_train)",
)
def training_not_tracked(ctx: NotebookContext) -> Iterator[Hit]:
    """Once per notebook, at the first training call, when no tracking library is imported or used. Fitting only
    preprocessing (scalers, encoders, imputers, vectorizers, PCA) is not training a model."""
    u = usage_of(ctx)
    if not u.trains or u.tracking():
        return
    models = _model_fits(u)
    torch_training = bool(u.torch_train and u.optimizer_steps)
    c = min(models + (u.torch_train if torch_training else []), key=lambda c: c.pos, default=None)
    if c is not None:
        yield Hit.at(c.cell, c.node, f"Training starts in {cell_ref(c.cell)} but no experiment tracking "
                                     f"(MLflow, W&B, TensorBoard) is used in this notebook.",
                     evidence={"train_cell": c.cell.index + 1})


# compiled on first use (by `re`, which keeps it): only a notebook that fits something needs it
_PREPROCESSOR = (r"(Scaler|Encoder|Imputer|Vectorizer|Transformer|Binarizer|Normalizer|Discretizer|"
                 r"PCA|SVD|Selector|SelectKBest|SelectPercentile|PolynomialFeatures|Tokenizer|Embedder)$")


def _model_fits(u) -> list:
    """The fit calls that train a model: those of a preprocessing class (by its constructor, called in place or
    assigned to the receiver's name) are left out."""
    made_by = dict(u.assigned_calls)  # name -> qualified name of the call that made it (the last one wins)
    out = []
    for c in u.fits:
        func = c.node.func
        receiver = func.value if isinstance(func, ast.Attribute) else None
        if isinstance(receiver, ast.Call):
            made = dotted(receiver.func)
        elif isinstance(receiver, ast.Name):
            made = made_by.get(receiver.id, "")
        else:
            made = ""
        if not re.search(_PREPROCESSOR, made.rsplit(".", 1)[-1]):
            out.append(c)
    return out


def _protected(ctx: NotebookContext) -> set[int]:
    """ids of start calls used as `with` items, and True if a finally/except closes runs."""
    out = set()
    for _, node in usage_of(ctx).blocks:
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                out.add(id(item.context_expr))
    return out


def _closed_in_finally(ctx: NotebookContext) -> bool:
    for _, node in usage_of(ctx).blocks:
        if isinstance(node, ast.Try):
            blocks = list(node.finalbody) + [s for h in node.handlers for s in h.body]
            for s in blocks:
                for n in ast.walk(s):
                    if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ENDS:
                        return True
    return False


@rule(
    id="TRACK002", name="run-not-closed-on-failure", category="tracking", severity="warning",
    fix_safety="unsafe",
    rationale="mlflow.start_run()/wandb.init() outside a `with` block (or a finally that ends it) stays open when "
              "a cell fails; the kernel lives on.",
    impact="The next start_run fails ('Run ... is already active') or logs into the wrong run; the crashed run "
           "shows as RUNNING or FINISHED instead of FAILED.",
    fix="Use `with mlflow.start_run():` / `with wandb.init() as run:` (or end_run/finish in a finally block).",
    bad="mlflow.start_run()\nmodel.fit(X, y)\nmlflow.end_run()",
    good="with mlflow.start_run():\n    model.fit(X, y)",
)
def run_not_closed(ctx: NotebookContext) -> Iterator[Hit]:
    """Each start_run/init call not used as a context manager when no finally/except block ends the run."""
    u = usage_of(ctx)
    starts = u.named(*STARTS)
    if not starts or _closed_in_finally(ctx):
        return
    protected = _protected(ctx)
    for c in starts:
        if id(c.node) in protected:
            continue
        yield Hit.at(c.cell, c.node, f"`{c.q}()` in {cell_ref(c.cell)} is not a `with` block and no `finally` "
                                     f"ends the run: if a later cell fails the run stays open.",
                     evidence={"call": c.q})


@rule(
    id="TRACK003", name="run-record-incomplete", category="tracking", severity="warning",
    rationale="A tracked run should record parameters, metrics, the dataset version and the code version (git "
              "commit); notebooks do not get the commit automatically in MLflow.",
    impact="The run cannot be tied to the data and code that produced its metric, so it cannot be reproduced.",
    fix="Log params and metrics (or autolog), mlflow.log_input/dataset tag, and set_tag('git_commit', sha).",
    bad="with mlflow.start_run():\n    model.fit(X, y)",
    good="with mlflow.start_run():\n    mlflow.log_params(params)\n    mlflow.set_tag('git_commit', sha)\n"
         "    mlflow.set_tag('dataset_version', data_hash)\n    mlflow.log_metric('val_auc', auc)",
)
def run_record_incomplete(ctx: NotebookContext) -> Iterator[Hit]:
    """Once per notebook that starts a tracked run: lists which of params, metrics, dataset version and git commit
    are never logged."""
    u = usage_of(ctx)
    starts = u.named(*STARTS) + u.named("mlflow.autolog", "mlflow.sklearn.autolog", "mlflow.pytorch.autolog")
    if not starts:
        return
    is_wandb = bool(u.named("wandb.init"))
    autolog = any("autolog" in c.q for c in u.calls)
    tags = " ".join(ast.unparse(c.node).lower() for c in u.calls
                    if c.leaf in ("set_tag", "set_tags", "log_param", "log_params", "log_input", "log_dict",
                                  "log_artifact", "init", "update", "log_text") and c.q.split(".")[0] in
                    ("mlflow", "wandb", "") or c.leaf in ("set_tag", "set_tags", "log_input"))
    missing = []
    params = autolog or u.leaf_in({"log_param", "log_params"}) or (
        is_wandb and any(c.kw("config") is not None for c in u.named("wandb.init"))) or any(
        "config" in ast.unparse(c.node.func) for c in u.calls if c.leaf == "update")
    metrics = autolog or u.leaf_in({"log_metric", "log_metrics"}) or (is_wandb and u.leaf_in({"log"}))
    data = u.leaf_in({"log_input"}) or any(w in tags for w in ("dataset", "data_version", "data_hash", "dvc"))
    commit = is_wandb or any(w in tags for w in ("git", "commit", "sha"))
    for ok, what in ((params, "parameters"), (metrics, "metrics"), (data, "dataset version"),
                     (commit, "git commit")):
        if not ok:
            missing.append(what)
    if missing:
        c = min(starts, key=lambda c: c.pos)
        sev = "warning" if ("parameters" in missing or "metrics" in missing) else "info"
        yield Hit.at(c.cell, c.node, f"The tracked run started in {cell_ref(c.cell)} never logs: "
                                     f"{', '.join(missing)}.", evidence={"missing": missing}, severity=sev)
