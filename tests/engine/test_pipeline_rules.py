"""PIPE001-PIPE004 and CFG001-CFG002 on a real seed-1-style project written to disk."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_path, scan

from .conftest import ids, write_notebook

CONFIG = 'COMPONENT = "empathy"\nPOSITIONS = [3, 7]\nDATASET = "toy_sentiment"\nOUTPUT_DIR = "outputs/empathy_run"'
RUNNER = "from notebooks.components.experiment_runner import run_standard_experiment"
LOOP = """import torch
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(3):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()"""


def nb(project, name, cells, counts=None):
    return write_notebook(project / "notebooks" / name, cells, counts)


def test_clean_standard_notebook_has_no_pipeline_findings(project):
    p = nb(project, "01_clean.ipynb", [CONFIG, RUNNER,
                                       "res = run_standard_experiment(COMPONENT, POSITIONS, DATASET, OUTPUT_DIR)"])
    rep = analyze_path(p)
    assert rep.notebook_kind == "standard"
    assert ids(rep) == []


def test_training_loop_in_standard_notebook(project):
    p = nb(project, "02_loop.ipynb", [CONFIG, "loader = []", LOOP])
    (f,) = [f for f in analyze_path(p).findings if f.rule_id == "PIPE001"]
    assert f.location.cell == 2 and f.severity.value == "error"
    assert "backward()" in f.message and "optimizer.step()" in f.message and "run_standard_experiment" in f.message


def test_sklearn_fit_and_model_class_in_standard_notebook(project):
    p = nb(project, "03_fit.ipynb", [
        "from sklearn.linear_model import LogisticRegression\nclf = LogisticRegression().fit(X, y)",
        "import torch.nn as nn\nclass Head(nn.Module):\n    pass",
    ])
    found = [f for f in analyze_path(p).findings if f.rule_id == "PIPE001"]
    assert {f.location.cell for f in found} == {0, 1}


def test_training_code_in_other_notebooks_is_allowed(project):
    p = nb(project, "scratch.ipynb", ["loader = []", LOOP])
    assert "PIPE001" not in ids(analyze_path(p))


def test_experimental_notebook_without_shared_components(project):
    p = nb(project, "01b_own.ipynb", ["loader = []", LOOP, "torch.save(model.state_dict(), 'm.pt')"])
    found = [f for f in analyze_path(p).findings if f.rule_id == "PIPE002"]
    assert sorted(f.evidence["missing_call"] for f in found) == ["artifacts.save_report", "device_setup.setup"]


def test_experimental_notebook_using_components_is_clean(project):
    p = nb(project, "01c_good.ipynb", [
        "from notebooks.components import device_setup, artifacts", "device = device_setup.setup()",
        "loader = []", LOOP, "artifacts.save_report('outputs/x', {'loss': 1.0})"])
    assert "PIPE002" not in ids(analyze_path(p))


def test_experimental_notebook_with_aliased_import(project):
    p = nb(project, "01d_alias.ipynb", [
        "from notebooks.components.device_setup import setup as init_device\n"
        "import notebooks.components.artifacts as art", "dev = init_device()", "loader = []", LOOP,
        "art.save_report('outputs/x', {})"])
    assert "PIPE002" not in ids(analyze_path(p))


def test_signature_mismatch_renamed_keyword(project):
    p = nb(project, "02_sig.ipynb", [CONFIG, RUNNER,
                                     "run_standard_experiment(component=COMPONENT, position=POSITIONS,\n"
                                     "    dataset=DATASET, output_dir=OUTPUT_DIR)"])
    (f,) = [f for f in analyze_path(p).findings if f.rule_id == "PIPE004"]
    assert "unexpected keyword argument 'position'" in f.message and "did you mean 'positions'" in f.message
    assert "missing required argument(s): 'positions'" in f.message
    assert f.location.cell == 2 and f.location.line == 1


def test_signature_too_many_positional_and_unknown_function(project):
    p = nb(project, "02_pos.ipynb", [
        "from notebooks.components import experiment_runner as er\nfrom notebooks.components import data_loading",
        "er.run_standard_experiment('a', [1], 'b', 'c', 2)", "data_loading.load_everything()",
        "from notebooks.components.training_rig import TrainingRig\nrig = TrainingRig('empathy', [3], flip=True)"])
    found = {f.location.cell: f.message for f in analyze_path(p).findings if f.rule_id == "PIPE004"}
    assert "takes 4 positional argument(s) but 5 were given" in found[1]
    assert "load_everything does not exist" in found[2]
    assert "unexpected keyword argument 'flip'" in found[3]


def test_signature_matching_calls_and_splats_are_silent(project):
    p = nb(project, "02_ok.ipynb", [
        "from notebooks.components.experiment_runner import run_standard_experiment as run\n"
        "from notebooks.components.data_loading import load_dataset",
        "run('empathy', [1], 'toy_sentiment', 'outputs/a', epochs=2)\nrun(**kwargs)\nload_dataset('toy_sentiment')"])
    assert "PIPE004" not in ids(analyze_path(p))


def test_config_constants_are_checked_against_schema(project):
    p = nb(project, "03_cfg.ipynb", [
        'COMPONENT = "curiosity"\nPOSITIONS = [3, 12]\nDATASET = "toy_reviews"\nOUTPUT_DIR = "Results/X"'])
    msgs = {f.evidence["constant"]: f.message for f in analyze_path(p).findings if f.rule_id == "CFG001"}
    assert set(msgs) == {"COMPONENT", "POSITIONS", "DATASET", "OUTPUT_DIR"}
    assert "'curiosity' is not one of" in msgs["COMPONENT"]
    assert "12 is above the maximum 11" in msgs["POSITIONS"]
    assert "not a key of data_loading.DATASET_SPECS" in msgs["DATASET"] and "toy_sentiment" in msgs["DATASET"]
    assert "naming convention" in msgs["OUTPUT_DIR"]


def test_config_constants_types_and_valid_values(project):
    bad = nb(project, "03_types.ipynb", ['POSITIONS = "3"', "POSITIONS = list(range(0, 13))"])
    (f,) = [f for f in analyze_path(bad).findings if f.rule_id == "CFG001"]
    assert "12 is above the maximum" in f.message  # the last assignment in execution order wins
    wrong_type = nb(project, "03_type2.ipynb", ['POSITIONS = ["3", "4"]'])
    (g,) = [f for f in analyze_path(wrong_type).findings if f.rule_id == "CFG001"]
    assert g.message.startswith("POSITIONS = ['3', '4'] is not a list of int")
    good = nb(project, "03_good.ipynb", [CONFIG, "POSITIONS = list(range(0, 12))"])
    assert "CFG001" not in ids(analyze_path(good))


def test_hyperparameter_ranges_constants_and_keywords(tmp_path):
    p = write_notebook(tmp_path / "h.ipynb", [
        "LEARNING_RATE = 0\nBATCH_SIZE = 32\nEPOCHS = 0\nSEED = -1",
        "from sklearn.model_selection import train_test_split\n"
        "a, b = train_test_split(X, test_size=1.5, random_state=0)\nopt = SGD(params, lr=-0.01, momentum=0.9)"])
    msgs = sorted(f.message for f in analyze_path(p).findings if f.rule_id == "CFG002")
    assert len(msgs) == 5
    assert any("LEARNING_RATE = 0 must be > 0" in m for m in msgs)
    assert any("test_size=1.5" in m for m in msgs) and any("lr=-0.01" in m for m in msgs)
    ok = write_notebook(tmp_path / "ok.ipynb", ["LR = 3e-4\nBATCH_SIZE = 64\nTEST_SIZE = 0.2\nSEED = 42",
                                                "f(test_size=200, dropout=0.1, num_workers=0)"])
    assert "CFG002" not in ids(analyze_path(ok))


def test_duplicate_code_across_notebooks(project):
    shared = LOOP + "\nhistory.append(loss.item())\nprint('done', epoch)"
    renamed = shared.replace("model", "net").replace("optimizer", "opt")
    a = nb(project, "01b_a.ipynb", ["loader = []\nhistory = []", shared])
    b = nb(project, "01c_b.ipynb", ["loader = []\nhistory = []", renamed])
    c = nb(project, "scratch.ipynb", ["print('unrelated')\nx = [i * i for i in range(10)]"])
    result = scan([a, b, c])
    dup = {r.path: [f for f in r.findings if f.rule_id == "PIPE003"] for r in result.reports}
    assert len(dup[str(a)]) == 1 and len(dup[str(b)]) == 1 and dup[str(c)] == []
    assert dup[str(a)][0].evidence["other_path"] == str(b)
    assert dup[str(a)][0].location.cell == 1


def test_duplicate_code_can_be_suppressed_at_cell_top(project):
    a = nb(project, "01b_a.ipynb", ["loader = []", LOOP])
    b = nb(project, "01c_b.ipynb", ["loader = []", "# trainguard: ignore[PIPE003]\n" + LOOP])
    result = scan([a, b])
    counts = {r.path: sum(f.rule_id == "PIPE003" for f in r.findings) for r in result.reports}
    assert counts[str(b)] == 0


def test_duplicate_code_ignores_unclassified_notebooks_when_classes_are_configured(project):
    a = nb(project, "01b_a.ipynb", ["loader = []", LOOP])
    other = nb(project, "scratch.ipynb", ["loader = []", LOOP])
    result = scan([a, other])
    assert all(f.rule_id != "PIPE003" for r in result.reports for f in r.findings)


def test_duplicate_code_one_finding_per_cell_listing_every_partner(project):
    a = nb(project, "01b_a.ipynb", ["loader = []", LOOP])
    b = nb(project, "01c_b.ipynb", ["loader = []", LOOP])
    c = nb(project, "01d_c.ipynb", ["loader = []", LOOP])
    result = scan([a, b, c])
    found = [f for r in result.reports for f in r.findings if f.rule_id == "PIPE003"]
    assert len(found) == 3
    first = next(f for f in found if f.location.path == str(a))
    assert sorted(first.evidence["others"]) == sorted([str(b), str(c)])
