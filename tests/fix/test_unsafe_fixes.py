"""Unsafe fixes (LEAK001, TIME001, TRACK002, CKPT001/002, PIPE001): opt-in, marked, and the fixed notebooks run."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from jupyter_trainguard.fix import fix_paths

from .conftest import assert_only_sources_changed, cells, engine_findings, own_targets, src, write_nb

nbclient = pytest.importorskip("nbclient")

LEAKY = [
    ("md", "# Daily sales model"),
    "import os\nimport numpy as np\nimport pandas as pd\nimport mlflow\n"
    "from sklearn.preprocessing import StandardScaler\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.linear_model import LogisticRegression",
    ("df = pd.DataFrame({'date': pd.date_range('2024-01-01', periods=80, freq='D'), 'x': np.arange(80.0)})\n"
     "df['y'] = (df['x'] % 3 == 0).astype(int)\nX, y = df[['x']].to_numpy(), df['y'].to_numpy()", "80 rows\n"),
    "# scale the features\nX_scaled = StandardScaler().fit_transform(X)",
    "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, test_size=0.25, random_state=0)",
    "mlflow.set_tracking_uri('sqlite:///' + os.path.abspath('mlflow.db'))\nrun = mlflow.start_run()\n"
    "model = LogisticRegression(random_state=0)\nmodel.fit(X_train, y_train)\n# one metric\n"
    "mlflow.log_metric('acc', model.score(X_test, y_test))\nmlflow.end_run()",
    "from sklearn.model_selection import cross_val_score\nX_all = StandardScaler().fit_transform(X)\n"
    "print(cross_val_score(LogisticRegression(random_state=0), X_all, y, cv=3).shape)",
    "print(mlflow.get_run(run.info.run_id).info.status)\nprint(abs(float(X_train.mean())) < 1e-9, X_test.min() > 1)",
]


def execute(path: Path, extra: list[str] = ()) -> list[str]:
    """Run the notebook in a real kernel (cwd = its folder); returns the text printed by each code cell."""
    nb = nbformat.read(str(path), as_version=4)
    nb.cells.extend(new_code_cell(s) for s in extra)
    nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}}).execute()
    return ["".join(o.get("text", "") for o in c.outputs) for c in nb.cells if c.cell_type == "code"]


def test_unsafe_fixes_need_the_flag_and_are_reported(nbdir):
    path = write_nb(nbdir / "leaky.ipynb", LEAKY)
    raw = path.read_bytes()
    rep = fix_paths([path], engine_rules=[], selection=["LEAK001", "TIME001", "TRACK002"])
    assert path.read_bytes() == raw and rep.status == "no_work"
    left = {x.rule_id: x.reason for x in rep.left}
    assert set(left) == {"LEAK001", "TIME001", "TRACK002"}
    assert all("rerun with --unsafe" in r for r in left.values())
    assert "LEFT FOR A HUMAN:" in rep.to_text()


def test_leaky_notebook_fixed_with_unsafe_still_runs(nbdir):
    path = write_nb(nbdir / "leaky.ipynb", LEAKY)
    before = path.read_text(encoding="utf-8")
    rep = fix_paths([path], unsafe=True, engine_rules=[])
    after = path.read_text(encoding="utf-8")
    assert_only_sources_changed(before, after, changed={3, 4, 5, 6}, inserted={})
    c = cells(path)
    assert src(c[3]).startswith("# scale the features\n# moved after the split, fitted on X_train only")
    assert src(c[4]) == ("X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0, "
                         "shuffle=False)\nscaler = StandardScaler()\nX_train = scaler.fit_transform(X_train)\n"
                         "X_test = scaler.transform(X_test)")
    assert src(c[5]).splitlines()[1:] == [
        "with mlflow.start_run() as run:", "    model = LogisticRegression(random_state=0)",
        "    model.fit(X_train, y_train)", "    # one metric",
        "    mlflow.log_metric('acc', model.score(X_test, y_test))"]
    assert src(c[6]).splitlines() == [
        "from sklearn.model_selection import cross_val_score",
        "# moved into a Pipeline with the model (trainguard fix LEAK001): X_all = StandardScaler().fit_transform(X)",
        "from sklearn.pipeline import make_pipeline",
        "print(cross_val_score(make_pipeline(StandardScaler(), LogisticRegression(random_state=0)), X, y, cv=3).shape)"]
    unsafe = [ch for ch in rep.changes if ch.safety == "unsafe"]
    assert {ch.rule_id for ch in unsafe} == {"LEAK001", "TIME001", "TRACK002"}
    assert rep.to_text().count("UNSAFE: may change behaviour") == len(unsafe)
    remaining = {f.rule_id for f in engine_findings(path)}
    for rule in ("LEAK001", "TIME001", "TRACK002"):
        assert own_targets(path, rule) == [], rule
        assert rule not in remaining
    assert fix_paths([path], unsafe=True, engine_rules=[]).status == "no_work"
    out = execute(path)
    assert out[-2].strip() == "(3,)"
    assert out[-1].split() == ["FINISHED", "True", "True"]


def test_checkpoint_made_resumable_and_loads_match(nbdir):
    path = write_nb(nbdir / "ckpt.ipynb", [
        "import torch",
        "model = torch.nn.Linear(3, 1)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)\n"
        "x, y = torch.randn(16, 3), torch.randn(16, 1)",
        "for epoch in range(2):\n    optimizer.zero_grad()\n    loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "    loss.backward()\n    optimizer.step()\n    scheduler.step()\n"
        "    torch.save(model.state_dict(), 'ckpt.pt')",
        "model.load_state_dict(torch.load('ckpt.pt'))",
    ])
    before = path.read_text(encoding="utf-8")
    rep = fix_paths([path], unsafe=True, engine_rules=[])
    after = path.read_text(encoding="utf-8")
    assert_only_sources_changed(before, after, changed={2, 3}, inserted={1: 1})
    c = cells(path)
    assert src(c[1]).splitlines()[1:] == ["SEED = 42", "torch.manual_seed(SEED)"]
    assert src(c[3]).endswith("    torch.save({\"model\": model.state_dict(), \"optimizer\": optimizer.state_dict(), "
                              "\"scheduler\": scheduler.state_dict(), \"epoch\": epoch}, 'ckpt.pt')")
    assert src(c[4]).splitlines() == [
        "checkpoint = torch.load('ckpt.pt', weights_only=True)", 'model.load_state_dict(checkpoint["model"])',
        'optimizer.load_state_dict(checkpoint["optimizer"])', 'scheduler.load_state_dict(checkpoint["scheduler"])',
        'start_epoch = checkpoint["epoch"] + 1']
    assert {ch.rule_id for ch in rep.changes} >= {"CKPT001", "CKPT002", "SEED003"}
    remaining = {f.rule_id for f in engine_findings(path)}
    for rule in ("CKPT001", "CKPT002", "CKPT003", "SEED003"):
        assert own_targets(path, rule) == [], rule
        assert rule not in remaining
    out = execute(path, ["print(start_epoch, sorted(checkpoint))"])
    assert out[-1].strip() == "2 ['epoch', 'model', 'optimizer', 'scheduler']"


RUNNER = '''def run_standard_experiment(component, positions, dataset, output_dir, *, epochs=1, seed=0, lr=0.1):
    return {"component": component, "positions": list(positions), "epochs": epochs, "seed": seed}
'''


def _project(root: Path, training: str) -> Path:
    (root / "nbs" / "components").mkdir(parents=True)
    (root / "nbs" / "__init__.py").write_text("")
    (root / "nbs" / "components" / "__init__.py").write_text("")
    (root / "nbs" / "components" / "runner.py").write_text(RUNNER)
    (root / "pyproject.toml").write_text('[tool.trainguard]\nstandard = ["nbs/0[1-4]_*"]\n'
                                         'components = "nbs/components"\nrunner = "runner.run_standard_experiment"\n')
    return write_nb(root / "nbs" / "01_baseline.ipynb", [
        "import sys\nfrom pathlib import Path\nsys.path.insert(0, str(Path.cwd().parent))",
        "COMPONENT = 'aversion'\nPOSITIONS = [3]\nDATASET = 'toy'\nOUTPUT_DIR = 'outputs/a'\nEPOCHS = 2",
        training,
        "print('done')",
    ])


def test_standard_notebook_training_replaced_by_runner_call(nbdir):
    path = _project(nbdir, "history = []\nfor epoch in range(EPOCHS):\n    loss = 1.0 / (epoch + 1)\n"
                           "    optimizer.step()\n    history.append(loss)")
    before = path.read_text(encoding="utf-8")
    rep = fix_paths([path], unsafe=True, engine_rules=[], selection=["PIPE001"])
    assert_only_sources_changed(before, path.read_text(encoding="utf-8"), changed={2}, inserted={})
    new = src(cells(path)[2]).splitlines()
    assert new[:3] == ["from nbs.components.runner import run_standard_experiment", "",
                       "results = run_standard_experiment(component=COMPONENT, positions=POSITIONS, dataset=DATASET, "
                       "output_dir=OUTPUT_DIR, epochs=EPOCHS)"]
    assert new[-5:] == ["# history = []", "# for epoch in range(EPOCHS):", "#     loss = 1.0 / (epoch + 1)",
                        "#     optimizer.step()", "#     history.append(loss)"]
    assert [ch.rule_id for ch in rep.changes] == ["PIPE001"]
    assert "PIPE001" not in {f.rule_id for f in engine_findings(path)}
    out = execute(path, ["print(results)"])
    assert out[-1].strip() == "{'component': 'aversion', 'positions': [3], 'epochs': 2, 'seed': 0}"


def test_runner_fix_skipped_when_later_cells_need_the_training_cell(nbdir):
    path = _project(nbdir, "history = []\nfor epoch in range(EPOCHS):\n    optimizer.step()\n    history.append(epoch)")
    nb = nbformat.read(str(path), as_version=4)
    nb.cells[3].source = "print(history)"
    nbformat.write(nb, str(path))
    raw = path.read_bytes()
    rep = fix_paths([path], unsafe=True, engine_rules=[], selection=["PIPE001"])
    assert path.read_bytes() == raw
    assert any(x.rule_id == "PIPE001" and "later cells use history" in x.reason for x in rep.left)


def test_extra_training_cell_disabled_when_the_runner_is_already_called(nbdir):
    path = _project(nbdir, "for epoch in range(EPOCHS):\n    optimizer.step()\n    print('extra fine-tune', epoch)")
    nb = nbformat.read(str(path), as_version=4)
    nb.cells[3].source = ("from nbs.components.runner import run_standard_experiment\n"
                          "results = run_standard_experiment(COMPONENT, POSITIONS, DATASET, OUTPUT_DIR)")
    nbformat.write(nb, str(path))
    rep = fix_paths([path], unsafe=True, selection=["use-runner"])
    new = src(cells(path)[2]).splitlines()
    assert new[0] == ("# Training runs in the shared pipeline: run_standard_experiment() is already called in "
                      "cell 4 [In 4].")
    assert new[2:] == ["# for epoch in range(EPOCHS):", "#     optimizer.step()",
                       "#     print('extra fine-tune', epoch)"]
    assert [(c.rule_id, c.safety) for c in rep.changes] == [("PIPE001", "unsafe")]
    assert "PIPE001" not in {f.rule_id for f in engine_findings(path)}


def test_shuffled_kfold_on_time_series(nbdir):
    path = write_nb(nbdir / "energy.ipynb", [
        "import pandas as pd\nfrom sklearn.model_selection import KFold, cross_val_score\n"
        "from sklearn.linear_model import Ridge",
        "energy = pd.DataFrame({'load': [float(i % 7) for i in range(60)]})\n"
        "energy['rolling_mean'] = energy['load'].rolling(3).mean()\nenergy = energy.dropna()\n"
        "X, y = energy.drop('load', axis=1), energy['load']\n"
        "cv = KFold(n_splits=5, shuffle=True, random_state=0)\nprint(cross_val_score(Ridge(), X, y, cv=cv).mean())",
    ])
    raw = path.read_bytes()
    for engine_rules in ([], None):  # the fixer's own detector, then the engine's TIME001 (finding on another line)
        path.write_bytes(raw)
        rep = fix_paths([path], unsafe=True, engine_rules=engine_rules, selection=["TIME001"])
        assert "cv = KFold(n_splits=5, shuffle=False, random_state=None)\n" in src(cells(path)[1])
        assert [(c.rule_id, c.safety) for c in rep.changes] == [("TIME001", "unsafe")]
        assert "random_state=None: KFold rejects a seed without shuffling" in rep.changes[0].detail
    assert "TIME001" not in {f.rule_id for f in engine_findings(path)}
    assert own_targets(path, "TIME001") == []


def test_transform_fitted_on_the_training_split_before_cross_validation_moves_into_a_pipeline(nbdir):
    """LEAK008: the scaler fitted on all of X_train before cross_val_score on it goes into a Pipeline the
    cross-validation refits per fold; the notebook still runs and the finding is gone."""
    path = write_nb(nbdir / "cv.ipynb", [
        "import numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.model_selection import train_test_split, cross_val_score\n"
        "from sklearn.linear_model import LogisticRegression",
        "X = np.arange(120.0).reshape(60, 2)\ny = (np.arange(60) % 2 == 0).astype(int)\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)",
        "X_train_s = StandardScaler().fit_transform(X_train)\n"
        "print(cross_val_score(LogisticRegression(), X_train_s, y_train, cv=3).shape)",
    ])
    assert "LEAK008" in {f.rule_id for f in engine_findings(path)}
    rep = fix_paths([path], unsafe=True)  # cross-checked with the engine, which reports LEAK008 there
    assert {ch.rule_id for ch in rep.changes if ch.safety == "unsafe"} == {"LEAK008"}
    lines = src(cells(path)[2]).splitlines()
    assert lines[0].startswith("# moved into a Pipeline with the model (trainguard fix LEAK008)")
    assert lines[-1] == ("print(cross_val_score(make_pipeline(StandardScaler(), LogisticRegression()), X_train, "
                         "y_train, cv=3).shape)")
    assert "LEAK008" not in {f.rule_id for f in engine_findings(path)}
    assert execute(path)[-1].strip() == "(3,)"
