"""`estimate_for_cell`: find a cell's model, batch, optimizer and loss, then estimate its training step.

Used by `%%guarded_train --estimate[=SPEC]` and `%tg_estimate`. SPEC is `model=net,batch=xb[,target=yb]
[,optimizer=opt][,loss=criterion][,amp=bf16][,device=cuda]`; each value is a name (or expression) in the user
namespace, or for optimizer/loss a name such as `adam` / `cross_entropy`. Missing keys are inferred from the cell's
code and the namespace. Nothing here raises: every problem becomes `EstimateUnavailable`.
"""

from __future__ import annotations

import ast
import contextlib
import random
import time
from collections.abc import Iterator
from typing import Any

from .result import EstimateUnavailable, MemoryEstimate

KEYS = {"model": "model", "net": "model", "batch": "batch", "input": "batch", "inputs": "batch", "x": "batch",
        "target": "target", "targets": "target", "y": "target", "labels": "target", "optimizer": "optimizer",
        "opt": "optimizer", "optim": "optimizer", "loss": "loss", "loss_fn": "loss", "criterion": "loss",
        "amp": "amp", "device": "device"}
MODEL_NAMES = ("model", "net", "network", "module", "classifier")
BATCH_NAMES = ("xb", "x", "inputs", "input", "batch", "x_batch", "images", "imgs", "data", "X", "features")
TARGET_NAMES = ("yb", "y", "target", "targets", "labels", "label", "y_batch")


class SpecError(ValueError):
    """A problem with the spec or the namespace, reported as the reason of an EstimateUnavailable."""


def split_spec(spec: str) -> dict[str, str]:
    """`"model=net, batch=data[0], optimizer=adam"` -> {key: expression}; commas inside brackets are kept."""
    parts, depth, current = [], 0, ""
    for ch in spec:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    result: dict[str, str] = {}
    for part in (p.strip() for p in parts):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or not value.strip():
            raise SpecError(f"the estimate spec item {part!r} is not key=value")
        if key not in KEYS:
            raise SpecError(f"the estimate spec key {key!r} is unknown (use model, batch, target, optimizer, loss, "
                            "amp, device)")
        result[KEYS[key]] = value.strip()
    return result


def _evaluate(expr: str, user_ns: dict[str, Any]) -> Any:
    if expr.isidentifier():
        if expr not in user_ns:
            raise SpecError(f"name {expr!r} is not defined in the notebook")
        return user_ns[expr]
    try:
        return eval(compile(expr, "<estimate spec>", "eval"), dict(user_ns))  # the user's own expression
    except Exception as exc:
        raise SpecError(f"the expression {expr!r} failed: {type(exc).__name__}: {exc}") from exc


class _CellNames(ast.NodeVisitor):
    """Names the cell reads, names it calls, `for` loops over names, and attribute calls (`F.cross_entropy`)."""

    def __init__(self) -> None:
        self.read: list[str] = []
        self.called: list[str] = []
        self.attr_calls: list[str] = []
        self.loops: list[tuple[str, ast.expr]] = []  # (iterated name, loop target)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id not in self.read:
            self.read.append(node.id)

    def visit_Call(self, node: ast.Call) -> None:
        if isinstance(node.func, ast.Name):
            self.called.append(node.func.id)
        elif isinstance(node.func, ast.Attribute):
            self.attr_calls.append(node.func.attr)
        self.generic_visit(node)

    def visit_For(self, node: ast.For) -> None:
        source = node.iter
        while isinstance(source, ast.Call) and source.args:  # enumerate(loader), tqdm(loader), zip(...)
            source = source.args[0]
        if isinstance(source, ast.Name):
            self.loops.append((source.id, node.target))
        self.generic_visit(node)


def _cell_names(cell_source: str) -> _CellNames:
    from ..notebook.ipython_syntax import to_python

    names = _CellNames()
    code = cell_source
    try:
        code = to_python(cell_source)[0] or ""
        names.visit(ast.parse(code))
    except (SyntaxError, ValueError):
        pass
    return names


@contextlib.contextmanager
def _rng_preserved(loader: Any) -> Iterator[None]:
    """Drawing a batch must not move the user's RNGs (a shuffling sampler draws a seed from torch's global RNG)."""
    import torch

    states: list[tuple[Any, Any]] = [(torch.random.set_rng_state, torch.random.get_rng_state()),
                                     (random.setstate, random.getstate())]
    try:
        import numpy as np

        states.append((np.random.set_state, np.random.get_state()))
    except ImportError:
        pass
    generator = getattr(loader, "generator", None)
    if generator is not None:
        states.append((generator.set_state, generator.get_state()))
    try:
        yield
    finally:
        for restore, state in states:
            restore(state)


