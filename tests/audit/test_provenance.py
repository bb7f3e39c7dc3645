"""Dataset hashes cover the whole data (not a prefix), never carry values; git and package info."""

from __future__ import annotations

import subprocess

import numpy as np
import pandas as pd

from jupyter_trainguard.report.provenance import (
    dataset_hashes,
    datetime_columns,
    git_info,
    hash_dataset,
    notebook_path,
    package_versions,
)


def test_frame_hash_covers_every_row_and_reports_no_values():
    df = pd.DataFrame({"income": np.arange(50_000, dtype=float), "city": ["a", "b"] * 25_000})
    h1 = hash_dataset(df)
    df2 = df.copy()
    df2.loc[49_999, "income"] = -1.0
    assert hash_dataset(df2)["sha256"] != h1["sha256"]
    assert hash_dataset(df.copy())["sha256"] == h1["sha256"]
    assert h1["columns"] == ["income", "city"] and h1["shape"] == [50_000, 2]
    assert "49999" not in str(h1) and "'a'" not in str(h1)
    renamed = df.rename(columns={"income": "salary"})
    assert hash_dataset(renamed)["sha256"] != h1["sha256"]


def test_array_and_tensor_hashes():
    import torch

    a = np.arange(1000, dtype=np.float32)
    t = torch.arange(1000, dtype=torch.float32)
    ha, ht = hash_dataset(a), hash_dataset(t)
    assert ha["shape"] == [1000] and ht["shape"] == [1000]
    b = a.copy()
    b[-1] = 0
    assert hash_dataset(b)["sha256"] != ha["sha256"]
    t2 = t.clone()
    t2[-1] = 0
    assert hash_dataset(t2)["sha256"] != ht["sha256"]
    assert hash_dataset(torch.ones(4, dtype=torch.bfloat16))["sha256"]


def test_namespace_hashes_aliases_once_and_skips_non_data():
    X = np.ones((10, 3))
    ns = {"X": X, "X_alias": X, "n": 3, "_private": np.zeros(5), "model": object(), "y": pd.Series([1, 2, 3])}
    out = dataset_hashes(ns)
    assert set(out) == {"X", "y"} and out["X"]["aliases"] == ["X_alias"]


def test_datetime_columns_found_in_live_frames():
    df = pd.DataFrame({"ts": pd.date_range("2024-01-01", periods=3), "v": [1, 2, 3]})
    indexed = df.set_index("ts")
    assert datetime_columns({"df": df, "idx": indexed}) == ["df['ts']", "idx.index"]


def test_git_info_and_missing_repo(tmp_path):
    assert git_info(tmp_path) == {}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "a.txt").write_text("x")
    subprocess.run(["git", "add", "a.txt"], cwd=tmp_path, check=True)
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "m"], cwd=tmp_path,
                   check=True)
    info = git_info(tmp_path)
    assert len(info["commit"]) == 40 and info["dirty"] is False
    (tmp_path / "a.txt").write_text("y")
    assert git_info(tmp_path)["dirty"] is True


def test_notebook_path_and_packages(monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert notebook_path({"__session__": "/work/nb.ipynb"}) == "/work/nb.ipynb"
    monkeypatch.setenv("JPY_SESSION_NAME", "/lab/train.ipynb")
    assert notebook_path({}) == "/lab/train.ipynb"
    pk = package_versions()
    assert "numpy" in pk and pk["numpy"] == np.__version__
