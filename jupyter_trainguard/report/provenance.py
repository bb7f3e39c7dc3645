"""Provenance of a session: full-data content hashes, git commit and dirty flag, notebook path, package versions.

Values in datasets are never reported: only names, shapes, column names and a hash of the whole data.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as md
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

PACKAGES = ("numpy", "pandas", "scikit-learn", "scipy", "torch", "torchvision", "lightning", "transformers",
            "xgboost", "lightgbm", "catboost", "imbalanced-learn", "mlflow", "wandb", "jupyter-trainguard")
MAX_DATASETS = 50


def package_versions(names: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """Installed versions (from package metadata; nothing is imported)."""
    out = {}
    for name in names:
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    return out


def git_info(start: str | os.PathLike | None = None) -> dict[str, Any]:
    """Commit, branch and dirty flag of the repository holding `start` (empty when git or a repo is missing)."""
    cwd = Path(start or Path.cwd()).resolve()
    if cwd.is_file() or not cwd.exists():
        cwd = cwd.parent
    if not cwd.is_dir():
        return {}

    def git(*args: str) -> str | None:
        try:
            res = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return res.stdout.strip() if res.returncode == 0 else None

    out = git("rev-parse", "--show-toplevel", "HEAD", "--abbrev-ref", "HEAD")
    parts = out.splitlines() if out else []
    if len(parts) != 3:  # no git, not a repository, or no commit yet
        return {}
    _root, commit, branch = parts
    status = git("status", "--porcelain", "--untracked-files=no")
    info: dict[str, Any] = {"commit": commit, "dirty": bool(status)}
    if branch and branch != "HEAD":
        info["branch"] = branch
    return info


def notebook_path(user_ns: dict[str, Any] | None = None) -> str | None:
    """The notebook file of the running kernel when the frontend tells us (JupyterLab/VS Code)."""
    env = os.environ.get("JPY_SESSION_NAME")
    if env:
        return env
    if user_ns:
        session = user_ns.get("__session__")
        if isinstance(session, str) and session:
            return session
        vsc = user_ns.get("__vsc_ipynb_file__")
        if isinstance(vsc, str) and vsc:
            return vsc
    return None


def _sha256(chunks) -> str:
    h = hashlib.sha256()
    for c in chunks:
        h.update(c)
    return h.hexdigest()


def hash_dataset(obj: Any) -> dict[str, Any] | None:
    """Content hash over the whole object (not a prefix), plus its shape and column names; None if not data."""
    mod = type(obj).__module__
    if mod.startswith("pandas") and "pandas" in sys.modules:
        import pandas as pd

        if isinstance(obj, (pd.DataFrame, pd.Series)):
            try:
                rows = pd.util.hash_pandas_object(obj, index=True).to_numpy()
            except TypeError:  # unhashable cells (lists, dicts): hash their text form
                rows = pd.util.hash_pandas_object(obj.astype(str), index=True).to_numpy()
            if isinstance(obj, pd.DataFrame):
                cols = [str(c) for c in obj.columns]
                dtypes = [str(t) for t in obj.dtypes]
            else:
                cols, dtypes = [str(obj.name)], [str(obj.dtype)]
            header = repr((cols, dtypes, obj.shape)).encode()
            return {"type": type(obj).__name__, "shape": list(obj.shape), "columns": cols,
                    "sha256": _sha256([header, rows.tobytes()]), "method": "pandas.util.hash_pandas_object"}
    if mod == "numpy" and "numpy" in sys.modules:
        import numpy as np

        if isinstance(obj, np.ndarray):
            if obj.dtype == object:
                import pickle

                body = pickle.dumps(obj.tolist(), protocol=4)
            else:
                body = np.ascontiguousarray(obj).tobytes()
            header = repr((str(obj.dtype), obj.shape)).encode()
            return {"type": "ndarray", "shape": list(obj.shape), "dtype": str(obj.dtype),
                    "sha256": _sha256([header, body]), "method": "ndarray bytes"}
    if mod.startswith("torch") and sys.modules.get("torch") is not None:
        import torch

        if isinstance(obj, torch.Tensor):
            info: dict[str, Any] = {"type": "Tensor", "shape": list(obj.shape), "dtype": str(obj.dtype),
                                    "device": str(obj.device)}
            if obj.device.type != "cpu":
                info["sha256"] = None
                info["note"] = "not hashed: on an accelerator (copying it to the CPU is not done implicitly)"
                return info
            t = obj.detach()
            if t.dtype == torch.bfloat16:
                t = t.view(torch.int16)
            arr = t.contiguous().numpy()
            info["sha256"] = _sha256([repr((info["dtype"], info["shape"])).encode(), arr.tobytes()])
            info["method"] = "tensor.numpy() bytes"
            return info
    return None


def _is_dataset_candidate(name: str, value: Any) -> bool:
    if name.startswith("_") or name in ("In", "Out", "exit", "quit", "get_ipython"):
        return False
    shape = getattr(value, "shape", None)
    if shape is None or not isinstance(shape, tuple) or len(shape) == 0:
        return False
    n = 1
    for d in shape:
        n *= int(d)
    return n >= 2


def hash_dataset_object(ds: Any) -> dict[str, Any] | None:
    """A torch-style Dataset (what a DataLoader reads): hashed through the arrays it stores (`tensors` of a
    TensorDataset, `data`/`targets` of torchvision-style sets, a Subset's parent and indices)."""
    if hasattr(ds, "dataset") and hasattr(ds, "indices"):  # Subset / random_split
        parent = hash_dataset_object(ds.dataset) or {}
        indices = repr(list(ds.indices)).encode()
        return {"type": type(ds).__name__, "length": len(ds.indices), "of": parent.get("type"),
                "sha256": _sha256([str(parent.get("sha256")).encode(), indices]) if parent.get("sha256") else None,
                "method": "parent dataset hash + indices"}
    tensors = getattr(ds, "tensors", None)
    if isinstance(tensors, tuple):
        parts = [("tensors", t) for t in tensors]
    else:
        parts = [(a, getattr(ds, a, None)) for a in ("data", "targets", "labels")]
    hashed = [(a, hash_dataset(v)) for a, v in parts if v is not None]
    hashed = [(a, h) for a, h in hashed if h is not None]
    try:
        length = len(ds)
    except Exception:  # noqa: BLE001 - an iterable dataset
        length = None
    if not hashed:
        return {"type": type(ds).__name__, "length": length, "sha256": None,
                "note": "not hashed: it stores no arrays to read (a custom Dataset)"}
    shas = [h.get("sha256") for _, h in hashed]
    return {"type": type(ds).__name__, "length": length, "shape": hashed[0][1].get("shape"),
            "sha256": _sha256([str(x).encode() for x in shas]) if all(shas) else None,
            "method": "hash of its " + ", ".join(sorted({a for a, _ in hashed}))}


def _executed_code(user_ns: dict[str, Any]) -> list[str]:
    code = user_ns.get("In")
    return [c for c in code if isinstance(c, str)] if isinstance(code, list) else []


def _models(user_ns: dict[str, Any]) -> frozenset[str]:
    """Names of callable models (torch modules, Keras models): `name(x)` computes an output, not a dataset."""
    return frozenset(n for n, v in user_ns.items() if not n.startswith("_") and callable(v) and not isinstance(v, type)
                     and ((hasattr(v, "forward") and hasattr(v, "parameters"))
                          or (hasattr(v, "call") and hasattr(v, "trainable_weights"))))


def _safe(fn: Any, value: Any) -> dict[str, Any] | None:
    try:
        return fn(value)
    except Exception as exc:  # noqa: BLE001 - a strange subclass must not stop the audit
        return {"type": type(value).__name__, "sha256": None, "note": f"not hashed: {type(exc).__name__}"}


def dataset_hashes(user_ns: dict[str, Any], limit: int = MAX_DATASETS, sources: list[str] | None = None,
                   skipped: dict[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """Hash the session's datasets (the same object once, all its names), with the role that made each one.

    First what training and evaluation read (the datasets of DataLoaders, names passed to fit/score/split/...),
    then the other data frames, arrays and CPU tensors; names that only hold a loop's last batch, a model's
    output or one sample (seen in the executed code, `sources` or the namespace's `In`) are left out, with
    the reason in `skipped`.
    """
    from .data_roles import code_roles

    roles = code_roles(sources if sources is not None else _executed_code(user_ns), _models(user_ns))
    names = {id(v): n for n, v in sorted(user_ns.items(), reverse=True) if not n.startswith("_")}
    out: dict[str, dict[str, Any]] = {}
    seen: dict[int, str] = {}

    def add(name: str, value: Any, info: dict[str, Any] | None, role: str) -> None:
        if id(value) in seen:
            first = out[seen[id(value)]]
            if name != seen[id(value)] and name not in first.get("aliases", []):
                first.setdefault("aliases", []).append(name)
            return
        if info is None or len(out) >= limit:
            return
        out[name] = dict(info, role=role)
        seen[id(value)] = name

    for name, value in sorted(user_ns.items()):  # what DataLoaders read
        ds = getattr(value, "dataset", None)
        if not name.startswith("_") and type(value).__name__.endswith("DataLoader") and ds is not None:
            add(names.get(id(ds), f"{name}.dataset"), ds, _safe(hash_dataset_object, ds), f"read by {name}")
    for name, call in sorted(roles.used.items()):  # passed to training/evaluation calls
        value = user_ns.get(name)
        if name in user_ns and name not in roles.leftover and not name.startswith("_"):
            if _is_dataset_candidate(name, value):
                add(name, value, _safe(hash_dataset, value), f"passed to {call}()")
            elif hasattr(value, "__len__") and hasattr(value, "__getitem__") and (
                    hasattr(value, "tensors") or hasattr(value, "data") and hasattr(value, "targets")):
                add(name, value, _safe(hash_dataset_object, value), f"passed to {call}()")
    for name in sorted(user_ns):
        value = user_ns[name]
        if not _is_dataset_candidate(name, value):
            continue
        if name in roles.leftover and id(value) not in seen:
            if skipped is not None:
                skipped[name] = roles.leftover[name]
            continue
        add(name, value, _safe(hash_dataset, value), "in the namespace")
    return out


def datetime_columns(user_ns: dict[str, Any]) -> list[str]:
    """`frame.column` names of datetime columns/indexes in live data frames (evidence of time-ordered data)."""
    if "pandas" not in sys.modules:
        return []
    import pandas as pd

    out = []
    for name, value in user_ns.items():
        if name.startswith("_") or not isinstance(value, pd.DataFrame):
            continue
        if isinstance(value.index, pd.DatetimeIndex):
            out.append(f"{name}.index")
        for col, dtype in value.dtypes.items():
            if pd.api.types.is_datetime64_any_dtype(dtype):
                out.append(f"{name}[{str(col)!r}]")
    return sorted(out)


def collect_provenance(user_ns: dict[str, Any] | None = None, path: str | None = None, hash_data: bool = True
                       ) -> dict[str, Any]:
    """Everything that ties a result to its code, data and environment."""
    start = path or (notebook_path(user_ns) if user_ns else None)
    prov: dict[str, Any] = {
        "notebook": path or notebook_path(user_ns),
        "git": git_info(Path(start).parent if start and Path(start).exists() else None),
        "python": platform.python_version(),
        "packages": package_versions(),
    }
    if user_ns is not None and hash_data:
        skipped: dict[str, str] = {}
        prov["datasets"] = dataset_hashes(user_ns, skipped=skipped)
        if skipped:
            prov["not_datasets"] = skipped
    return prov
