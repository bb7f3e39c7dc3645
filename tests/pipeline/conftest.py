"""Fixtures for `trainguard pipeline` tests: copies of the demo repository, and tiny component packages."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_trainguard.config import Config, load_config

DEMO = Path(__file__).resolve().parents[2] / "demo_notebooks"


def plant(path: Path, old: str, new: str) -> None:
    """Replace `old` (which must occur) by `new` in `path`: a planted fault."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not found in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


@pytest.fixture
def demo_copy(tmp_path: Path) -> Path:
    """A private copy of demo_notebooks/ (without outputs) that a test may break."""
    dst = tmp_path / "demo"
    shutil.copytree(DEMO, dst, ignore=shutil.ignore_patterns("outputs", "__pycache__", ".ipynb_checkpoints"))
    return dst


@pytest.fixture
def demo_config(demo_copy: Path) -> Callable[[], Config]:
    return lambda: load_config(demo_copy)


@pytest.fixture
def components(tmp_path: Path) -> Callable[..., Config]:
    """Write a components package `proj/comps/` from {file name: source} and a pyproject; return its config."""

    def make(files: dict[str, str], extra_toml: str = "", runner: str | None = None) -> Config:
        root = tmp_path / "proj"
        comps = root / "comps"
        comps.mkdir(parents=True, exist_ok=True)
        (comps / "__init__.py").write_text("", encoding="utf-8")
        for name, src in files.items():
            (comps / name).write_text(textwrap.dedent(src), encoding="utf-8")
        runner_line = f'runner = "{runner}"\n' if runner else ""
        (root / "pyproject.toml").write_text(
            f'[tool.trainguard]\ncomponents = "comps"\n{runner_line}{textwrap.dedent(extra_toml)}', encoding="utf-8")
        return load_config(root)

    return make
