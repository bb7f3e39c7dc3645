"""The impact demo notebook runs top to bottom in a real kernel (nbclient) and shows each leak's measured effect;
`trainguard fix --verify` runs it before and after the fixes."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from jupyter_trainguard.cli import main
from jupyter_trainguard.display import RUN_MIME

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo_notebooks" / "impact_of_leaks.ipynb"


def test_demo_is_the_generators_output():
    import runpy

    build = runpy.run_path(str(ROOT / "scripts" / "generate_impact_demo.py"))["build"]
    assert [c.source for c in build().cells] == [c.source for c in nbformat.read(DEMO, as_version=4).cells]


def test_demo_is_committed_with_the_outputs_of_a_run():
    """The committed notebook shows what a reader gets: executed top to bottom (nbclient), no error, the three
    guarded runs with their measured impacts (regenerate with the script, then execute it to refresh them)."""
    nb = nbformat.read(DEMO, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    runs = [o["data"][RUN_MIME] for o in outputs if RUN_MIME in o.get("data", {})]
    assert len(runs) == 3
    verdicts = [
        {f["rule_id"]: f["evidence"]["impact"].get("verdict") for f in r["findings"] if "impact" in f["evidence"]}
        for r in runs
    ]
    assert verdicts[0]["LEAK006"] == "inflated" and verdicts[2]["DATA003"] == "no measurable effect"


@pytest.mark.slow
def test_demo_notebook_shows_what_each_leak_did(tmp_path):
    nbclient = pytest.importorskip("nbclient")
    path = tmp_path / DEMO.name
    shutil.copy(DEMO, path)
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    runs = [o["data"][RUN_MIME] for o in outputs if RUN_MIME in o.get("data", {})]
    assert len(runs) == 3

    def impacts(run):
        return {f["rule_id"]: f["evidence"]["impact"] for f in run["findings"] if "impact" in f["evidence"]}

    encoded, scaled, forest = (impacts(r) for r in runs)
    assert encoded["LEAK006"]["verdict"] == "inflated" and encoded["LEAK006"]["delta"] < -0.05
    assert scaled["DATA003"]["status"] == "measured" and 0 < abs(scaled["DATA003"]["delta"]) < 0.005
    assert forest["DATA003"]["verdict"] == "no measurable effect"
    html = next(o["data"]["text/html"] for o in outputs if RUN_MIME in o.get("data", {}))
    assert "refitted without the leak" in html
    text = "".join(o.get("text", "") for o in outputs if o.get("name") == "stdout")
    assert "measured impact: reported accuracy" in text  # the %trainaudit --impact review, as text


@pytest.mark.slow
def test_fix_verify_runs_the_demo_before_and_after(tmp_path, capsys):
    pytest.importorskip("nbclient")
    path = tmp_path / DEMO.name
    shutil.copy(DEMO, path)
    assert main(["fix", "--verify", "--unsafe", "--timeout", "240", str(path)]) == 0
    out = capsys.readouterr().out
    assert "LEAK001 preprocessing moved after the split (UNSAFE)" in out
    assert "test ROC AUC: " in out.split("Metrics that changed:")[1]  # the scaler fix moves the AUC a little
