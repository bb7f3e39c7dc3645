"""What a checkpoint key (or a value) holds: model, optimizer, scheduler, scaler, progress, RNG, data position.

Shared by the static review (keys of a dict passed to `torch.save`) and the artifact audit (keys and values of a
loaded checkpoint). Pure name and structure tests; nothing here imports torch.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

COMPONENTS: dict[str, str] = {
    "model": "model weights",
    "optimizer": "optimizer state",
    "scheduler": "LR scheduler state",
    "scaler": "AMP GradScaler state",
    "progress": "epoch / step counter",
    "rng": "RNG states",
    "data": "sampler / dataloader position",
    "config": "hyper-parameters / config",
}

RNG_KINDS = ("python", "numpy", "torch", "cuda")

_KEY_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("optimizer", re.compile(r"optim")),
    ("scheduler", re.compile(r"sched|lr_scheduler")),
    ("scaler", re.compile(r"scaler|amp|grad_scale|precision")),
    ("rng", re.compile(r"rng|random_state|generator|(^|_)seed_state")),
    ("data", re.compile(r"sampler|dataloader|data_loader|loader|data_state|batch_idx")),
    ("progress", re.compile(r"^(epoch|epochs|global_step|step|steps|iteration|iter|it|n_iter|num_updates|"
                            r"epochs_completed|steps_completed|loops|train_progress|start_epoch|current_epoch)$")),
    ("config", re.compile(r"hparam|hyper_param|config|^args$|^cfg$|settings")),
    ("model", re.compile(r"model|state_dict|^net|network|^module$|weights|^ema|encoder|decoder|backbone|params")),
]


def classify_key(key: str) -> str | None:
    """The component a checkpoint key names (`"optimizer_state_dict"` -> `"optimizer"`), or None."""
    k = key.lower().strip()
    for comp, pat in _KEY_PATTERNS:
        if pat.search(k):
            return comp
    return None


def rng_kind_of_key(key: str) -> str | None:
    k = key.lower()
    if "cuda" in k or "gpu" in k:
        return "cuda"
    if "numpy" in k or k in ("np", "np_rng"):
        return "numpy"
    if "torch" in k or k == "cpu":
        return "torch"
    if "python" in k or k in ("py", "random"):
        return "python"
    return None


def is_tensor(value: Any) -> bool:
    t = type(value)
    return t.__module__.startswith("torch") and hasattr(value, "dtype") and hasattr(value, "shape")


def is_state_dict(value: Any) -> bool:
    """A model state_dict: a non-empty mapping of str -> tensor."""
    return (isinstance(value, Mapping) and len(value) > 0
            and all(isinstance(k, str) for k in value) and all(is_tensor(v) for v in value.values()))


def is_optimizer_state(value: Any) -> bool:
    return isinstance(value, Mapping) and "state" in value and "param_groups" in value


def is_scheduler_state(value: Any) -> bool:
    return isinstance(value, Mapping) and "last_epoch" in value and ("base_lrs" in value or "_last_lr" in value)


def is_scaler_state(value: Any) -> bool:
    return isinstance(value, Mapping) and "scale" in value and ("growth_factor" in value or "_growth_tracker" in value)


def structural_kind(value: Any) -> str | None:
    """The component a value is, judged by its structure alone."""
    if is_optimizer_state(value):
        return "optimizer"
    if is_scheduler_state(value):
        return "scheduler"
    if is_scaler_state(value):
        return "scaler"
    if is_state_dict(value):
        return "model"
    if isinstance(value, (list, tuple)) and value and all(is_optimizer_state(v) for v in value):
        return "optimizer"
    return None


def rng_kind_of_value(value: Any) -> str | None:
    """python: `random.getstate()`; numpy: `np.random.get_state()` or a Generator state; torch: a uint8 tensor."""
    if isinstance(value, tuple) and len(value) == 3 and value[0] == 3 and isinstance(value[1], tuple) \
            and len(value[1]) == 625:
        return "python"
    if isinstance(value, tuple) and value and value[0] == "MT19937":
        return "numpy"
    if isinstance(value, Mapping) and "bit_generator" in value:
        return "numpy"
    if is_tensor(value) and str(getattr(value, "dtype", "")) == "torch.uint8":
        return "torch"
    if isinstance(value, (list, tuple)) and value and all(is_tensor(v) for v in value):
        return "cuda"
    return None
