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


@pytest.fixture(autouse=True, scope="session")
def _retry_a_kernel_that_did_not_start():
    """A kernel that never answered (jupyter_client picks free TCP ports by binding and releasing them, and another
    process can take one before the kernel binds it: `ZMQError: Address already in use`) is started once more with
    fresh ports. Only a kernel that failed to start is retried; every other error surfaces."""
    try:
        from nbclient import NotebookClient
    except ImportError:
        yield
        return
    original = NotebookClient.execute

    def execute(self, *args, **kwargs):
        try:
            return original(self, *args, **kwargs)
        except RuntimeError as exc:  # these two messages come only from waiting for a kernel to start
            if not ("didn't respond" in str(exc) or "died before replying" in str(exc)):
                raise
            self.km, self.kc = None, None
            return original(self, *args, **kwargs)

    NotebookClient.execute = execute
    yield
    NotebookClient.execute = original
