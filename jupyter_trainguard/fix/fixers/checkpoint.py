"""Checkpoint fixes: `weights_only=True` on `torch.load` (CKPT003, safe) and complete, resumable checkpoints
(CKPT001, unsafe: the saved file's layout changes, so every load of it is rewritten too)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..context import FixContext, View
from ..model import SAFE, UNSAFE
from ..registry import fixer
from ..work import TextEdit
from ._cst import Target, add_keyword, fix_each, has_star_kwargs, kwarg, line_indent

MODEL_METHODS = frozenset({"parameters", "named_parameters", "state_dict", "train", "eval", "forward",
                           "load_state_dict", "zero_grad"})
EPOCH_NAMES = ("epoch", "ep", "epoch_idx", "i_epoch", "current_epoch")


def _model_names(ctx: FixContext) -> set[str]:
    import libcst as cst

    names: set[str] = set()
    for _, call, _ in ctx.calls():
        f = call.func
        if isinstance(f, cst.Attribute) and f.attr.value in MODEL_METHODS and isinstance(f.value, cst.Name):
            if f.attr.value != "zero_grad":
                names.add(f.value.value)
    return names


def _whole_object_saves(ctx: FixContext) -> list[str]:
    import libcst as cst

    models = _model_names(ctx)
    out = []
    for _, call, q in ctx.calls():
        if q == "torch.save" and call.args and isinstance(call.args[0].value, cst.Name) and \
                call.args[0].value.value in models:
            out.append(call.args[0].value.value)
    return out


def _loads(ctx: FixContext) -> Iterator[Target]:
    for v, call, q in ctx.calls():
        if q == "torch.load" and kwarg(call, "weights_only") is None and not has_star_kwargs(call):
            if ctx.allowed("CKPT003", v, v.parsed.span(call)[0], v.parsed.span(call)[2]):
                yield Target(v, call, "torch.load")


@fixer(id="torch-load-weights-only", rules="CKPT003", safety=SAFE, category="checkpointing", order=60,
       description="Add `weights_only=True` to `torch.load` so loading a checkpoint cannot run arbitrary code.")
def weights_only(ctx: FixContext) -> None:
    whole = _whole_object_saves(ctx)

    def fix(ctx: FixContext, t: Target) -> bool:
        if whole:
            ctx.leave("CKPT003", t.view, t.line,
                      f"the notebook saves the whole object `{whole[0]}` with torch.save, which weights_only=True "
                      "cannot load; save its state_dict() instead, then add weights_only=True.")
            return False
        return ctx.edit(t.view, add_keyword(t.view.parsed, t.node, "weights_only", "True"),
                        summary="added weights_only=True to torch.load",
                        detail="torch.load without weights_only unpickles arbitrary objects (code execution from "
                               "an untrusted file; the default changed in torch 2.6); added weights_only=True.",
                        line=t.line)

    fix_each(ctx, _loads, fix)


# -- CKPT001 ------------------------------------------------------------------------------------------------------
@dataclass
class State:
    optimizer: str | None = None
    scheduler: str | None = None
    scaler: str | None = None
    epochs: str | None = None  # constant with the number of epochs


def _training_state(ctx: FixContext) -> tuple[State, list[str]]:
    """Names of the optimizer, scheduler and grad scaler assigned in the notebook (ambiguities listed)."""
    import libcst as cst

    found: dict[str, list[str]] = {"optimizer": [], "scheduler": [], "scaler": []}
    for _v, stmt in ctx.top_statements():
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if not (isinstance(small, cst.Assign) and isinstance(small.value, cst.Call)):
                continue
            if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
                continue
            name = small.targets[0].target.value
            q = ctx.qualname(small.value.func)
            if q.startswith("torch.optim.lr_scheduler."):
                kind = "scheduler"
            elif q.startswith("torch.optim.") and q.rsplit(".", 1)[-1][:1].isupper():
                kind = "optimizer"
            elif q.endswith("GradScaler") and q.startswith("torch."):
                kind = "scaler"
            else:
                continue
            if name not in found[kind]:
                found[kind].append(name)
    problems = [f"several {k}s ({', '.join(v)})" for k, v in found.items() if len(v) > 1]
    state = State(*(v[0] if len(v) == 1 else None for v in found.values()))
    return state, problems


def _enclosing_for(view: View, node: Any) -> Any | None:
    import libcst as cst

    cur = view.parsed.parents.get(node)
    while cur is not None:
        if isinstance(cur, cst.For):
            return cur
        cur = view.parsed.parents.get(cur)
    return None


def _epoch_expr(ctx: FixContext, view: View, call: Any) -> str | None:
    import libcst as cst

    loop = _enclosing_for(view, call)
    while loop is not None:
        if isinstance(loop.target, cst.Name) and loop.target.value in EPOCH_NAMES:
            return loop.target.value
        loop = _enclosing_for(view, loop)
    for v, stmt in ctx.top_statements():
        if isinstance(stmt, cst.For) and isinstance(stmt.target, cst.Name) and stmt.target.value in EPOCH_NAMES:
            if ctx.work.before(v.cell, view.parsed.span(stmt)[0], view.cell, view.parsed.span(call)[0]):
                return stmt.target.value
    return None


def _state_dict_owner(expr: Any) -> str | None:
    import libcst as cst

    if isinstance(expr, cst.Call) and not expr.args and isinstance(expr.func, cst.Attribute) and \
            expr.func.attr.value == "state_dict" and isinstance(expr.func.value, cst.Name):
        return expr.func.value.value
    return None


def _weight_saves(ctx: FixContext) -> Iterator[Target]:
    for v, call, q in ctx.calls():
        if q == "torch.save" and len(call.args) >= 2 and _state_dict_owner(call.args[0].value):
            if ctx.allowed("CKPT001", v, v.parsed.span(call)[0], v.parsed.span(call)[2]):
                yield Target(v, call, "torch.save")


def _matching_loads(ctx: FixContext, path_text: str) -> tuple[list[tuple[View, Any, Any, str]], list[str]]:
    """`X.load_state_dict(torch.load(PATH...))` statements for this path, and loads that cannot be rewritten."""
    import libcst as cst

    ok: list[tuple[View, Any, Any, str]] = []
    bad: list[str] = []
    for v, call, q in ctx.calls():
        if q != "torch.load" or not call.args:
            continue
        if v.parsed.text(call.args[0].value) != path_text:
            continue
        parent = v.parsed.parents.get(call)
        outer = v.parsed.parents.get(parent) if isinstance(parent, cst.Arg) else None
        stmt = v.parsed.parents.get(v.parsed.parents.get(outer)) if outer is not None else None
        if isinstance(outer, cst.Call) and isinstance(outer.func, cst.Attribute) and \
                outer.func.attr.value == "load_state_dict" and isinstance(outer.func.value, cst.Name) and \
                isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            ok.append((v, stmt, call, outer.func.value.value))
        else:
            bad.append(f"{v.cell.label()} line {v.parsed.span(call)[0]}")
    return ok, bad


@fixer(id="complete-checkpoint", rules=("CKPT001", "CKPT002"), safety=UNSAFE, category="checkpointing", order=55,
       description="Save a resumable checkpoint dict (model, optimizer, epoch, plus scheduler/scaler when present) "
                   "and rewrite the matching `load_state_dict(torch.load(...))` to restore all of it.")
def complete_checkpoint(ctx: FixContext) -> None:
    def fix(ctx: FixContext, t: Target) -> bool:
        state, problems = _training_state(ctx)
        call = t.node
        model = _state_dict_owner(call.args[0].value)
        if problems or state.optimizer is None:
            why = "; ".join(problems) if problems else "no optimizer (torch.optim.*) is assigned in the notebook"
            ctx.leave("CKPT001", t.view, t.line, f"cannot build a complete checkpoint: {why}.")
            return False
        path_text = t.view.parsed.text(call.args[1].value)
        loads, bad = _matching_loads(ctx, path_text)
        if bad:
            ctx.leave("CKPT001", t.view, t.line, f"the checkpoint {path_text} is also loaded at {', '.join(bad)} "
                                                 "in a form that cannot be rewritten safely; change both by hand.")
            return False
        epoch = _epoch_expr(ctx, t.view, call)
        items = [f'"model": {model}.state_dict()', f'"optimizer": {state.optimizer}.state_dict()']
        for key in ("scheduler", "scaler"):
            name = getattr(state, key)
            if name:
                items.append(f'"{key}": {name}.state_dict()')
        if epoch:
            items.append(f'"epoch": {epoch}')
        edits = [_replace(t.view, call.args[0].value, "{" + ", ".join(items) + "}")]
        ok = ctx.edit(t.view, edits, summary="checkpoint saves model, optimizer" +
                      (", epoch" if epoch else "") + (" and scheduler" if state.scheduler else ""),
                      detail=f"torch.save stored only {model}'s weights, so training cannot resume with the same "
                             "optimizer state" + ("" if epoch else " (no epoch loop variable was found, so the epoch "
                                                  "is not stored)") + "; it now saves a dict of "
                             + ", ".join(i.split(":")[0].strip('"') for i in items) + ".", line=t.line)
        if not ok:
            return False
        for _ in range(100):
            loads = _matching_loads(ctx, path_text)[0]
            if not loads:
                break
            v, stmt, load_call, target = loads[0]
            indent = line_indent(v.parsed, v.parsed.span(stmt)[0])
            load_text = v.parsed.text(load_call)
            if "weights_only" not in load_text:
                load_text = load_text[:-1] + ", weights_only=True)"
            lines = [f"checkpoint = {load_text}", f'{target}.load_state_dict(checkpoint["model"])',
                     f'{state.optimizer}.load_state_dict(checkpoint["optimizer"])']
            for key in ("scheduler", "scaler"):
                name = getattr(state, key)
                if name:
                    lines.append(f'{name}.load_state_dict(checkpoint["{key}"])')
            if epoch:
                lines.append('start_epoch = checkpoint["epoch"] + 1')
            sl, sc, el, ec = v.parsed.span(stmt.body[0])
            ctx.edit(v, [TextEdit(sl, sc, el, ec, ("\n" + indent).join(lines))],
                     summary="resume restores the whole checkpoint", rule_id="CKPT002",
                     detail=f"the load of {path_text} restored only the model; it now restores everything the "
                            "checkpoint holds" + (" and sets start_epoch" if epoch else "") + ".", line=sl)
        return True

    fix_each(ctx, _weight_saves, fix)


def _replace(view: View, node: Any, text: str) -> TextEdit:
    sl, sc, el, ec = view.parsed.span(node)
    return TextEdit(sl, sc, el, ec, text)
