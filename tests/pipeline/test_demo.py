"""The demo repository (real CPU torch): healthy as shipped, and each planted fault gives the right finding."""

from __future__ import annotations

import re
from pathlib import Path

from jupyter_trainguard.cli import main
from jupyter_trainguard.engine import Selection
from jupyter_trainguard.pipeline import check_pipeline

from .conftest import plant

COMPONENTS = Path("notebooks/components")


def findings(result, rule_id, name=None):
    return [f for f in result.findings if f.rule_id == rule_id and (name is None or Path(f.location.path).name == name)]


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_demo_passes_with_smoke_run(demo_copy, capsys):
    rc = main(["pipeline", str(demo_copy), "--smoke", "--no-color"])
    text = capsys.readouterr().out
    assert rc == 0, text
    for name in ("__init__", "artifacts", "data_loading", "device_setup", "experiment_runner", "training_loop",
                 "training_rig"):
        assert re.search(rf"^  OK    {name}\b", text, re.M), text
    assert "FAIL" not in text
    assert re.search(r"^smoke: OK experiment_runner\.run_standard_experiment in [0-9.]+ s .*peak RSS [0-9.]+ MiB.*"
                     r"2 artifact\(s\): outputs/smoke/checkpoint\.pt, outputs/smoke/report\.json$", text, re.M), text
    assert "7 files checked: 0 error(s), 0 warning(s), 0 info" in text
    assert not (demo_copy / "outputs").exists()  # the smoke run wrote into a temporary folder


def test_component_that_fails_to_import(demo_copy, demo_config):
    loop = demo_copy / COMPONENTS / "training_loop.py"
    plant(loop, "import torch\n", "import torch\nimport tqdm_is_not_installed\n")
    result = check_pipeline(demo_config())
    (direct,) = findings(result, "PHEALTH001", "training_loop.py")
    assert "ModuleNotFoundError: No module named 'tqdm_is_not_installed'" in direct.message
    assert direct.location.line == line_of(loop, "tqdm_is_not_installed")
    (dependent,) = findings(result, "PHEALTH001", "experiment_runner.py")
    assert dependent.evidence["caused_by"] == "training_loop"
    status = {c.name: c.ok for c in result.components}
    assert status == {"__init__": True, "artifacts": True, "data_loading": True, "device_setup": True,
                      "experiment_runner": False, "training_loop": False, "training_rig": True}


def test_renamed_parameter(demo_copy, demo_config):
    loop = demo_copy / COMPONENTS / "training_loop.py"
    plant(loop, "max_steps: int | None = None", "step_limit: int | None = None")
    plant(loop, "if max_steps is not None and steps >= max_steps", "if step_limit is not None and steps >= step_limit")
    result = check_pipeline(demo_config())
    (call,) = findings(result, "PHEALTH003", "experiment_runner.py")
    assert "unexpected keyword argument 'max_steps'" in call.message
    assert call.location.line == line_of(demo_copy / COMPONENTS / "experiment_runner.py", "result = train(")
    (entry,) = findings(result, "PHEALTH002", "training_loop.py")
    assert "'max_steps'" in entry.message and entry.location.line == line_of(loop, "def train(")


def test_runner_without_finally(demo_copy, demo_config):
    runner = demo_copy / COMPONENTS / "experiment_runner.py"
    plant(runner, "    finally:\n        report[\"artifacts\"]", "    report[\"artifacts\"]")
    text = runner.read_text().replace("\n        del rig, optimizer\n        gc.collect()\n"
                                      "        if torch.cuda.is_available():\n            torch.cuda.empty_cache()\n",
                                      "\n    del rig, optimizer\n    gc.collect()\n")
    runner.write_text(text.replace("        report[\"artifacts\"] = str(", "    report[\"artifacts\"] = str("))
    result = check_pipeline(demo_config(), notebooks=False)
    (hit,) = findings(result, "PHEALTH011")
    assert hit.location.line == line_of(runner, "artifacts.save_report(")
    assert "only when training succeeds" in hit.message
    assert not {c.name for c in result.components if not c.ok} - {"experiment_runner"}


def test_training_loop_leaking_an_mlflow_run(demo_copy, demo_config):
    loop = demo_copy / COMPONENTS / "training_loop.py"
    plant(loop, "import torch\n", "import mlflow\nimport torch\n")
    plant(loop, "    device = device or torch.device(\"cpu\")\n    model.to(device)",
          "    mlflow.start_run()\n    device = device or torch.device(\"cpu\")\n    model.to(device)")
    plant(loop, "    return {\"status\": status,", "    mlflow.end_run()\n    return {\"status\": status,")
    # source rules only: the leak is visible without importing mlflow (the smoke-run check is in test_tracking)
    result = check_pipeline(demo_config(), notebooks=False, selection=Selection(select=("PHEALTH01",)))
    assert result.probe_runs == 0
    (hit,) = findings(result, "PHEALTH013")
    assert Path(hit.location.path).name == "training_loop.py"
    assert hit.location.line == line_of(loop, "mlflow.start_run()")


def test_dataset_missing_from_specs_and_notebook_calls(demo_copy, demo_config):
    plant(demo_copy / COMPONENTS / "data_loading.py", '    "toy_preferences": {', '    "toy_prefs": {')
    result = check_pipeline(demo_config(), notebooks=True)
    by_nb = {(Path(f.location.path).name, f.location.cell, f.rule_id, f.location.line): f for f in result.findings
             if f.location.path.endswith(".ipynb")}
    dataset = by_nb[("04_humility_custom.ipynb", 2, "PHEALTH005", 3)]
    assert "'toy_preferences' is not accepted by data_loading.DATASET_SPECS" in dataset.message
    # the demo's planted notebook faults show up too: a misspelt keyword, and three bad constants
    call = by_nb[("02_empathy_positions.ipynb", 4, "PHEALTH003", 1)]
    assert "'position' (did you mean 'positions'?)" in call.message
    assert {k[3] for k in by_nb if k[0] == "03_coherence_sweep.ipynb"} == {1, 2, 3}


def test_smoke_failure_still_saves_the_report(demo_copy, demo_config):
    data = demo_copy / COMPONENTS / "data_loading.py"
    plant(data, "    spec = DATASET_SPECS[name]\n",
          "    spec = DATASET_SPECS[name]\n    if split == \"validation\":\n"
          "        raise OSError(\"validation shard missing\")\n")
    result = check_pipeline(demo_config(), smoke=True, notebooks=False)
    (smoke,) = findings(result, "PHEALTH006")
    assert "OSError: validation shard missing" in smoke.message
    assert Path(smoke.location.path).name == "data_loading.py"
    assert smoke.location.line == line_of(data, "validation shard missing")
    assert "outputs/smoke/report.json" in result.smoke.artifacts and not result.smoke.ok
