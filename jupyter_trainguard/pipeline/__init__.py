"""`trainguard pipeline`: the shared training components import, fit together and fail safely.

User code is only ever imported in a child process (`probe.py`), so a component that exits, hangs or crashes the
interpreter becomes a finding instead of taking the caller down. Nothing here imports torch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["check_pipeline", "PipelineResult", "ComponentStatus", "SmokeResult"]


def __getattr__(name: str) -> Any:  # lazy: the probe subprocess imports this package and must stay light
    if name in __all__:
        from . import check

        return getattr(check, name)
    raise AttributeError(name)
