"""Rerun a training cell twice in copies of the namespace and say whether its metric reproduces.

The user's state is left alone: the cell runs in a shallow copy of `user_ns` in which every object the cell reads
(models, data) is deep-copied when possible, and the global RNG states are restored afterwards.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import io
import os
import random
import sys
import types
from typing import Any

from .. import rng_states
from ..analysis.parsed import ParsedNotebook
from ..findings import cell_label
from ..notebook.load import notebook_from_sources
from .signals import collect

COPY_LIMIT_BYTES = 512 * 1024 * 1024
_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), frozenset, range)


def _nbytes(value: Any) -> int:
    for attr in ("nbytes",):
        n = getattr(value, attr, None)
        if isinstance(n, int):
            return n
    mem = getattr(value, "memory_usage", None)
    if callable(mem) and type(value).__module__.startswith("pandas"):
        try:
            total = mem(deep=False)
            return int(total.sum()) if hasattr(total, "sum") else int(total)
        except Exception:  # memory_usage on odd frames
            return 0
    if type(value).__module__.startswith("torch") and hasattr(value, "element_size"):
        return int(value.element_size() * value.nelement())
    return 0


def names_read(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def isolated_namespace(user_ns: dict[str, Any], code: str) -> tuple[dict[str, Any], list[str], list[str]]:
    """A shallow copy of the namespace with the objects the cell touches deep-copied; returns (ns, copied, shared)."""
    ns = user_ns.copy()
    copied, shared = [], []
    for name in sorted(names_read(code)):
        if name not in ns:
            continue
        value = ns[name]
        if isinstance(
            value,
            (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType, types.MethodType) + _IMMUTABLE,
        ):
            continue
        if _nbytes(value) > COPY_LIMIT_BYTES:
            shared.append(name)
            continue
        try:
            ns[name] = copy.deepcopy(value)
            copied.append(name)
        except Exception:  # uncopyable (open files, CUDA handles, locks): share and say so
            shared.append(name)
    return ns, copied, shared


def _seed_all(seed: int) -> None:
    random.seed(seed)
    if "numpy" in sys.modules:
        import numpy as np

        np.random.seed(seed % 2**32)
    if sys.modules.get("torch") is not None:
        import torch

        torch.manual_seed(seed)


def _as_number(value: Any) -> float | None:
    if isinstance(value, (str, bytes)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, RuntimeError):
        return None


def values_match(a: Any, b: Any, tol: float) -> tuple[bool, float | None]:
    x, y = _as_number(a), _as_number(b)
    if x is not None and y is not None:
        diff = abs(x - y)
        return diff <= tol, diff
    if "numpy" in sys.modules:
        import numpy as np

        try:
            aa, bb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
            if aa.shape == bb.shape:
                diff = float(np.max(np.abs(aa - bb))) if aa.size else 0.0
                return diff <= tol, diff
        except (TypeError, ValueError):
            pass
    return bool(a == b), None


def seeds_itself(source: str) -> list[str]:
    """Seeding statements inside the cell itself (random/numpy/torch seeds, seed helpers, random_state=...)."""
    nb = notebook_from_sources("<cell>", [source])
    sig = collect(ParsedNotebook.from_notebook(nb), "<cell>")
    return [f"{f.detail} (line {f.location.line})" if f.location and f.location.line else f.detail for f in sig.seeds]


def resolve_cell(history: list[str], cell: int) -> tuple[int, str]:
    """`cell` is an execution count (an index of `In`); negative counts back from the running cell (-1 = the
    cell before the one running %trainaudit, which is the last entry of `In`)."""
    n = len(history)
    idx = cell if cell >= 0 else n - 1 + cell
    if idx <= 0 or idx >= n:
        raise ValueError(f"no cell {cell_label(None, cell)} in this session (the last is {cell_label(None, n - 1)})")
    return idx, history[idx]


def rerun_label(shell: Any, history: list[str], idx: int) -> str:
    """How the rerun cell is named: "cell 5 [In 3]" when the saved notebook holds it, else "[In 3]"."""
    from ..session_cells import locate

    # the running %trainaudit cell goes last: `locate` gives it the id of the request being executed
    now = len(history) - 1
    sources, counts = ([history[idx], history[now]], [idx, now]) if now > idx else ([history[idx]], [idx])
    try:
        return locate(shell, sources, counts).label(0) or cell_label(None, idx)
    except Exception:  # noqa: BLE001 - an unreadable notebook file: the count alone still names the cell
        return cell_label(None, idx)


EXTRA_UNSEEDED_RUNS = 3  # an unseeded cell gets up to 3 more runs when the first two tie by chance


def rerun_cell(
    shell: Any, cell: int, metric: str, tol: float = 0.0, seed: int | None = None, runs: int = 2
) -> dict[str, Any]:
    """Run the cell of execution count `cell` `runs` times in isolated namespaces; compare `metric` after each."""
    from .review import raw_history

    history = raw_history(shell.user_ns, shell)
    try:
        idx, source = resolve_cell(history, cell)
    except ValueError as exc:
        return {"cell": cell, "metric": metric, "error": str(exc)}
    if "trainaudit" in source:
        return {"cell": idx, "metric": metric, "error": f"{cell_label(None, idx)} runs %trainaudit itself"}
    label = rerun_label(shell, history, idx)
    from ..notebook.ipython_syntax import PYTHON_BODY_MAGICS, split_cell_magic

    magic, body, _ = split_cell_magic(source)
    if magic is not None:
        if magic not in PYTHON_BODY_MAGICS:
            return {"cell": idx, "label": label, "metric": metric, "error": f"{label} is a %%{magic} cell, not Python"}
        source = body  # run the body itself: the magic would execute in the user's namespace
    code = shell.transform_cell(source)
    seeding = seeds_itself(source)
    values: list[Any] = []
    saved = rng_states.capture()
    copied: list[str] = []
    shared: list[str] = []
    max_runs = runs if (seed is not None or seeding) else runs + EXTRA_UNSEEDED_RUNS
    try:
        while len(values) < max_runs:
            if len(values) >= runs and not all(values_match(values[0], v, tol)[0] for v in values[1:]):
                break  # already shown not to reproduce
            ns, copied, shared = isolated_namespace(shell.user_ns, code)
            # each run starts like a fresh kernel would: from the given seed, or from fresh entropy
            _seed_all(seed if seed is not None else int.from_bytes(os.urandom(4), "little"))
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                    exec(compile(code, f"<trainaudit rerun [In {idx}]>", "exec"), ns)
            except Exception as exc:
                error = f"the cell raised {type(exc).__name__} (message omitted: it may quote data)"
                return {
                    "cell": idx,
                    "label": label,
                    "metric": metric,
                    "error": error,
                    "seeds_itself": bool(seeding),
                    "seeding": seeding,
                }
            if metric not in ns:
                return {
                    "cell": idx,
                    "label": label,
                    "metric": metric,
                    "error": f"the cell did not set {metric!r}",
                    "seeds_itself": bool(seeding),
                    "seeding": seeding,
                }
            values.append(ns[metric])
    finally:
        rng_states.restore(saved)
    pairs = [values_match(values[0], v, tol) for v in values[1:]]
    matched = all(m for m, _ in pairs)
    diffs = [d for _, d in pairs if d is not None]
    diff = max(diffs) if diffs else None
    shown = [_as_number(v) if _as_number(v) is not None else repr(v)[:80] for v in values]
    verdict = "reproduces" if matched else "does NOT reproduce"
    diff_text = (
        f"|diff| {diff:.6g} {'<=' if matched else '>'} tol {tol:g}"
        if diff is not None
        else ("equal" if matched else "different values")
    )
    times = "twice" if len(values) == 2 else f"{len(values)} times"
    summary = (
        f"{label} ran {times}: {metric} = {' then '.join(str(v) for v in shown)} ({diff_text}): {verdict}"
        + (f", with --seed {seed} applied before each run" if seed is not None else "")
        + ("; the cell seeds itself (" + "; ".join(seeding) + ")" if seeding else "; the cell does not seed itself")
    )
    return {
        "cell": idx,
        "label": label,
        "metric": metric,
        "values": shown,
        "difference": diff,
        "tol": tol,
        "matched": matched,
        "seed": seed,
        "seeds_itself": bool(seeding),
        "seeding": seeding,
        "copied": copied,
        "shared": shared,
        "summary": summary,
    }
