"""Runtime side of `%%guarded_train`: checks on live objects, seeding, memory tracking and failure handling.

Importing this package does not import torch, scikit-learn, MLflow or W&B.
"""

from .report import GuardRun, last_run

__all__ = ["GuardRun", "last_run"]
