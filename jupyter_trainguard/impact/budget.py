"""The budget of an impact measurement (time, memory) and the isolation around it (RNG states, autologging)."""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .. import rng_states

GIB = 1 << 30
DEFAULT_MEMORY = GIB
DEFAULT_AUDIT_SECONDS = 30.0  # %trainaudit --impact without a cell time to scale from
_MEMORY: contextvars.ContextVar[int | None] = contextvars.ContextVar("trainguard_impact_memory", default=None)


@contextlib.contextmanager
def memory_limit(memory_bytes: int | None) -> Iterator[None]:
    """The memory budget of the impact measurements started inside (None: the default, 1 GiB)."""
    token = _MEMORY.set(memory_bytes)
    try:
        yield
    finally:
        _MEMORY.reset(token)


def default_memory() -> int:
    value = _MEMORY.get()
    return DEFAULT_MEMORY if value is None else value


def default_seconds(cell_seconds: float | None) -> float:
    """2x the cell's own time + 2 s; when the cell time is unknown, DEFAULT_AUDIT_SECONDS."""
    if cell_seconds is None:
        return DEFAULT_AUDIT_SECONDS
    return 2.0 * max(0.0, cell_seconds) + 2.0


class OverBudget(Exception):
    """The next step would not fit in what is left of the budget."""


@dataclass
class Budget:
    seconds: float
    memory_bytes: int = DEFAULT_MEMORY
    cell_seconds: float | None = None  # the measured cell's own time, the first guess for one refit
    started: float = field(default_factory=time.perf_counter)

    @classmethod
    def for_cell(
        cls, cell_seconds: float | None, seconds: float | None = None, memory_bytes: int | None = None
    ) -> Budget:
        return cls(
            seconds if seconds is not None else default_seconds(cell_seconds),
            memory_bytes if memory_bytes is not None else default_memory(),
            cell_seconds,
        )

    def restart(self) -> None:
        self.started = time.perf_counter()

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def left(self) -> float:
        return self.seconds - self.elapsed()

    def allows(self, predicted_s: float) -> bool:
        return predicted_s <= self.left()


def nbytes(value: Any) -> int:
    """Bytes held by an array/frame/series (0 for what it cannot tell)."""
    n = getattr(value, "nbytes", None)
    if isinstance(n, (int,)) and not isinstance(n, bool):
        return int(n)
    mem = getattr(value, "memory_usage", None)
    if callable(mem) and (type(value).__module__ or "").startswith("pandas"):
        try:
            total = mem(deep=True)
            return int(total.sum()) if hasattr(total, "sum") else int(total)
        except Exception:  # noqa: BLE001
            return 0
    return 0


@contextlib.contextmanager
def private_folder() -> Iterator[str]:
    """Work in a temporary folder and come back: whatever a refit writes by relative path (a joblib cache, a
    model dump, a log) lands there and is removed, never in the user's working folder."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="trainguard-impact-") as tmp:
        os.chdir(tmp)
        try:
            yield tmp
        finally:
            os.chdir(here)


@contextlib.contextmanager
def isolated() -> Iterator[None]:
    """Global random/NumPy/torch RNG states restored afterwards; MLflow autologging off while inside (a refit
    must not log runs into the user's experiments); the working folder a temporary one (a refit must not write
    the user's files); warnings and prints of the refits kept out of the cell."""
    import io
    import warnings

    saved = rng_states.capture()
    with contextlib.ExitStack() as stack:
        stack.enter_context(private_folder())
        if "mlflow" in sys.modules:
            try:
                from mlflow.utils.autologging_utils import disable_autologging

                stack.enter_context(disable_autologging())
            except Exception:  # noqa: BLE001 - an mlflow without the switch: autolog_active() refuses instead
                pass
        stack.enter_context(warnings.catch_warnings())
        warnings.simplefilter("ignore")
        sink = io.StringIO()
        stack.enter_context(contextlib.redirect_stdout(sink))
        stack.enter_context(contextlib.redirect_stderr(sink))
        try:
            yield
        finally:
            rng_states.restore(saved)


def autolog_blocker() -> str | None:
    """Why a refit could log into the user's tracking runs (None when it cannot)."""
    if "mlflow" not in sys.modules:
        return None
    try:
        from mlflow.utils.autologging_utils import disable_autologging  # noqa: F401
    except Exception:  # noqa: BLE001
        return "MLflow is imported and its autologging cannot be switched off here"
    return None
