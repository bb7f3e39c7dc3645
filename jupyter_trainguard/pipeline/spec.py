"""`[tool.trainguard.pipeline]`: what `trainguard pipeline` checks, read from `Config.raw["pipeline"]`.

```toml
[tool.trainguard.pipeline]
timeout_s = 60                      # per isolated probe process
notebooks = true                    # also bind the notebooks' calls and check their constants
flow = ["experiment_runner", "data_loading", "training_rig", "training_loop", "artifacts"]
training_loop = "training_loop.train"   # the function PHEALTH010 checks
artifacts = "artifacts"                 # the module whose calls count as saving artifacts (PHEALTH011)

[tool.trainguard.pipeline.entry_points]   # callable -> parameter names callers pass
"experiment_runner.run_standard_experiment" = ["component", "positions", "dataset", "output_dir"]

[tool.trainguard.pipeline.accepts]        # notebook constant -> what the components accept
COMPONENT = "training_rig.DISPOSITIONS"   # a collection: its members (a dict: its keys)
POSITIONS = "training_rig.N_BLOCKS"       # an int n: 0..n-1

[tool.trainguard.pipeline.smoke]
entry = "experiment_runner.run_standard_experiment"
kwargs = { component = "aversion", positions = [3], dataset = "toy_sentiment", output_dir = "outputs/smoke" }
output_arg = "output_dir"                 # redirected to a temporary folder during the smoke run
```
Every key is optional; names are relative to the components package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..config import Config, ConfigError

KNOWN_KEYS = {"notebooks", "timeout_s", "flow", "training_loop", "artifacts", "entry_points", "accepts", "smoke",
              "runner"}


@dataclass(frozen=True)
class SmokeSpec:
    entry: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    output_arg: str | None = "output_dir"


@dataclass(frozen=True)
class PipelineSpec:
    runner: str | None
    timeout_s: float = 60.0
    flow: tuple[str, ...] = ()
    training_loop: str | None = "training_loop.train"
    artifacts: str = "artifacts"
    entry_points: dict[str, tuple[str, ...]] = field(default_factory=dict)
    accepts: dict[str, str] = field(default_factory=dict)
    smoke: SmokeSpec | None = None
    notebooks: bool = True

    @property
    def runner_module(self) -> str | None:
        return self.runner.split(".", 1)[0] if self.runner else None


def _err(msg: str) -> ConfigError:
    return ConfigError(f"[tool.trainguard.pipeline] {msg}")


def pipeline_spec(config: Config) -> PipelineSpec:
    """Parse the pipeline table (defaults from the rest of `[tool.trainguard]` when absent)."""
    table = config.raw.get("pipeline", {}) or {}
    if not isinstance(table, dict):
        raise _err("must be a table")
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise _err("has unknown keys: " + ", ".join(sorted(unknown)))
    runner = table.get("runner", config.runner)
    timeout = table.get("timeout_s", 60)
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        raise _err("timeout_s must be a positive number")
    flow = table.get("flow", [])
    if not isinstance(flow, list) or not all(isinstance(f, str) for f in flow):
        raise _err("flow must be a list of module or module.callable names")
    entries_raw = table.get("entry_points", {}) or {}
    if not isinstance(entries_raw, dict):
        raise _err("entry_points must be a table of callable = [parameter names]")
    entries: dict[str, tuple[str, ...]] = {}
    for name, params in entries_raw.items():
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise _err(f"entry_points.{name} must be a list of parameter names")
        entries[name] = tuple(params)
    if not entries_raw:  # defaults: the runner and the calls every experimental notebook must make
        for name in ([runner] if runner else []) + list(config.required_calls):
            entries.setdefault(name, ())
    elif runner:
        entries.setdefault(runner, ())
    accepts = dict(table.get("accepts", {}) or {})
    if not all(isinstance(v, str) for v in accepts.values()):
        raise _err("accepts maps constant names to 'module.ATTRIBUTE' strings")
    for name, const in config.constants.items():
        if const.keys_of and name not in accepts:
            accepts[name] = const.keys_of
    smoke = None
    smoke_raw = table.get("smoke")
    if smoke_raw is not None:
        if not isinstance(smoke_raw, dict) or not isinstance(smoke_raw.get("entry", runner), str):
            raise _err("smoke must be a table with entry and kwargs")
        kwargs = smoke_raw.get("kwargs", {}) or {}
        if not isinstance(kwargs, dict):
            raise _err("smoke.kwargs must be a table")
        smoke = SmokeSpec(entry=smoke_raw.get("entry", runner), kwargs=dict(kwargs),
                          output_arg=smoke_raw.get("output_arg", "output_dir"))
    loop = table.get("training_loop", "training_loop.train")
    if not isinstance(table.get("notebooks", True), bool):
        raise _err("notebooks must be true or false")
    return PipelineSpec(runner=runner, timeout_s=float(timeout), flow=tuple(flow), training_loop=loop or None,
                        artifacts=table.get("artifacts", "artifacts"), entry_points=entries, accepts=accepts,
                        smoke=smoke, notebooks=table.get("notebooks", True))
