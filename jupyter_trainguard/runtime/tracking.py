"""Experiment-tracking runs (MLflow, W&B) around a guarded cell; only modules the user already imported."""

from __future__ import annotations

import sys
from typing import Any


def active_runs() -> dict[str, list[str]]:
    """Open runs now: {"mlflow": [run ids, innermost last], "wandb": [run id]}."""
    out: dict[str, list[str]] = {"mlflow": [], "wandb": []}
    mlflow = sys.modules.get("mlflow")
    if mlflow is not None:
        try:
            import mlflow.tracking.fluent as fluent

            stack = getattr(fluent, "_active_run_stack", None)
            runs = stack.get() if hasattr(stack, "get") else stack
            if runs:
                out["mlflow"] = [r.info.run_id for r in runs]
            elif mlflow.active_run() is not None:
                out["mlflow"] = [mlflow.active_run().info.run_id]
        except Exception:  # noqa: BLE001 - tracking internals differ between versions
            run = _safe(lambda: mlflow.active_run())
            out["mlflow"] = [run.info.run_id] if run is not None else []
    wandb = sys.modules.get("wandb")
    if wandb is not None and getattr(wandb, "run", None) is not None:
        out["wandb"] = [str(getattr(wandb.run, "id", "run"))]
    return out


def _safe(fn: Any) -> Any:
    try:
        return fn()
    except Exception:  # noqa: BLE001
        return None


def close_failed() -> dict[str, list[str]]:
    """End every open MLflow run with status FAILED and finish the W&B run with exit code 1."""
    closed: dict[str, list[str]] = {"mlflow": [], "wandb": []}
    mlflow = sys.modules.get("mlflow")
    if mlflow is not None:
        for _ in range(100):  # nested runs: end innermost first
            run = _safe(mlflow.active_run)
            if run is None:
                break
            try:
                mlflow.end_run(status="FAILED")
            except Exception:  # noqa: BLE001
                break
            closed["mlflow"].append(run.info.run_id)
    wandb = sys.modules.get("wandb")
    if wandb is not None and getattr(wandb, "run", None) is not None:
        rid = str(getattr(wandb.run, "id", "run"))
        try:
            wandb.run.finish(exit_code=1)
            closed["wandb"].append(rid)
        except Exception:  # noqa: BLE001
            pass
    return closed
