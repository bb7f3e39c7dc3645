"""Helpers for engine tests: real notebooks written with nbformat into a temporary folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from jupyter_trainguard.engine import analyze_path
from jupyter_trainguard.findings import Report


def write_notebook(path: Path, cells: list[str], counts: list[int | None] | None = None) -> Path:
    """Cells starting with '#md ' become markdown cells; the rest are code cells."""
    nb = new_notebook()
    for i, src in enumerate(cells):
        if src.startswith("#md "):
            nb.cells.append(new_markdown_cell(src[4:]))
        else:
            nb.cells.append(new_code_cell(src, execution_count=counts[i] if counts else None))
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path


@pytest.fixture
def make_nb(tmp_path: Path) -> Callable[..., Path]:
    def make(cells: list[str], name: str = "nb.ipynb", counts: list[int | None] | None = None) -> Path:
        return write_notebook(tmp_path / name, cells, counts)

    return make


@pytest.fixture
def scan_cells(make_nb) -> Callable[..., Report]:
    def scan(cells: list[str], name: str = "nb.ipynb", **kw) -> Report:
        return analyze_path(make_nb(cells, name, **kw))

    return scan


def ids(report: Report) -> list[str]:
    return sorted(f.rule_id for f in report.findings)


COMPONENTS = {
    "experiment_runner.py": '''
def run_standard_experiment(component: str, positions: list[int], dataset: str, output_dir: str, *,
                            epochs: int = 1, max_steps: int | None = None, seed: int = 0) -> dict:
    return {}
''',
    "data_loading.py": '''
DATASET_SPECS = {"toy_sentiment": {"n": 100}, "toy_preferences": {"n": 50}}

def load_dataset(name: str, split: str = "train", n: int | None = None):
    return DATASET_SPECS[name]
''',
    "device_setup.py": "def setup(prefer: str = 'auto'):\n    return prefer\n",
    "artifacts.py": "def save_report(output_dir, report, *, status='ok'):\n    return output_dir\n",
    "training_rig.py": '''
class TrainingRig:
    def __init__(self, component, positions, freeze=True):
        self.model = None
''',
}

PYPROJECT = '''
[tool.trainguard]
standard = ["notebooks/0[1-4]_*"]
experimental = ["notebooks/01[b-d]_*"]
components = "notebooks/components"
runner = "experiment_runner.run_standard_experiment"
required_calls = ["device_setup.setup", "artifacts.save_report"]

[tool.trainguard.constants.COMPONENT]
choices = ["aversion", "empathy", "coherence", "humility"]

[tool.trainguard.constants.POSITIONS]
type = "int_list"
min = 0
max = 11

[tool.trainguard.constants.DATASET]
keys_of = "data_loading.DATASET_SPECS"

[tool.trainguard.constants.OUTPUT_DIR]
pattern = "^outputs/[a-z0-9_]+$"
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A seed-1-style project: components package, [tool.trainguard] config, empty notebooks folder."""
    comp = tmp_path / "notebooks" / "components"
    comp.mkdir(parents=True)
    (tmp_path / "notebooks" / "__init__.py").write_text("")
    (comp / "__init__.py").write_text("")
    for name, src in COMPONENTS.items():
        (comp / name).write_text(src)
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path
