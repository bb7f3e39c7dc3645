"""The structured training-pipeline review (`%trainaudit`, `trainguard audit`): seven parts, exports, provenance.

Parts: reproducibility verdict, split & leakage audit, temporal correctness, checkpointing, experiment tracking,
findings table, next safe action. Nothing here imports torch, scikit-learn or MLflow at import time.
"""

from __future__ import annotations

from .model import AuditReport, Line, Part
from .parts import PARTS, PRIORITY

__all__ = ["AuditReport", "Line", "PARTS", "PRIORITY", "Part"]
