"""DET001-DET002: nondeterministic GPU training, and determinism env vars set too late."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..analysis.usage import usage_of
from ..findings import cell_ref
from .context import NotebookContext
from .registry import Hit, rule

ENV_VARS = ("PYTHONHASHSEED", "CUBLAS_WORKSPACE_CONFIG")


def _assigned_true(ctx: NotebookContext, attr: str) -> list[tuple]:
    """`torch.backends.cudnn.<attr> = True` assignments (cell, node, value)."""
    out = []
    for cell, node in usage_of(ctx).assigns:
        for t in node.targets:
            if isinstance(t, ast.Attribute) and t.attr == attr and "cudnn" in ctx.parsed.qualname(t.value):
                out.append((cell, node, getattr(node.value, "value", None)))
    return out


@rule(
    id="DET001", name="torch-nondeterministic-gpu", category="reproducibility.determinism", severity="warning",
    rationale="Training on CUDA without torch.use_deterministic_algorithms(True) / cudnn.deterministic, or with "
              "cudnn.benchmark=True, picks nondeterministic kernels.",
    impact="Two runs with the same seed give different weights and metrics.",
    fix="torch.use_deterministic_algorithms(True); torch.backends.cudnn.benchmark = False; set "
        "CUBLAS_WORKSPACE_CONFIG=:4096:8 before the kernel starts.",
    bad="model.cuda()\nfor x, y in loader: loss.backward(); opt.step()",
    good="torch.use_deterministic_algorithms(True)\ntorch.backends.cudnn.benchmark = False\nmodel.cuda()",
)
def nondeterministic_gpu(ctx: NotebookContext) -> Iterator[Hit]:
    """Needs a torch training loop and CUDA use; cudnn.benchmark=True fires even when other flags are set."""
    u = usage_of(ctx)
    if not (u.torch_train and u.optimizer_steps):
        return
    for cell, node, val in _assigned_true(ctx, "benchmark"):
        if val is True:
            yield Hit.at(cell, node, f"`cudnn.benchmark = True` in {cell_ref(cell)} lets cuDNN pick kernels by "
                                     f"timing, so results differ between runs.", evidence={"setting": "benchmark"})
            return
    if not u.cuda_uses:
        return
    det = u.named("torch.use_deterministic_algorithms") or [x for x in _assigned_true(ctx, "deterministic")
                                                             if x[2] is True]
    if det or any(c.kw("deterministic") is not None for c in u.leaf_in({"Trainer"})) or \
            u.leaf_in({"enable_full_determinism"}):
        return
    c = min(u.cuda_uses, key=lambda c: c.pos)
    yield Hit.at(c.cell, c.node, f"The model trains on CUDA (first use in {cell_ref(c.cell)}) without "
                                 f"`torch.use_deterministic_algorithms(True)` or `cudnn.deterministic = True`.",
                 evidence={"cuda_cell": c.cell.index + 1})


def _env_sets(ctx: NotebookContext) -> Iterator[tuple]:
    """(cell, node, variable) for os.environ[...] = / setdefault / update / putenv / %env of the watched vars."""
    u = usage_of(ctx)
    for cell, node in u.assigns:
        for t in node.targets:
            if isinstance(t, ast.Subscript) and ctx.parsed.qualname(t.value) == "os.environ":
                key = t.slice.value if isinstance(t.slice, ast.Constant) else None
                if key in ENV_VARS:
                    yield cell, node, key
    for c in u.select(names=("os.environ.setdefault", "os.environ.update", "os.putenv"),
                      leaves=("run_line_magic",)):
        cell, node, q = c.cell, c.node, c.q
        if q in ("os.environ.setdefault", "os.environ.update", "os.putenv") or q.endswith("run_line_magic"):
            strs = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
            if q in ("os.environ.setdefault", "os.environ.update", "os.putenv") or (
                    q.endswith("run_line_magic") and strs and strs[0] in ("env", "set_env")):
                for var in ENV_VARS:
                    if any(s == var or s.startswith(var + "=") or s.startswith(var + " ") for s in strs):
                        yield cell, node, var


@rule(
    id="DET002", name="determinism-env-set-too-late", category="reproducibility.determinism", severity="warning",
    rationale="PYTHONHASHSEED is read at interpreter start and CUBLAS_WORKSPACE_CONFIG at cuBLAS init: setting "
              "them from a running notebook is too late.",
    impact="The run looks configured for determinism but is not: hash order / cuBLAS results still vary.",
    fix="Set them in the kernel's environment (kernel.json `env`, the shell that starts Jupyter, or a %env before "
        "any CUDA call for CUBLAS only).",
    bad="os.environ['PYTHONHASHSEED'] = '0'",
    good="# kernel.json: \"env\": {\"PYTHONHASHSEED\": \"0\", \"CUBLAS_WORKSPACE_CONFIG\": \":4096:8\"}",
)
def env_too_late(ctx: NotebookContext) -> Iterator[Hit]:
    """PYTHONHASHSEED always fires; CUBLAS_WORKSPACE_CONFIG fires when torch.cuda was used earlier in execution
    order (before that it still works)."""
    u = usage_of(ctx)
    for cell, node, var in _env_sets(ctx):
        if var == "PYTHONHASHSEED":
            yield Hit.at(cell, node, f"`PYTHONHASHSEED` is set from inside the notebook ({cell_ref(cell)}): "
                                     f"the interpreter already started with its hash seed, so this is too late and "
                                     f"has no effect on this kernel.", evidence={"variable": var})
        else:
            here = u.pos(cell, node)
            before = [c for c in u.cuda_uses if c.pos < here]
            if before:
                c = before[0]
                yield Hit.at(cell, node, f"`CUBLAS_WORKSPACE_CONFIG` is set in {cell_ref(cell)} after CUDA was "
                                         f"already used ({cell_ref(c.cell)}): cuBLAS has initialised, so this "
                                         f"is too late to take effect.",
                             evidence={"variable": var, "cuda_cell": c.cell.index + 1})
