"""Suite-wide isolation: MLflow writes its tracking URI and experiment id into os.environ (and module globals) on
`set_tracking_uri`/`set_experiment`; restore both after each test so no test inherits another's store."""

from __future__ import annotations

import os
import sys

import pytest


@pytest.fixture(autouse=True)
def _isolate_mlflow_state():
    saved = {k: v for k, v in os.environ.items() if k.startswith("MLFLOW_")}
    yield
    for key in [k for k in os.environ if k.startswith("MLFLOW_")]:
        if key not in saved:
            del os.environ[key]
    os.environ.update(saved)
    mlflow = sys.modules.get("mlflow")
    if mlflow is None:
        return
    try:
        while mlflow.active_run() is not None:
            mlflow.end_run()
    except Exception:  # a test's broken store must not fail the next test
        pass
    for module, attr, value in (("mlflow.tracking._tracking_service.utils", "_tracking_uri", None),
                                ("mlflow.tracking.fluent", "_active_experiment_id", None)):
        mod = sys.modules.get(module)
        if mod is not None and hasattr(mod, attr):
            setattr(mod, attr, value)
