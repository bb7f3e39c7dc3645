"""Which random number generators are seeded, seeding them (`--seed`) and determinism (`--deterministic`).

How "seeded" is decided (documented heuristics; no RNG state is read destructively):
- history: a seeding call in the executed cells, resolved through import aliases (`random.seed`,
  `numpy.random.seed`, `torch.manual_seed`, `torch.cuda.manual_seed[_all]`), or a catch-all seeder
  (`seed_everything`, `set_seed`, ...), or a user function whose body makes such calls and that was called;
- torch at run time: `torch.initial_seed()` differs from torch's built-in default seed, which it keeps until
  someone seeds it (the CUDA generators likewise, read only when CUDA is already initialised);
- the guard itself: `--seed N` seeds every generator in use just before the cell and records that.
An RNG counts as "in use" when its module was imported in the session (torch: already in `sys.modules`).
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

TORCH_DEFAULT_SEED = 67280421310721
RNG_NAMES = ("python", "numpy", "torch", "torch_cuda")
_DIRECT = {
    "random.seed": ("python",),
    "numpy.random.seed": ("numpy",),
    "torch.manual_seed": ("torch", "torch_cuda"),
    "torch.random.manual_seed": ("torch", "torch_cuda"),
    "torch.cuda.manual_seed": ("torch_cuda",),
    "torch.cuda.manual_seed_all": ("torch_cuda",),
}
_CATCH_ALL = {"seed_everything", "set_seed", "set_global_seed", "set_random_seed", "seed_all", "fix_seed",
              "set_seeds", "seed_everything_"}


@dataclass
class SeedReport:
    in_use: dict[str, bool] = field(default_factory=dict)
    seeded: dict[str, str] = field(default_factory=dict)  # rng -> how it was found seeded
    seed: int | None = None  # the --seed the guard applied
    deterministic: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # RNG002 reasons

    @property
    def unseeded(self) -> list[str]:
        return [r for r in RNG_NAMES if self.in_use.get(r) and r not in self.seeded]

    def to_dict(self) -> dict[str, Any]:
        return {"in_use": self.in_use, "seeded": self.seeded, "unseeded": self.unseeded, "seed": self.seed,
                "deterministic": self.deterministic, "problems": self.problems}


def _rngs_of_call(name: str) -> tuple[str, ...]:
    if name in _DIRECT:
        return _DIRECT[name]
    if name.rsplit(".", 1)[-1] in _CATCH_ALL:
        return RNG_NAMES
    return ()


def seeded_in_history(trees: Iterable[Any], aliases: dict[str, str]) -> dict[str, str]:
    """rng -> description of the call that seeded it, from executed code (helper functions followed).

    `trees` are ASTs or (source, AST) pairs; the per-cell facts of pairs are cached by source."""
    from .history import resolved_calls

    facts = resolved_calls(trees, aliases)
    helpers: dict[str, set[str]] = {}
    for _, funcs, mine in facts:
        if "seeding_helpers" not in mine:
            rngs_of = {name: {r for c in callees for r in _rngs_of_call(c)} for name, callees in funcs.items()}
            mine["seeding_helpers"] = {name: rngs for name, rngs in rngs_of.items() if rngs}
        helpers.update(mine["seeding_helpers"])
    found: dict[str, str] = {}
    for top, _, mine in facts:
        if not helpers:  # only the calls that seed by themselves count: those of each cell are found once
            if "seeding_calls" not in mine:
                mine["seeding_calls"] = [name for name in top if _rngs_of_call(name)]
            top = mine["seeding_calls"]
        for name in top:
            for r in _rngs_of_call(name) or tuple(helpers.get(name, ())):
                found.setdefault(r, f"{name}() in the executed cells")
    return found


_NOT_DRAWS = {"seed", "default_rng", "Generator", "RandomState", "SeedSequence", "PCG64", "MT19937", "Random",
              "SystemRandom", "get_state", "set_state", "getstate", "setstate", "BitGenerator", "Philox", "SFC64"}


def in_use(imported: set[str], trees: Iterable[Any] = (), aliases: dict[str, str] | None = None) -> dict[str, bool]:
    """Which global generators the session draws from.

    python / numpy: a draw from the module-level API (`random.random()`, `np.random.permutation(...)`) in the
    executed cells; numpy also when scikit-learn is imported (estimators and splitters with random_state=None
    draw from NumPy's global RandomState). torch: imported (weight init and dropout use its global generator)."""
    from .history import resolved_calls

    draws = {"python": False, "numpy": False}
    for top, funcs, mine in resolved_calls(trees, aliases or {}):
        if "draws" not in mine:
            mine["draws"] = _draws([*top, *(c for cs in funcs.values() for c in cs)])
        for rng in mine["draws"]:
            draws[rng] = True
    torch_loaded = sys.modules.get("torch") is not None or "torch" in imported
    cuda = False
    if sys.modules.get("torch") is not None:
        import torch

        cuda = bool(torch.cuda.is_available())
    return {"python": draws["python"], "numpy": draws["numpy"] or "sklearn" in imported, "torch": torch_loaded,
            "torch_cuda": cuda}


def _draws(names: list[str]) -> tuple[str, ...]:
    """"python" / "numpy" when one of these resolved callees draws from that module-level generator."""
    out = []
    for name in names:
        mod, _, fn = name.rpartition(".")
        if fn in _NOT_DRAWS:
            continue
        if mod == "random" and "python" not in out:
            out.append("python")
        elif mod == "numpy.random" and "numpy" not in out:
            out.append("numpy")
    return tuple(out)


def runtime_seeded() -> dict[str, str]:
    """Generators whose state shows they were seeded (torch only; see the module docstring)."""
    out: dict[str, str] = {}
    if sys.modules.get("torch") is not None:
        import torch

        if torch.initial_seed() != TORCH_DEFAULT_SEED:
            out["torch"] = "torch.initial_seed() differs from the default"
        if torch.cuda.is_available() and torch.cuda.is_initialized() and \
                torch.cuda.initial_seed() != TORCH_DEFAULT_SEED:
            out["torch_cuda"] = "torch.cuda.initial_seed() differs from the default"
    return out


def seed_all(seed: int, uses_torch: bool = False) -> list[str]:
    """Seed Python, NumPy (legacy global) and torch (CPU and every CUDA device); returns what was seeded.

    torch is imported only when it already is, or when the cell uses it (`uses_torch`)."""
    done = ["python"]
    random.seed(seed)
    import numpy as np

    np.random.seed(seed % 2**32)
    done.append("numpy")
    if sys.modules.get("torch") is not None or uses_torch:
        import torch

        torch.manual_seed(seed)
        done.append("torch")
        if torch.cuda.is_available():
            torch.cuda.manual_seed_all(seed)
            done.append("torch_cuda")
    return done


def initial_environ() -> dict[str, str] | None:
    """The environment the interpreter started with (Linux /proc), or None when it cannot be read."""
    try:
        with open(f"/proc/{os.getpid()}/environ", "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    out = {}
    for item in raw.split(b"\0"):
        key, sep, value = item.partition(b"=")
        if sep:
            out[key.decode(errors="replace")] = value.decode(errors="replace")
    return out


def apply_deterministic(start_env: dict[str, str] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Turn on what can still take effect; return (settings applied, reasons for what cannot)."""
    applied: dict[str, Any] = {}
    problems: list[str] = []
    start_env = initial_environ() if start_env is None else start_env
    if start_env is not None and "PYTHONHASHSEED" not in start_env:
        late = " (it was set from inside the session, too late)" if "PYTHONHASHSEED" in os.environ else ""
        problems.append("PYTHONHASHSEED was not set when the interpreter started, so str/bytes hashing (and set "
                        f"iteration order) stays randomised{late}; set it in the kernel's environment.")
    if sys.modules.get("torch") is not None:
        import torch

        torch.use_deterministic_algorithms(True, warn_only=True)
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        applied.update({"torch.use_deterministic_algorithms": "True (warn_only)",
                        "cudnn.deterministic": True, "cudnn.benchmark": False})
        if torch.cuda.is_available():
            want = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
            at_start = (start_env or {}).get("CUBLAS_WORKSPACE_CONFIG")
            if torch.cuda.is_initialized():
                if not at_start:
                    problems.append("CUBLAS_WORKSPACE_CONFIG " + ("was set after" if want else "is not set and")
                                    + " CUDA had already started; cuBLAS keeps nondeterministic workspaces. "
                                    "Set it to :4096:8 in the kernel's environment.")
            elif not want:
                os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
                applied["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8 (set before CUDA started)"
    return applied, problems
