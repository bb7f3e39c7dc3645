"""CKPT001-CKPT003: checkpoints that cannot resume training, resumes that restore only the model, unsafe loads."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..analysis.usage import assigned_names, usage_of
from ..findings import cell_ref
from .context import NotebookContext
from .registry import Hit, rule

CKPT_WORDS = ("ckpt", "checkpoint", "resume", "epoch", "last", "latest", "step")


def _says_checkpoint(node: ast.AST) -> bool:
    text = ast.unparse(node).lower()
    return any(w in text for w in CKPT_WORDS)


def _in_training_loop(u, c) -> bool:
    """The call sits inside a loop that trains (or inside a function called from one)."""
    for cell, loop, _ in u.loops:
        if cell is c.cell and loop.lineno <= c.node.lineno <= (loop.end_lineno or loop.lineno):
            body = ast.unparse(loop)
            if ".backward(" in body or ".step(" in body or ".fit(" in body:
                return True
    if c.in_func:
        return any(lc.leaf == c.in_func and _in_training_loop(u, lc) for lc in u.calls if lc.q == c.in_func)
    return False


def run_sites(u, c, depth: int = 4, seen: frozenset[str] = frozenset()) -> list:
    """The top-level call sites through which `c` really runs, in replay order: `c` itself outside functions;
    inside a notebook function, the (transitively) executed calls of that function. Empty when it never runs
    (a function that is defined but not called)."""
    if not c.in_func:
        return [c]
    if depth == 0 or c.in_func in seen:
        return []
    out = []
    for caller in u.calls:
        if caller.q == c.in_func and caller.in_func != c.in_func:
            out.extend(run_sites(u, caller, depth - 1, seen | {c.in_func}))
    return sorted(out, key=lambda s: s.pos)


def _saved_paths(u) -> set[str]:
    return {a.value for c in u.named("torch.save") for a in c.node.args[1:2]
            if isinstance(a, ast.Constant) and isinstance(a.value, str)}


def _optimizers(ctx: NotebookContext) -> set[str]:
    return assigned_names(usage_of(ctx), lambda q: q.startswith("torch.optim.") and ".lr_scheduler." not in q)


def _state_dict_names(ctx: NotebookContext) -> set[str]:
    return assigned_names(usage_of(ctx), lambda q: q.endswith(".state_dict"))


@rule(
    id="CKPT001", name="checkpoint-weights-only", category="checkpointing", severity="warning",
    fix_safety="unsafe",
    rationale="torch.save of only the model (state_dict or module) drops the optimizer state, epoch and "
              "scheduler, so training cannot resume where it stopped.",
    impact="A resumed run restarts the optimizer (momentum, Adam moments, LR schedule) and diverges from an "
           "uninterrupted one.",
    fix="Save a dict: {'model': model.state_dict(), 'optimizer': opt.state_dict(), 'epoch': epoch, ...}.",
    bad="torch.save(model.state_dict(), 'ckpt.pt')",
    good="torch.save({'model': model.state_dict(), 'optimizer': opt.state_dict(), 'epoch': epoch}, 'ckpt.pt')",
)
def weights_only_checkpoint(ctx: NotebookContext) -> Iterator[Hit]:
    """Fires on torch.save whose object is a `.state_dict()` (or a module), or a dict literal without an
    optimizer entry, in a notebook that creates a torch optimizer, when the save is a checkpoint: inside a training
    loop (or a helper called from one) or named like one (ckpt, checkpoint, epoch, last, resume). A final export
    of the trained weights after training is not reported."""
    u = usage_of(ctx)
    opts = _optimizers(ctx)
    if not opts:
        return
    sd_names = _state_dict_names(ctx)
    from ..analysis.provenance import record_of

    modules = {n for n, v in record_of(ctx.parsed, ctx.cache).env.items() if v.kind == "obj" and
               v.obj.role == "torch"}
    for c in u.named("torch.save"):
        if not c.node.args:
            continue
        obj = c.node.args[0]
        what = None
        if isinstance(obj, ast.Call) and isinstance(obj.func, ast.Attribute) and obj.func.attr == "state_dict":
            if not any(o in ast.unparse(obj.func.value) for o in opts) and "optim" not in ast.unparse(obj).lower():
                what = f"only `{ast.unparse(obj)}`"
        elif isinstance(obj, ast.Name) and (obj.id in sd_names or obj.id in modules):
            what = f"only `{obj.id}`"
        elif isinstance(obj, ast.Dict):
            keys = " ".join(ast.unparse(k).lower() for k in obj.keys if k is not None)
            vals = " ".join(ast.unparse(v) for v in obj.values)
            if "optim" not in keys and not any(o in vals for o in opts):
                what = "a dict without the optimizer state"
        if what and not (_in_training_loop(u, c) or _says_checkpoint(c.node)):
            continue  # a final export of the trained weights, not a checkpoint to resume from
        if what:
            yield Hit.at(c.cell, c.node, f"`torch.save` in {cell_ref(c.cell)} stores {what}: the optimizer "
                                         f"state ({', '.join(sorted(opts))}) and epoch are not saved, so training "
                                         f"cannot resume exactly.", evidence={"optimizers": sorted(opts)})


@rule(
    id="CKPT002", name="resume-restores-model-only", category="checkpointing", severity="warning",
    fix_safety="unsafe",
    rationale="Training continues after loading a checkpoint, but only the model's state_dict is restored.",
    impact="The optimizer and schedule restart from scratch; the resumed run differs from an uninterrupted one.",
    fix="Restore optimizer (and scheduler, scaler, epoch) too: opt.load_state_dict(ckpt['optimizer']).",
    bad="model.load_state_dict(torch.load('ckpt.pt'))\nfor epoch in range(5): train(...)",
    good="ckpt = torch.load('ckpt.pt', weights_only=True)\nmodel.load_state_dict(ckpt['model'])\n"
         "opt.load_state_dict(ckpt['optimizer'])\nstart = ckpt['epoch'] + 1",
)
def resume_model_only(ctx: NotebookContext) -> Iterator[Hit]:
    """Fires at the model's load_state_dict when no optimizer load_state_dict exists, an optimizer step or
    backward pass runs after it in replay order (a step inside a function counts where the function is called,
    and not at all when it is never called), and the load is a resume: the file is one this notebook saves, or the
    load is named like a checkpoint. Loading pretrained weights to fine-tune, or to predict, is not reported."""
    u = usage_of(ctx)
    loads = u.methods("load_state_dict")
    if not loads:
        return
    opts = _optimizers(ctx)
    if any(c.receiver() in opts or "optim" in c.receiver().lower() for c in loads):
        return
    steps = u.optimizer_steps + u.torch_train
    saved = _saved_paths(u)
    loaded_from = {a.value for c in u.named("torch.load") for a in c.node.args[:1]
                   if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    resuming = bool(saved & loaded_from) or any(_says_checkpoint(c.node) for c in u.named("torch.load")) or \
        any(_says_checkpoint(c.node) for c in loads)
    if not resuming:
        return  # loading pretrained weights to fine-tune is not a resume
    if not (opts or u.optimizer_steps):
        return
    step_runs = sorted((site for s in steps for site in run_sites(u, s)), key=lambda site: site.pos)
    for c in sorted(loads, key=lambda c: c.pos):
        load_runs = run_sites(u, c)
        if not load_runs:
            continue  # a load inside a function that is never called
        later = [site for site in step_runs if site.pos > load_runs[0].pos]
        if later:
            yield Hit.at(c.cell, c.node, f"`{c.receiver()}.load_state_dict` in {cell_ref(c.cell)} restores "
                                         f"only the model, then training continues ({cell_ref(later[0].cell)}) "
                                         f"with a fresh optimizer state.",
                         evidence={"model": c.receiver(), "train_cell": later[0].cell.index + 1})
            return


@rule(
    id="CKPT003", name="torch-load-without-weights-only", category="checkpointing", severity="warning",
    fix_safety="safe",
    rationale="torch.load without weights_only unpickles arbitrary objects, and its default changed in torch 2.6.",
    impact="Loading may run foreign code, or fail/behave differently on another torch version.",
    fix="torch.load(path, weights_only=True) (allow-list extra types with torch.serialization.add_safe_globals).",
    bad="state = torch.load('ckpt.pt')", good="state = torch.load('ckpt.pt', weights_only=True)",
)
def torch_load_unsafe(ctx: NotebookContext) -> Iterator[Hit]:
    """Each torch.load call without an explicit weights_only= argument."""
    for c in usage_of(ctx).named("torch.load"):
        if c.kw("weights_only") is None:
            yield Hit.at(c.cell, c.node, f"`torch.load` in {cell_ref(c.cell)} has no `weights_only=`: it may "
                                         f"unpickle arbitrary code and depends on the torch version's default.",
                         evidence={"call": "torch.load"})
