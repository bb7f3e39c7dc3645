"""The experiment lifecycle: data -> rig -> training loop -> artifacts, with cleanup on every path."""

from __future__ import annotations

import contextlib
import gc
import logging
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import torch

from . import artifacts, data_loading, device_setup
from .training_loop import evaluate, train
from .training_rig import TrainingRig

logger = logging.getLogger(__name__)


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=True)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


@contextlib.contextmanager
def _tracking(tracking_uri: str | None, run_name: str, params: dict) -> Iterator[Callable[[dict], None]]:
    """Yield a metric logger; with a tracking URI, inside an MLflow run that is closed on every path."""
    if tracking_uri is None:
        yield lambda metrics: None
        return
    import mlflow

    mlflow.set_tracking_uri(tracking_uri)
    with mlflow.start_run(run_name=run_name):
        mlflow.log_params(params)
        mlflow.set_tags({"dataset_version": f"{params['dataset']}@synthetic-v1", "git_commit": _git_commit()})
        yield lambda metrics: mlflow.log_metrics({k: v for k, v in metrics.items() if k != "step"},
                                                 step=metrics.get("step"))


def run_standard_experiment(component: str, positions: list[int], dataset: str, output_dir: str, *,
                            epochs: int = 1, max_steps: int | None = None, seed: int = 0, batch_size: int = 32,
                            lr: float = 1e-3, tracking_uri: str | None = None) -> dict:
    """Train the `component` disposition head at `positions` on `dataset`; artifacts go to `output_dir`.

    The report is saved even when a step fails (status "failed", with the error), GPU memory is released and
    any MLflow run is closed; the exception is then re-raised so the notebook shows it.
    """
    out = Path(output_dir)
    device = device_setup.setup("auto", seed=seed)
    params = {"component": component, "positions": list(positions), "dataset": dataset, "epochs": epochs,
              "max_steps": max_steps, "seed": seed, "batch_size": batch_size, "lr": lr}
    report: dict = {"params": params, "device": str(device)}
    status = "failed"
    rig = optimizer = None
    try:
        with _tracking(tracking_uri, f"{component}-{dataset}", params) as log_metrics:
            train_set = data_loading.load_dataset(dataset, "train")
            val_set = data_loading.load_dataset(dataset, "validation")
            spec = data_loading.DATASET_SPECS[dataset]
            rig = TrainingRig(component, positions, num_classes=spec["num_classes"],
                              vocab_size=spec["vocab_size"], seed=seed)
            optimizer = torch.optim.AdamW(rig.trainable_parameters(), lr=lr)
            loader = data_loading.make_loader(train_set, batch_size=batch_size, seed=seed)
            result = train(rig.model, loader, optimizer, epochs=epochs, device=device, max_steps=max_steps,
                           log_fn=log_metrics)
            report["training"] = result
            report["validation"] = evaluate(rig.model, data_loading.make_loader(val_set, shuffle=False), device)
            report["rig"] = rig.describe()
            artifacts.save_checkpoint(out, rig.model, optimizer, epoch=result["epochs_completed"])
            status = result["status"]
    except Exception as exc:
        report["error"] = f"{type(exc).__name__}: {exc}"
        logger.exception("experiment %s on %s failed", component, dataset)
        raise
    finally:
        report["artifacts"] = str(artifacts.save_report(out, report, status=status))
        del rig, optimizer
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    return report
