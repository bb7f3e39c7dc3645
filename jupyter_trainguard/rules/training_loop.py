"""TRAIN001-TRAIN002: manual torch training-loop mistakes (missing zero_grad, eval/train mode)."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..analysis.usage import usage_of
from ..findings import cell_ref
from .context import NotebookContext
from .registry import Hit, rule

LOOPS = (ast.For, ast.AsyncFor, ast.While)


_MEMO: dict[tuple[int, int], tuple[ast.AST, list[ast.Call], list[str]]] = {}


def _calls_in(node: ast.AST) -> tuple[list[ast.Call], list[str]]:
    """Method calls and called plain names inside `node` (memoised per node for one notebook)."""
    key = (id(node), getattr(node, "lineno", 0))
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is node:
        return hit[1], hit[2]
    meths, names = [], []
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            if isinstance(n.func, ast.Attribute):
                meths.append(n)
            elif isinstance(n.func, ast.Name):
                names.append(n.func.id)
    if len(_MEMO) > 20000:
        _MEMO.clear()
    _MEMO[key] = (node, meths, names)
    return meths, names


_FACTS: dict[tuple[str, int], tuple[ast.AST, object]] = {}


def _fact(name: str, node: ast.AST, compute) -> object:
    """`compute(node)`, a fact of the (read-only, memoised) tree alone, computed once per node: the guard analyses
    the same session cells again before every guarded cell."""
    hit = _FACTS.get((name, id(node)))
    if hit is not None and hit[0] is node:
        return hit[1]
    value = compute(node)
    if len(_FACTS) > 20000:
        _FACTS.clear()
    _FACTS[(name, id(node))] = (node, value)
    return value


def _nested_loops(loop: ast.AST) -> list[ast.AST]:
    return _fact("loops", loop, lambda n: [x for x in ast.walk(n) if isinstance(x, LOOPS) and x is not n])


def _sets_grad(node: ast.AST) -> bool:
    return _fact("grad", node, lambda n: any(  # type: ignore[return-value]
        isinstance(x, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in x.targets)
        for x in ast.walk(n)))


def _scheduler_step(call: ast.Call) -> bool:
    return _fact("sched", call, lambda n: "sched" in ast.unparse(n.func).lower())  # type: ignore[return-value]


def _attr_calls(node: ast.AST, attrs: set[str], funcs: dict, depth: int = 2) -> list[ast.Call]:
    """Calls `.attr()` inside `node`, also inside notebook functions called from it (a few levels)."""
    meths, names = _calls_in(node)
    out = [n for n in meths if n.func.attr in attrs]
    if depth > 0:
        for name in set(names):
            fn = funcs.get(name)
            if fn is not None and fn is not node:
                out.extend(_attr_calls(fn, attrs, funcs, depth - 1))
    return out


def _signature(funcs: dict) -> tuple[tuple[str, ast.AST], ...]:
    """The notebook's functions as a key (nodes compare by identity): a loop's verdict holds while the functions
    it may call are the same."""
    return tuple(funcs.items())


def _zeroes_grad(node: ast.AST, funcs: dict) -> bool:
    return bool(_attr_calls(node, {"zero_grad"}, funcs)) or _sets_grad(node)


def _loops(ctx: NotebookContext) -> list[tuple]:
    """(cell, loop, enclosing loops) for every loop of the notebook (outside function definitions)."""
    return usage_of(ctx).loops


@rule(
    id="TRAIN001", name="zero-grad-missing", category="training", severity="warning",
    rationale="A training loop calls backward() and optimizer.step() but never zero_grad(): gradients accumulate "
              "across batches.",
    impact="Each step uses the sum of all previous gradients; training diverges or the reported metric comes from "
           "a different optimisation than intended.",
    fix="Call optimizer.zero_grad() (set_to_none=True) once per step, before backward().",
    bad="for x, y in loader:\n    loss = crit(model(x), y)\n    loss.backward()\n    opt.step()",
    good="for x, y in loader:\n    opt.zero_grad()\n    loss = crit(model(x), y)\n    loss.backward()\n    opt.step()",
)
def zero_grad_missing(ctx: NotebookContext) -> Iterator[Hit]:
    """For each backward() call, the innermost loop that also contains an optimizer step must zero gradients
    (zero_grad or `.grad = None`), including inside notebook helper functions called from the loop."""
    u = usage_of(ctx)
    if not u.torch_train:
        return
    funcs = u.funcs

    def accumulates(loop: ast.AST) -> bool:
        backs = _attr_calls(loop, {"backward"}, funcs)
        steps = [c for c in _attr_calls(loop, {"step"}, funcs) if not _scheduler_step(c)]
        if not backs or not steps:
            return False
        inner = [n for n in _nested_loops(loop) if _attr_calls(n, {"backward"}, funcs) and
                 _attr_calls(n, {"step"}, funcs)]
        if inner:
            return False  # judged at the innermost loop that trains
        return not _zeroes_grad(loop, funcs)

    verdicts = u.mapped(("TRAIN001", _signature(funcs)), "loops",
                        lambda item: accumulates(item[1]))
    reported = set()
    for (cell, loop, _parents), accumulating in zip(_loops(ctx), verdicts):
        if accumulating and id(loop) not in reported:
            reported.add(id(loop))
            yield Hit.at(cell, loop, f"The training loop in {cell_ref(cell)} (line {loop.lineno}) calls "
                                     f"backward() and step() but never zero_grad(): gradients accumulate across "
                                     f"steps.", evidence={"loop_line": loop.lineno})


@rule(
    id="TRAIN002", name="eval-train-mode", category="training", severity="warning",
    rationale="Dropout and batch-norm behave differently in train and eval mode: evaluation must run after "
              "model.eval(), and training after model.train().",
    impact="Validation metrics computed in train mode are noisy/biased; after eval() without train(), later epochs "
           "train with dropout off and frozen batch-norm statistics.",
    fix="Call model.eval() before evaluating (with torch.no_grad()) and model.train() at the start of each "
        "training epoch.",
    bad="for epoch in range(n):\n    train_step()\n    model.eval()\n    validate()",
    good="for epoch in range(n):\n    model.train()\n    train_step()\n    model.eval()\n    validate()",
)
def eval_train_mode(ctx: NotebookContext) -> Iterator[Hit]:
    """Two cases: an epoch loop that trains and calls eval() but never train(); and a no_grad/inference_mode
    evaluation block in a notebook with a torch training loop that never calls eval() anywhere."""
    u = usage_of(ctx)
    if not u.torch_train:
        return
    funcs = u.funcs

    def stays_in_eval(loop: ast.AST) -> bool:
        return bool(_attr_calls(loop, {"backward"}, funcs) and _attr_calls(loop, {"eval"}, funcs) and
                    not [c for c in _attr_calls(loop, {"train"}, funcs) if not c.args or
                         (isinstance(c.args[0], ast.Constant) and c.args[0].value is True)])

    verdicts = u.mapped(("TRAIN002", _signature(funcs)), "loops",
                        lambda item: not item[2] and stays_in_eval(item[1]))
    for (cell, loop, _parents), in_eval in zip(_loops(ctx), verdicts):
        if in_eval:
            yield Hit.at(cell, loop, f"The epoch loop in {cell_ref(cell)} switches the model to eval() for "
                                     f"evaluation but never back to train(): later epochs train in eval mode.",
                         evidence={"loop_line": loop.lineno, "case": "not-reset"})
            return
    if u.methods("eval"):
        return
    from ..analysis.provenance import record_of

    modules = {n for n, v in record_of(ctx.parsed, ctx.cache).env.items() if v.kind == "obj" and
               v.obj.role == "torch"}
    for cell, node in u.blocks:
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                ctx.parsed.qualname(i.context_expr.func if isinstance(i.context_expr, ast.Call) else
                                    i.context_expr) in ("torch.no_grad", "torch.inference_mode") for i in node.items):
            calls = [n for b in node.body for n in ast.walk(b) if isinstance(n, ast.Call) and
                     isinstance(n.func, ast.Name) and n.func.id in modules]
            if calls:
                yield Hit.at(cell, node, f"Evaluation under `torch.no_grad()` in {cell_ref(cell)} runs "
                                         f"`{calls[0].func.id}` but the notebook never calls `.eval()`: dropout and "
                                         f"batch-norm stay in training mode.",
                             evidence={"model": calls[0].func.id, "case": "no-eval"})
                return
