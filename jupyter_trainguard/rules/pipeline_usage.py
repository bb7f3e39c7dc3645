"""PIPE001/PIPE002: standard notebooks only call the runner; experimental notebooks still use the components."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..analysis.parsed import ParsedNotebook, dotted, last_part
from ..findings import FrozenRecord
from ..notebook.model import Cell
from .context import NotebookContext
from .registry import Hit, rule

_MODEL_BASES = {"torch.nn.Module", "nn.Module", "Module", "torch.nn.modules.module.Module",
                "pytorch_lightning.LightningModule", "lightning.LightningModule", "LightningModule"}
_LOSS_NAMES = {"cross_entropy", "mse_loss", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
               "l1_loss", "smooth_l1_loss", "kl_div", "huber_loss"}


class TrainingSign(FrozenRecord):
    """A place where a notebook trains by itself, and what it does there."""

    cell: Cell
    node: ast.AST
    what: str

    def __init__(self, cell: Cell, node: ast.AST, what: str) -> None:
        self.__dict__.update(cell=cell, node=node, what=what)


def training_signs(parsed: ParsedNotebook, component_prefixes: tuple[str, ...] = ()) -> list[TrainingSign]:
    """Every place where the notebook itself trains: loops, backward, optimizer steps, fit, model/optimizer
    construction, loss computation. Calls into the shared components do not count."""
    signs: list[TrainingSign] = []
    trainers = _training_functions(parsed)
    for cell, node in parsed.walk():
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            parts = (node.test,) if isinstance(node, ast.While) else (node.target, node.iter)
            text = " ".join(_names(p) for p in parts).lower()
            if ("epoch" in text or "batch" in text) and _loop_trains(node, trainers):
                signs.append(TrainingSign(cell, node, "an epoch/batch training loop"))
        elif isinstance(node, ast.ClassDef):
            bases = {parsed.qualname(b) for b in node.bases} | {dotted(b) for b in node.bases}
            if bases & _MODEL_BASES:
                signs.append(TrainingSign(cell, node, f"a model class definition ({node.name})"))
        elif isinstance(node, ast.Call):
            q = parsed.qualname(node.func)
            if component_prefixes and q.startswith(component_prefixes):
                continue
            leaf = last_part(q)
            owner = q.rsplit(".", 1)[0].lower() if "." in q else ""
            if leaf == "backward" and isinstance(node.func, ast.Attribute):
                signs.append(TrainingSign(cell, node, "a backward() call"))
            elif leaf == "step" and ("optim" in owner or "opt" == owner.split(".")[-1]):
                signs.append(TrainingSign(cell, node, "an optimizer.step() call"))
            elif leaf in ("fit", "fit_generator", "train_on_batch") and isinstance(node.func, ast.Attribute):
                signs.append(TrainingSign(cell, node, f"a .{leaf}() call"))
            elif q.startswith("torch.optim.") and leaf[:1].isupper():
                signs.append(TrainingSign(cell, node, f"optimizer construction ({leaf})"))
            elif q.startswith(("torch.nn.", "nn.")) and leaf.endswith("Loss"):
                signs.append(TrainingSign(cell, node, f"loss construction ({leaf})"))
            elif q.startswith(("torch.nn.functional.", "F.")) and leaf in _LOSS_NAMES:
                signs.append(TrainingSign(cell, node, f"loss computation ({leaf})"))
            elif q.startswith(("torch.nn.", "nn.")) and leaf in ("Sequential", "Linear", "Conv2d", "LSTM",
                                                                   "Transformer", "TransformerEncoder"):
                signs.append(TrainingSign(cell, node, f"model construction ({leaf})"))
            elif leaf == "TrainingRig":
                signs.append(TrainingSign(cell, node, "model set-up (TrainingRig)"))
    return signs


def _names(node: ast.AST) -> str:
    return " ".join(n.id for n in ast.walk(node) if isinstance(n, ast.Name)) + " " + \
        " ".join(n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute))


# calls that train: a loop over epochs/batches is training code only when its body makes one of them (printing or
# plotting a returned history per epoch is not)
_TRAIN_CALLS = frozenset({"backward", "step", "zero_grad", "fit", "fit_generator", "partial_fit", "train_on_batch",
                          "train", "train_step", "training_step", "train_epoch", "train_one_epoch", "run_epoch"})


def _called_leaves(body: list[ast.stmt]) -> set[str]:
    out = set()
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)):
                out.add(n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id)
    return out


def _training_functions(parsed: ParsedNotebook) -> frozenset[str]:
    """Names of the notebook's own functions whose bodies train (call backward/step/fit/...)."""
    return frozenset(node.name for _, node in parsed.walk()
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and _called_leaves(node.body) & _TRAIN_CALLS)


