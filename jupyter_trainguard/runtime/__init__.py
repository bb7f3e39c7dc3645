"""Runtime side of `%%guarded_train`: checks on live objects, seeding, memory tracking and failure handling.

Importing this package does not import torch, scikit-learn, MLflow or W&B, nor the report module until
`GuardRun` or `last_run` is asked for (`%load_ext` only needs the session log).
"""

from __future__ import annotations

from typing import Any

__all__ = ["GuardRun", "last_run"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import report

        return getattr(report, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
