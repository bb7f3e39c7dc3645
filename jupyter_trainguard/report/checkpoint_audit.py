"""Open a PyTorch checkpoint safely and say what an exact resume would be missing (rules CKPT101-CKPT108).

Loading uses `torch.load(..., weights_only=True)`; NumPy arrays (RNG states) are allowed through torch's
`safe_globals`. A checkpoint that needs arbitrary pickle code is reported, not loaded, unless `unsafe_load=True`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..findings import Finding, Location
from ..rules.registry import runtime_rule
from .checkpoint_keys import (
    COMPONENTS,
    RNG_KINDS,
    classify_key,
    is_optimizer_state,
    is_state_dict,
    is_tensor,
    rng_kind_of_key,
    rng_kind_of_value,
    structural_kind,
)

_COMMON = {"category": "checkpointing"}

NEEDS_PICKLE = runtime_rule(
    id="CKPT101", name="checkpoint-needs-pickle", severity="warning", **_COMMON,
    rationale="The checkpoint cannot be opened with weights_only=True: loading it runs arbitrary pickle code.",
    impact="Loading an untrusted checkpoint can execute code; resuming depends on classes that may change.",
    fix="Save only state_dicts, tensors, numbers and strings (convert RNG states to tensors/lists) so "
        "torch.load(path, weights_only=True) works.",
    bad="torch.save({'model': model, 'opt': opt}, 'ckpt.pt')",
    good="torch.save({'model': model.state_dict(), 'optimizer': opt.state_dict(), 'epoch': epoch}, 'ckpt.pt')",
)
NO_OPTIMIZER = runtime_rule(
    id="CKPT102", name="checkpoint-without-optimizer", severity="error", **_COMMON,
    rationale="Without the optimizer state (momentum, Adam moments) a resumed run is not the run that stopped.",
    impact="Metrics after a resume differ from an uninterrupted run; the reported curve is not reproducible.",
    fix="Save optimizer.state_dict() in the checkpoint and restore it with optimizer.load_state_dict().",
    bad="torch.save(model.state_dict(), 'ckpt.pt')",
    good="torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'epoch': epoch}, path)",
)
NO_PROGRESS = runtime_rule(
    id="CKPT103", name="checkpoint-without-progress", severity="error", **_COMMON,
    rationale="Without the epoch/step counter a resume starts at epoch 0 and restarts the LR schedule.",
    impact="A resumed run trains for the wrong number of steps with the wrong learning rates.",
    fix="Save the epoch and global step, and start the training loop from them on resume.",
    bad="torch.save({'model': model.state_dict(), 'optimizer': opt.state_dict()}, path)",
    good="torch.save({..., 'epoch': epoch, 'global_step': step}, path)",
)
NO_SCHEDULER = runtime_rule(
    id="CKPT104", name="checkpoint-without-scheduler", severity="warning", **_COMMON,
    rationale="The optimizer was driven by an LR scheduler (param groups carry initial_lr) whose state is missing.",
    impact="On resume the schedule restarts from its first step, changing the learning rates and the result.",
    fix="Save scheduler.state_dict() and restore it with scheduler.load_state_dict() on resume.",
    good="torch.save({..., 'scheduler': scheduler.state_dict()}, path)",
)
NO_RNG = runtime_rule(
    id="CKPT105", name="checkpoint-without-rng-state", severity="warning", **_COMMON,
    rationale="Python, NumPy, torch and CUDA RNG states are needed for a bitwise-identical resume.",
    impact="Data order, dropout and augmentation differ after a resume; metrics do not match an uninterrupted run.",
    fix="Save random.getstate(), np.random.get_state(), torch.get_rng_state() and "
        "torch.cuda.get_rng_state_all(), and restore them on resume.",
    good="torch.save({..., 'rng': {'python': random.getstate(), 'numpy': np.random.get_state(), "
         "'torch': torch.get_rng_state(), 'cuda': torch.cuda.get_rng_state_all()}}, path)",
)
NO_SCALER = runtime_rule(
    id="CKPT106", name="checkpoint-without-grad-scaler", severity="warning", **_COMMON,
    rationale="Mixed-precision training keeps a loss scale in its GradScaler; it is missing from the checkpoint.",
    impact="After a resume the loss scale restarts, causing skipped steps or overflow that change the result.",
    fix="Save scaler.state_dict() and restore it with scaler.load_state_dict().",
    good="torch.save({..., 'scaler': scaler.state_dict()}, path)",
)
NO_DATA_POSITION = runtime_rule(
    id="CKPT107", name="checkpoint-without-data-position", severity="info", **_COMMON,
    rationale="A mid-epoch checkpoint (it records a step) has no sampler/dataloader state.",
    impact="A resume re-reads or skips batches of the interrupted epoch.",
    fix="Checkpoint at epoch boundaries, or save a stateful sampler/dataloader state (e.g. StatefulDataLoader).",
)
NO_MODEL = runtime_rule(
    id="CKPT108", name="checkpoint-without-model", severity="error", **_COMMON,
    rationale="No model weights (a mapping of parameter names to tensors) were recognised in the checkpoint.",
    impact="The checkpoint cannot restore the trained model.",
    fix="Save model.state_dict() under a key such as 'model'.",
)

CHECKPOINT_RULES = (NEEDS_PICKLE, NO_OPTIMIZER, NO_PROGRESS, NO_SCHEDULER, NO_RNG, NO_SCALER, NO_DATA_POSITION,
                    NO_MODEL)
SUFFIXES = (".pt", ".pth", ".bin", ".ckpt", ".tar")


def _numpy_safe_globals() -> list[Any]:
    """The globals needed to rebuild NumPy arrays and dtypes (RNG states); nothing else is allowed."""
    import numpy as np

    try:
        reconstruct = np._core.multiarray._reconstruct  # numpy >= 2
    except AttributeError:  # pragma: no cover - numpy 1.x
        reconstruct = np.core.multiarray._reconstruct
    out = [reconstruct, np.ndarray, np.dtype]
    out += [type(np.dtype(t)) for t in (np.uint32, np.int64, np.float64, np.uint8, np.int32)]
    return out


def load_checkpoint(path: str | Path, unsafe_load: bool = False) -> tuple[Any, str, str | None]:
    """(object, how it was loaded, error). `how`: weights_only | weights_only+numpy | unsafe-pickle | needs-pickle."""
    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=True), "weights_only", None
    except Exception as exc:
        first = exc
    try:
        with torch.serialization.safe_globals(_numpy_safe_globals()):
            return torch.load(path, map_location="cpu", weights_only=True), "weights_only+numpy", None
    except Exception as exc:
        second = exc
    if unsafe_load:
        return torch.load(path, map_location="cpu", weights_only=False), "unsafe-pickle", None
    msg = str(second) or str(first)
    m = re.search(r"Unsupported global: GLOBAL ([\w.]+)", msg)
    reason = f"it pickles {m.group(1)}" if m else (msg.splitlines()[0][:200] if msg else type(second).__name__)
    return None, "needs-pickle", reason


class _Inventory:
    def __init__(self) -> None:
        self.components: dict[str, bool] = {c: False for c in COMPONENTS}
        self.rng: set[str] = set()
        self.keys: list[str] = []
        self.scheduler_evidence = False
        self.amp_evidence = False
        self.step_level = False

    def add(self, comp: str) -> None:
        self.components[comp] = True

    def visit_value(self, key: str, value: Any, depth: int = 0) -> None:
        state_dict = getattr(value, "state_dict", None)
        if callable(state_dict) and not isinstance(value, Mapping):  # a live object (only after --unsafe-load)
            try:
                value = state_dict()
            except Exception:  # a broken object: judge it by its key alone
                pass
        comp = structural_kind(value)
        named = classify_key(key) if key else None
        if comp == "optimizer" or (named == "optimizer" and comp is None):
            self.add("optimizer")
            for opt in value if isinstance(value, (list, tuple)) else [value]:
                if is_optimizer_state(opt) and any("initial_lr" in g for g in opt.get("param_groups", [])
                                                   if isinstance(g, Mapping)):
                    self.scheduler_evidence = True
            return
        if comp in ("scheduler", "scaler", "model"):
            self.add(comp)
            return
        rk = rng_kind_of_value(value)
        if named == "rng" or (rk and not named):
            self._rng(key, value)
            return
        if named == "progress":
            self.add("progress")
            if key.lower() in ("step", "global_step", "iteration", "iter", "it", "n_iter", "steps_completed"):
                self.step_level = True
            return
        if named == "config":
            self.add("config")
            text = json.dumps(value, default=str).lower() if isinstance(value, (Mapping, list)) else str(value)
            if any(w in text for w in ("amp", "fp16", "bf16", "mixed", "16-mixed")):
                self.amp_evidence = True
            return
        if named in ("scheduler", "scaler", "data"):
            self.add(named)
            return
        if named == "model" and (isinstance(value, Mapping) or is_tensor(value)):
            self.add("model")
            return
        if isinstance(value, Mapping) and depth < 2:
            for k, v in value.items():
                self.visit_value(str(k), v, depth + 1)

    def _rng(self, key: str, value: Any) -> None:
        self.add("rng")
        if isinstance(value, Mapping):
            for k, v in value.items():
                kind = rng_kind_of_key(str(k)) or rng_kind_of_value(v)
                if kind:
                    self.rng.add(kind)
        else:
            kind = rng_kind_of_key(key) or rng_kind_of_value(value)
            if kind:
                self.rng.add(kind)


def inventory(obj: Any, inv: _Inventory | None = None, name_hint: str = "") -> _Inventory:
    """What a loaded checkpoint object contains."""
    inv = inv or _Inventory()
    if is_state_dict(obj):
        named = classify_key(name_hint) if name_hint else None
        inv.add(named if named in ("optimizer", "scheduler", "scaler") else "model")
        if any(str(t.dtype) in ("torch.float16", "torch.bfloat16") for t in obj.values()):
            inv.amp_evidence = True
        return inv
    if isinstance(obj, Mapping):
        inv.keys.extend(str(k) for k in obj)
        for k, v in obj.items():
            inv.visit_value(str(k), v)
        if not any(inv.components.values()) and len(obj) == 1:  # {"checkpoint": {...}}
            inner = next(iter(obj.values()))
            if isinstance(inner, Mapping):
                inventory(inner, inv)
    elif name_hint:
        inv.visit_value(name_hint, obj)
    return inv


def _findings(path: str, inv: _Inventory) -> list[Finding]:
    loc = Location(path=path)
    c = inv.components
    out: list[Finding] = []
    ev = {"components": dict(c), "rng": sorted(inv.rng), "keys": inv.keys[:50]}
    if not c["model"]:
        out.append(NO_MODEL.finding(loc, "No model weights found in the checkpoint.", ev, source="artifact"))
    if c["model"] and not c["optimizer"]:
        out.append(NO_OPTIMIZER.finding(loc, "The checkpoint holds model weights but no optimizer state: a resume "
                                             "restarts the optimizer.", ev, source="artifact"))
    if not c["progress"]:
        out.append(NO_PROGRESS.finding(loc, "No epoch/step counter: a resume would restart the schedule at epoch 0.",
                                       ev, source="artifact"))
    if inv.scheduler_evidence and not c["scheduler"]:
        out.append(NO_SCHEDULER.finding(loc, "The optimizer's param groups carry 'initial_lr' (an LR scheduler was "
                                             "attached) but no scheduler state was saved.", ev, source="artifact"))
    missing_rng = [k for k in RNG_KINDS if k not in inv.rng and k != "cuda"]
    if not c["rng"]:
        out.append(NO_RNG.finding(loc, "No RNG states saved (python, numpy, torch, cuda).", ev, source="artifact"))
    elif missing_rng:
        out.append(NO_RNG.finding(loc, "RNG states saved only for " + ", ".join(sorted(inv.rng)) + "; missing "
                                  + ", ".join(missing_rng) + ".", ev, severity="info", source="artifact"))
    if inv.amp_evidence and not c["scaler"]:
        out.append(NO_SCALER.finding(loc, "Mixed precision is in use (half-precision weights or an AMP setting) but "
                                          "no GradScaler state was saved.", ev, source="artifact"))
    if inv.step_level and not c["data"]:
        out.append(NO_DATA_POSITION.finding(loc, "The checkpoint records a step but no sampler/dataloader position.",
                                            ev, source="artifact"))
    return out


def _dir_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and (p.suffix in SUFFIXES or p.suffix == ".safetensors"
                                                                  or p.name == "trainer_state.json"))


def audit_checkpoint(path: str | Path, unsafe_load: bool = False) -> dict[str, Any]:
    """Audit one checkpoint file, or a checkpoint folder (one file per component, as HF/accelerate write)."""
    p = Path(path)
    result: dict[str, Any] = {"path": str(p), "loaded_as": None, "error": None}
    if not p.exists():
        result["error"] = "no such file or directory"
        result["findings"] = []
        return result
    inv = _Inventory()
    findings: list[Finding] = []
    files = _dir_files(p) if p.is_dir() else [p]
    how: list[str] = []
    for f in files:
        if f.suffix == ".safetensors":
            inv.add("model")
            how.append("safetensors (not opened)")
            continue
        if f.name == "trainer_state.json":
            inv.add("progress")
            continue
        obj, mode, err = load_checkpoint(f, unsafe_load=unsafe_load)
        how.append(mode)
        if err is not None:
            findings.append(NEEDS_PICKLE.finding(Location(path=str(f)), f"torch.load(weights_only=True) refused "
                                                 f"{f.name}: {err}", {"error": err}, source="artifact"))
            result["error"] = f"needs pickle to load ({err}); pass --unsafe-load only for a trusted file"
            continue
        if mode == "unsafe-pickle":
            findings.append(NEEDS_PICKLE.finding(Location(path=str(f)), f"{f.name} was loaded with full pickle "
                                                 "(--unsafe-load): it cannot be opened with weights_only=True.",
                                                 source="artifact"))
        inventory(obj, inv, name_hint=f.stem if p.is_dir() else "")
    result["loaded_as"] = ", ".join(sorted(set(how)))
    if result["error"] and not any(inv.components.values()):
        result["findings"] = [x.to_dict() for x in findings]
        result["components"] = {}
        return result
    findings += _findings(str(p), inv)
    result["components"] = dict(inv.components)
    result["rng"] = sorted(inv.rng)
    result["keys"] = inv.keys[:50]
    result["resume_restarts_schedule"] = (not inv.components["progress"]) or (
        inv.scheduler_evidence and not inv.components["scheduler"])
    result["findings"] = [x.to_dict() for x in findings]
    return result


def checkpoint_findings(result: dict[str, Any]) -> list[Finding]:
    return [Finding.from_dict(d) for d in result.get("findings", [])]


def describe(result: dict[str, Any]) -> str:
    """A short plain-text account of one checkpoint audit."""
    lines = [f"Checkpoint {result['path']}"]
    if result.get("loaded_as"):
        lines.append(f"  opened as: {result['loaded_as']}")
    if result.get("error"):
        lines.append(f"  {result['error']}")
    comps = result.get("components") or {}
    for comp, label in COMPONENTS.items():
        if comp in comps:
            extra = f" ({', '.join(result.get('rng') or [])})" if comp == "rng" and comps[comp] else ""
            lines.append(f"  [{'x' if comps[comp] else ' '}] {label}{extra}")
    if "resume_restarts_schedule" in result:
        lines.append("  resume would restart the schedule: " + ("YES" if result["resume_restarts_schedule"] else "no"))
    for f in result.get("findings", []):
        lines.append(f"  {f['rule_id']} {f['severity']}: {f['message']}")
    return "\n".join(lines)