def _loop_trains(loop: ast.For | ast.AsyncFor | ast.While, trainers: frozenset[str]) -> bool:
    """The loop's body trains: it makes a training call, or calls a notebook function that does."""
    called = _called_leaves(loop.body)
    return bool(called & _TRAIN_CALLS or called & trainers)


def component_prefixes(ctx: NotebookContext) -> tuple[str, ...]:
    pkg = ctx.config.package_name
    if not pkg:
        return ()
    return (pkg + ".", pkg.split(".")[-1] + ".")


@rule(
    id="PIPE001", name="training-in-standard-notebook", category="pipeline", severity="error",
    rationale="A standard notebook may only configure and call the shared runner; its own training code drifts.",
    impact="Results of standard experiments stop being comparable: they no longer come from the shared pipeline.",
    fix="Move the training code into the components package and call the configured runner instead.",
    fix_safety="unsafe",
    bad="for epoch in range(EPOCHS):\n    loss = criterion(model(x), y)\n    loss.backward()\n    optimizer.step()",
    good="from notebooks.components.experiment_runner import run_standard_experiment\n"
         "results = run_standard_experiment(COMPONENT, POSITIONS, DATASET, OUTPUT_DIR)",
)
def training_in_standard_notebook(ctx: NotebookContext) -> Iterator[Hit]:
    """In notebooks configured as *standard*, reports each cell that trains by itself (one finding per cell)."""
    if ctx.kind != "standard":
        return
    by_cell: dict[int, list[TrainingSign]] = {}
    for sign in training_signs(ctx.parsed, component_prefixes(ctx)):
        by_cell.setdefault(sign.cell.index, []).append(sign)
    runner = ctx.config.runner.rsplit(".", 1)[-1] if ctx.config.runner else "the configured runner"
    for signs in by_cell.values():
        first = min(signs, key=lambda s: getattr(s.node, "lineno", 0))
        kinds = sorted({s.what for s in signs})
        yield Hit.at(first.cell, first.node,
                     f"Standard notebook contains training code: {', '.join(kinds)}; it should only call {runner}().",
                     evidence={"signs": kinds, "runner": ctx.config.runner})


@rule(
    id="PIPE002", name="experimental-bypasses-components", category="pipeline", severity="warning",
    rationale="Experimental notebooks may train their own way but must still use the shared set-up and artifacts.",
    impact="Runs without the shared device set-up and artifact saving cannot be compared or recovered.",
    fix="Call the required shared components (for example device_setup.setup() and artifacts.save_report()).",
    bad="device = torch.device('cuda')\n... train ...\ntorch.save(model.state_dict(), 'out.pt')",
    good="from notebooks.components import device_setup, artifacts\ndevice = device_setup.setup()\n"
         "... train ...\nartifacts.save_report(OUTPUT_DIR, report)",
)
def experimental_bypasses_components(ctx: NotebookContext) -> Iterator[Hit]:
    """In notebooks configured as *experimental* that train, reports each required component call that is missing."""
    if ctx.kind != "experimental" or not ctx.config.required_calls:
        return
    signs = training_signs(ctx.parsed, component_prefixes(ctx))
    if not signs:
        return
    called = [q for _, _, q in ctx.parsed.calls() if q]
    first = signs[0]
    for required in ctx.config.required_calls:
        if not any(q == required or q.endswith("." + required) for q in called):
            yield Hit.at(first.cell, first.node,
                         f"Experimental notebook trains ({first.what}) but never calls the shared {required}().",
                         evidence={"missing_call": required})
