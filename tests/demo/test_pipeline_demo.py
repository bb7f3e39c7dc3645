"""The seed-1 demo repository: the scan shows its deliberate violations, and the notebooks really run.

Notebooks 02 and 03 carry the violations that PIPE004 and CFG001 report; executing them proves the findings are
real: they fail at run time with the error the scanner predicted.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from jupyter_trainguard.engine import scan

DEMO = Path(__file__).resolve().parents[2] / "demo_notebooks"
PIPELINE = sorted((DEMO / "notebooks").glob("*.ipynb"))


def findings_by_notebook() -> dict[str, set[str]]:
    result = scan([DEMO / "notebooks"])
    return {Path(r.path).name: {f.rule_id for f in r.findings} for r in result.reports}


def test_scan_shows_each_deliberate_violation():
    found = findings_by_notebook()
    assert "PIPE004" in found["02_empathy_positions.ipynb"]
    assert "CFG001" in found["03_coherence_sweep.ipynb"]
    assert "PIPE001" in found["04_humility_custom.ipynb"]
    assert "PIPE002" in found["01c_contrastive_probe.ipynb"]
    assert "PIPE003" in found["01c_contrastive_probe.ipynb"] and "PIPE003" in found["01d_layer_ablation.ipynb"]
    pipeline_rules = {"PIPE001", "PIPE002", "PIPE003", "PIPE004", "CFG001", "CFG002", "NB001", "NB002"}
    assert not found["01_aversion_baseline.ipynb"] & pipeline_rules
    assert "PIPE002" not in found["01b_teacher_distillation.ipynb"]


@pytest.fixture(scope="module")
def demo_copy(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "demo_notebooks"
    shutil.copytree(DEMO, root, ignore=shutil.ignore_patterns("outputs", "__pycache__", "*.pt", "mlruns"))
    return root


EXPECTED_ERRORS = {"02_empathy_positions.ipynb": "TypeError", "03_coherence_sweep.ipynb": None}


@pytest.mark.slow
@pytest.mark.parametrize("path", PIPELINE, ids=[p.name for p in PIPELINE])
def test_demo_notebook_runs(path: Path, demo_copy: Path):
    from nbclient import NotebookClient

    nb_path = demo_copy / "notebooks" / path.name
    nb = nbformat.read(nb_path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(nb_path.parent)}})
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    if path.name in EXPECTED_ERRORS:
        assert errors, f"{path.name} should fail the way the scanner predicts"
        expected = EXPECTED_ERRORS[path.name]
        if expected:
            assert errors[0]["ename"] == expected and "position" in errors[0]["evalue"]
    else:
        assert not errors, [(e["ename"], e["evalue"]) for e in errors]