def draw_batch(loader: Any, name: str) -> Any:
    """One batch from a DataLoader when that is cheap: no worker processes and a map-style dataset."""
    from torch.utils.data import IterableDataset

    if getattr(loader, "num_workers", 0):
        raise SpecError(f"drawing a batch from DataLoader {name!r} would start {loader.num_workers} worker "
                        "processes; pass an example batch (batch=NAME)")
    if isinstance(getattr(loader, "dataset", None), IterableDataset):
        raise SpecError(f"DataLoader {name!r} streams an IterableDataset; pass an example batch (batch=NAME)")
    with _rng_preserved(loader):
        try:
            return next(iter(loader))
        except Exception as exc:
            raise SpecError(f"drawing a batch from {name!r} failed: {type(exc).__name__}: {exc}") from exc


def _is_loss_module(value: Any) -> bool:
    from torch.nn.modules.loss import _Loss

    return isinstance(value, _Loss) or type(value).__name__.lower().endswith("loss")


def _params(module: Any) -> int:
    try:
        return sum(p.numel() for p in module.parameters())
    except Exception:
        return 0


def _find_model(user_ns: dict[str, Any], names: _CellNames, notes: list[str]) -> tuple[str, Any]:
    import torch

    def modules(candidates: list[str]) -> list[str]:
        return [n for n in candidates if isinstance(user_ns.get(n), torch.nn.Module)
                and not _is_loss_module(user_ns[n])]

    for pool in (modules(names.called), modules(names.read), modules([n for n in MODEL_NAMES if n in user_ns])):
        if pool:
            name = max(pool, key=lambda n: _params(user_ns[n]))
            return name, user_ns[name]
    everything = modules([n for n in user_ns if not n.startswith("_")])
    if not everything:
        raise SpecError("no torch.nn.Module was found in the notebook namespace (pass model=NAME)")
    name = max(everything, key=lambda n: _params(user_ns[n]))
    notes.append(f"model: the cell names no module; took the largest one, {name!r}")
    return name, user_ns[name]


def _find_batch(user_ns: dict[str, Any], names: _CellNames, model_name: str,
                notes: list[str]) -> tuple[Any, Any, str]:
    """(batch, target or None, description)."""
    import torch
    from torch.utils.data import DataLoader

    for loader_name, _target in names.loops:
        loader = user_ns.get(loader_name)
        if isinstance(loader, DataLoader):
            batch = draw_batch(loader, loader_name)
            notes.append(f"batch: one batch drawn from DataLoader {loader_name!r} (RNG state restored)")
            return batch, None, loader_name
    for pool in ([n for n in BATCH_NAMES if n in names.read], [n for n in BATCH_NAMES if n in user_ns]):
        for name in pool:
            value = user_ns.get(name)
            if isinstance(value, (torch.Tensor, dict, tuple, list)) and _has_tensor(value):
                notes.append(f"batch: {name!r} from the namespace")
                return value, None, name
    loaders = [n for n, v in user_ns.items() if isinstance(v, DataLoader) and not n.startswith("_")]
    if len(loaders) == 1:
        notes.append(f"batch: one batch drawn from DataLoader {loaders[0]!r} (RNG state restored)")
        return draw_batch(user_ns[loaders[0]], loaders[0]), None, loaders[0]
    raise SpecError(f"no example batch for {model_name!r} was found (pass batch=NAME: a tensor, a tuple or dict "
                    "of tensors, or a DataLoader)")


def _has_tensor(value: Any) -> bool:
    import torch
    from torch.utils._pytree import tree_leaves

    return any(isinstance(t, torch.Tensor) for t in tree_leaves(value))


def _find_target(user_ns: dict[str, Any], names: _CellNames, batch: Any) -> Any:
    """A target tensor the cell reads, else one in the namespace with as many rows as the batch."""
    import torch

    for name in TARGET_NAMES:
        if name in names.read and isinstance(user_ns.get(name), torch.Tensor):
            return user_ns[name]
    if isinstance(batch, torch.Tensor) and batch.dim() > 0:
        for name in TARGET_NAMES:
            value = user_ns.get(name)
            if isinstance(value, torch.Tensor) and value.dim() > 0 and value.shape[0] == batch.shape[0]:
                return value
    return None


def _find_optimizer(user_ns: dict[str, Any], names: _CellNames, model: Any, notes: list[str]) -> Any:
    import torch

    found = [user_ns[n] for n in names.read if isinstance(user_ns.get(n), torch.optim.Optimizer)]
    if not found:
        model_params = {id(p) for p in model.parameters()}
        found = [v for n, v in user_ns.items() if isinstance(v, torch.optim.Optimizer) and not n.startswith("_")
                 and any(id(p) in model_params for g in v.param_groups for p in g["params"])]
    if found:
        return found[0]
    notes.append("optimizer: none found in the notebook; assumed Adam")
    return "adam"


def _find_loss(user_ns: dict[str, Any], names: _CellNames) -> Any:
    from .steprun import _LOSS_NAMES

    for name in names.called + names.read:
        if name in user_ns and _is_loss_module(user_ns[name]):
            return user_ns[name]
    for attr in names.attr_calls:
        key = attr.removesuffix("_loss")
        if key in _LOSS_NAMES and (attr.endswith("_loss") or attr in ("cross_entropy", "binary_cross_entropy",
                                                                       "binary_cross_entropy_with_logits")):
            return attr
    for name in ("loss_fn", "criterion", "loss_func"):
        if callable(user_ns.get(name)):
            return user_ns[name]
    return None


def split_loader_batch(batch: Any) -> tuple[Any, Any]:
    """A DataLoader's `(inputs, target)` pair -> inputs, target; dicts and single tensors are inputs only."""
    if isinstance(batch, (tuple, list)) and len(batch) == 2:
        return batch[0], batch[1]
    return batch, None


def _amp_from_cell(code: str) -> Any:
    if "autocast" not in code:
        return False
    return "bf16" if "bfloat16" in code else True


def estimate_for_cell(user_ns: dict[str, Any], cell_source: str, spec: str | None,
                      **options: Any) -> MemoryEstimate | EstimateUnavailable:
    """Estimate the training step of a notebook cell (see the module docstring). Never raises."""
    start = time.perf_counter()
    notes: list[str] = []
    try:
        import torch  # noqa: F401
    except ImportError:
        return EstimateUnavailable("PyTorch is not installed")
    try:
        from torch.utils.data import DataLoader

        given = split_spec(spec) if spec else {}
        names = _cell_names(cell_source or "")
        if "model" in given:
            model_name, model = given["model"], _evaluate(given["model"], user_ns)
            if not isinstance(model, torch.nn.Module):
                raise SpecError(f"{model_name!r} is a {type(model).__name__}, not a torch.nn.Module")
        else:
            model_name, model = _find_model(user_ns, names, notes)
            notes.insert(0, f"model: {model_name!r} ({_params(model):,} parameters)")
        target = None
        if "batch" in given:
            batch = _evaluate(given["batch"], user_ns)
            if isinstance(batch, DataLoader):
                batch, target = split_loader_batch(draw_batch(batch, given["batch"]))
                notes.append(f"batch: one batch drawn from DataLoader {given['batch']!r} (RNG state restored)")
        else:
            batch, _, source = _find_batch(user_ns, names, model_name, notes)
            if isinstance(user_ns.get(source), DataLoader):
                batch, target = split_loader_batch(batch)
        if "target" in given:
            target = _evaluate(given["target"], user_ns)
        elif target is None:
            target = _find_target(user_ns, names, batch)
        if "optimizer" in given:
            expr = given["optimizer"]
            optimizer = _evaluate(expr, user_ns) if expr in user_ns or not expr.isidentifier() else expr
        else:
            optimizer = _find_optimizer(user_ns, names, model, notes)
        if "loss" in given:
            expr = given["loss"]
            loss = _evaluate(expr, user_ns) if expr in user_ns or not expr.isidentifier() else expr
        else:
            loss = _find_loss(user_ns, names)
        amp: Any = given.get("amp", _amp_from_cell(cell_source or ""))
        if isinstance(amp, str):
            amp = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(amp.lower(), amp)
        options.setdefault("device", given.get("device", "cuda"))
        options.setdefault("amp", amp)
    except SpecError as exc:
        return EstimateUnavailable(str(exc), notes=notes, elapsed_s=time.perf_counter() - start)
    except Exception as exc:  # a broken namespace object must not break the cell
        return EstimateUnavailable(f"inspecting the notebook failed: {type(exc).__name__}: {exc}", notes=notes,
                                   elapsed_s=time.perf_counter() - start)
    from .step import estimate_training_step

    result = estimate_training_step(model, batch, target=target, loss_fn=loss, optimizer=optimizer, **options)
    result.notes[:0] = notes
    result.elapsed_s = time.perf_counter() - start
    return result
