"""Safe fixes written back into real notebooks: random_state, seeding cell, seeded generators, weights_only."""

from __future__ import annotations

import json

import nbformat

from jupyter_trainguard.cli import main
from jupyter_trainguard.fix import fix_paths

from .conftest import assert_only_sources_changed, cells, engine_findings, own_targets, src, write_nb

IMPORTS = ("import numpy as np\nimport pandas as pd\nfrom sklearn.model_selection import train_test_split, KFold\n"
           "from sklearn.ensemble import RandomForestClassifier  # the model")


def sklearn_nb(path, seed_cell: bool = True, noise: bool = False):
    return write_nb(path, [
        ("md", "# Churn model"),
        IMPORTS,
        *(["RANDOM_STATE = 7"] if seed_cell else []),
        ("df = pd.DataFrame({'a': range(40), 'b': range(40)})\nX, y = df[['a']], df['b'] % 2" +
         ("\nX = X + np.random.rand(40, 1)" if noise else ""), "loaded\n"),
        ("X_train, X_test, y_train, y_test = train_test_split(\n    X,\n    y,\n    test_size=0.2,\n)\n"
         "clf = RandomForestClassifier(n_estimators=5)  # small\nclf.fit(X_train, y_train)", "0.9\n"),
        "cv = KFold(n_splits=3, shuffle=True)\nsample = df.sample(frac=0.5)\nplain = KFold(n_splits=3)",
    ])


def test_random_state_uses_the_notebooks_seed_constant(nbdir):
    path = sklearn_nb(nbdir / "churn.ipynb")
    before = path.read_text(encoding="utf-8")
    report = fix_paths([path], engine_rules=[])
    assert report.status == "fixed"
    after = path.read_text(encoding="utf-8")
    assert_only_sources_changed(before, after, changed={4, 5}, inserted={})
    c = cells(path)
    assert src(c[4]) == ("X_train, X_test, y_train, y_test = train_test_split(\n    X,\n    y,\n    test_size=0.2,\n"
                         "    random_state=RANDOM_STATE,\n)\n"
                         "clf = RandomForestClassifier(n_estimators=5, random_state=RANDOM_STATE)  # small\n"
                         "clf.fit(X_train, y_train)")
    assert src(c[5]) == ("cv = KFold(n_splits=3, shuffle=True, random_state=RANDOM_STATE)\n"
                         "sample = df.sample(frac=0.5, random_state=RANDOM_STATE)\nplain = KFold(n_splits=3)")
    assert {ch.rule_id for ch in report.changes} == {"SEED004"}
    assert len(report.changes) == 4
    assert own_targets(path, "SEED004") == []
    assert engine_findings(path, "SEED004") == []
    again = fix_paths([path], engine_rules=[])
    assert again.status == "no_work" and not again.changes
    assert path.read_text(encoding="utf-8") == after


def test_seed_constant_and_seeding_cell_are_created(nbdir):
    path = sklearn_nb(nbdir / "noseed.ipynb", seed_cell=False, noise=True)
    before = path.read_text(encoding="utf-8")
    report = fix_paths([path], engine_rules=[])
    after = path.read_text(encoding="utf-8")
    assert_only_sources_changed(before, after, changed={3, 4}, inserted={2: 2})
    c = cells(path)
    new = c[2]
    assert src(new).splitlines()[1:] == ["SEED = 42", "np.random.seed(SEED)"]
    assert new["outputs"] == [] and new["execution_count"] is None and len(new["id"]) == 8
    assert new["id"] not in {x.get("id") for i, x in enumerate(c) if i != 2}
    assert "random_state=SEED" in src(c[4])
    assert [ch.rule_id for ch in report.changes][0] == "SEED002"
    assert own_targets(path, "SEED00") == []
    assert fix_paths([path], engine_rules=[]).status == "no_work"


def test_seeding_cell_without_ids_in_nbformat_4_4(nbdir):
    path = write_nb(nbdir / "old.ipynb", ["import random\nimport torch", "x = random.random()\nt = torch.rand(2)"],
                    minor=4)
    before = path.read_text(encoding="utf-8")
    fix_paths([path], engine_rules=[])
    after = path.read_text(encoding="utf-8")
    assert_only_sources_changed(before, after, changed=set(), inserted={1: 1})
    new = cells(path)[1]
    assert "id" not in new
    assert src(new).splitlines()[1:] == ["SEED = 42", "random.seed(SEED)", "torch.manual_seed(SEED)"]
    assert own_targets(path, "SEED00") == []


def test_existing_seeding_cell_is_completed_with_its_seed(nbdir):
    path = write_nb(nbdir / "partial.ipynb", ["import numpy as np\nimport random", "random.seed(123)",
                                              "rng = np.random.default_rng()\nv = np.random.rand(3)"])
    fix_paths([path], engine_rules=[])
    c = cells(path)
    assert len(c) == 3
    assert src(c[1]) == "random.seed(123)\nSEED = 123\nnp.random.seed(SEED)"
    assert src(c[2]).startswith("rng = np.random.default_rng(SEED)\n")


def test_diff_changes_nothing_and_exits_1(nbdir, capsys):
    path = sklearn_nb(nbdir / "d.ipynb")
    raw = path.read_bytes()
    rc = main(["fix", "--diff", str(path)])
    out = capsys.readouterr().out
    assert path.read_bytes() == raw
    assert rc == 1
    assert "+    random_state=RANDOM_STATE," in out
    assert f"--- {path} (cell 5 [In 4])" in out
    assert out.splitlines()[-1].startswith("- ") and "STATUS: no_work" in out and "CHANGES (proposed" in out


def test_torch_load_gets_weights_only_unless_a_whole_model_is_saved(nbdir):
    good = write_nb(nbdir / "load.ipynb", [
        "import torch",
        "net = torch.nn.Linear(2, 1)\ntorch.save(net.state_dict(), 'w.pt')",
        "net.load_state_dict(torch.load('w.pt', map_location='cpu'))",
    ])
    rep = fix_paths([good], engine_rules=[], selection=["CKPT003"])
    assert src(cells(good)[2]) == "net.load_state_dict(torch.load('w.pt', map_location='cpu', weights_only=True))"
    assert [c.rule_id for c in rep.changes] == ["CKPT003"]
    assert own_targets(good, "CKPT003") == [] and engine_findings(good, "CKPT003") == []
    whole = write_nb(nbdir / "whole.ipynb", [
        "import torch", "net = torch.nn.Linear(2, 1)\nnet.eval()\ntorch.save(net, 'm.pt')", "m = torch.load('m.pt')"])
    raw = whole.read_bytes()
    rep = fix_paths([whole], engine_rules=[], selection=["CKPT003"])
    assert whole.read_bytes() == raw and rep.status == "no_work"
    assert any("whole object `net`" in x.reason for x in rep.left)


def test_magics_are_kept_and_fixed_cells_still_parse(nbdir):
    path = write_nb(nbdir / "magic.ipynb", [
        "%matplotlib inline\nimport numpy as np\n!echo hi\nfrom sklearn.model_selection import train_test_split",
        "%%time\nX = np.arange(20).reshape(10, 2)\nparts = train_test_split(X, test_size=0.5)\nfiles = !ls\nX?",
        "%%bash\necho train_test_split(X)",
    ])
    before = path.read_text(encoding="utf-8")
    fix_paths([path], engine_rules=[], selection=["SEED004"])
    after = path.read_text(encoding="utf-8")
    assert_only_sources_changed(before, after, changed={0, 1}, inserted={})
    assert src(cells(path)[1]) == ("%%time\nX = np.arange(20).reshape(10, 2)\n"
                                   "parts = train_test_split(X, test_size=0.5, random_state=SEED)\nfiles = !ls\nX?")
    assert src(cells(path)[0]) == ("%matplotlib inline\nimport numpy as np\n!echo hi\n"
                                   "from sklearn.model_selection import train_test_split\nSEED = 42")


def test_selection_and_inline_suppression(nbdir):
    path = write_nb(nbdir / "sel.ipynb", [
        IMPORTS, "SEED = 1",
        "a = train_test_split([1, 2, 3, 4])\nb = train_test_split([1, 2, 3, 4])  # trainguard: ignore[SEED004]",
        "rng = np.random.default_rng()",
    ])
    raw = path.read_bytes()
    assert fix_paths([path], engine_rules=[], selection=None, diff_only=True).changes
    rep = fix_paths([path], engine_rules=[], selection=["SEED002"])
    assert {c.rule_id for c in rep.changes} == {"SEED002"}
    assert "train_test_split([1, 2, 3, 4])\n" in src(cells(path)[2])
    path.write_bytes(raw)
    from jupyter_trainguard.engine import Selection

    rep = fix_paths([path], engine_rules=[], selection=Selection(ignore=("SEED002", "seed-rngs")))
    assert {c.rule_id for c in rep.changes} == {"SEED004"}
    assert src(cells(path)[2]) == ("a = train_test_split([1, 2, 3, 4], random_state=SEED)\n"
                                   "b = train_test_split([1, 2, 3, 4])  # trainguard: ignore[SEED004]")


def test_engine_findings_restrict_what_is_fixed(nbdir):
    """When the rule exists, only the places the engine reports are fixed (a real rule, registered per run)."""
    import ast

    from jupyter_trainguard.rules.registry import Hit, Rule

    def only_second_split(ctx):
        for cell, node, q in ctx.parsed.calls():
            if q.endswith("train_test_split") and ast.unparse(node.args[0]) == "B":
                yield Hit.at(cell, node, "split without random_state")

    rule = Rule(id="SEED004", name="missing-random-state", category="reproducibility.seeding", severity="warning",
                rationale="", fix="", impact="", check=only_second_split)
    path = write_nb(nbdir / "x.ipynb", [IMPORTS + "\nSEED = 0", "A = B = [1, 2, 3, 4]",
                                         "p = train_test_split(A)\nq = train_test_split(B)"])
    rep = fix_paths([path], engine_rules=[rule])
    assert src(cells(path)[2]) == "p = train_test_split(A)\nq = train_test_split(B, random_state=SEED)"
    assert len(rep.changes) == 1 and rep.changes[0].line == 2


def test_unparsable_cells_are_left_alone(nbdir):
    path = write_nb(nbdir / "broken.ipynb", [IMPORTS + "\nSEED = 3", "def f(:\n    train_test_split(x)",
                                              "s = train_test_split([1, 2])"])
    before = path.read_text(encoding="utf-8")
    fix_paths([path], engine_rules=[], selection=["SEED004"])
    assert_only_sources_changed(before, path.read_text(encoding="utf-8"), changed={2}, inserted={})


def test_report_shape_and_api(nbdir):
    path = sklearn_nb(nbdir / "r.ipynb")
    rep = fix_paths(str(path), engine_rules=[])
    text = rep.to_text()
    lines = text.splitlines()
    assert lines[0] == "STATUS: fixed"
    assert "CHANGES:" in lines and "DETAILS:" in lines
    assert any(line.startswith(f"- {path}: added random_state") for line in lines)
    assert "[SEED004 via random-state, safe]" in text
    d = rep.to_dict()
    assert d["status"] == "fixed" and len(d["changes"]) == 4 and d["files"][0]["written"] is True
    json.dumps(d)
    assert fix_paths(str(path), engine_rules=[]).to_text().startswith("STATUS: no_work\n")


def test_every_listed_sklearn_class_accepts_random_state():
    import importlib
    import inspect

    from sklearn.experimental import enable_iterative_imputer  # noqa: F401

    from jupyter_trainguard.fix.fixers import seeding

    modules = [importlib.import_module(f"sklearn.{m}") for m in (
        "ensemble", "tree", "linear_model", "svm", "neural_network", "cluster", "decomposition", "manifold",
        "mixture", "model_selection", "kernel_approximation", "random_projection", "dummy", "impute")]
    names = seeding.ESTIMATORS | seeding.SHUFFLE_SPLITTERS | seeding.SHUFFLE_IF_ASKED
    for cls_name in names:
        cls = next(getattr(m, cls_name) for m in modules if hasattr(m, cls_name))
        assert "random_state" in inspect.signature(cls).parameters, cls_name


def test_validates_after_fix(nbdir):
    path = sklearn_nb(nbdir / "v.ipynb", seed_cell=False)
    fix_paths([path], engine_rules=[])
    nbformat.validate(nbformat.read(str(path), as_version=4))


def test_layouts_comments_and_nested_calls(nbdir):
    path = write_nb(nbdir / "layout.ipynb", [
        "from sklearn.model_selection import train_test_split, KFold, cross_val_score\n"
        "from sklearn.pipeline import make_pipeline\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.linear_model import LogisticRegression as LR\nSEED = 11",
        "X_tr, X_te = train_test_split(\n    X,\n    test_size=0.2,  # hold out a fifth\n)\n"
        "scores = cross_val_score(make_pipeline(StandardScaler(), LR()), X, y, cv=KFold(5, shuffle=True))\n"
        "if True:\n\tparts = train_test_split(X, y,\n\t\tstratify=y)  # keep classes",
    ])
    fix_paths([path], engine_rules=[], selection=["SEED004"])
    assert src(cells(path)[1]) == (
        "X_tr, X_te = train_test_split(\n    X,\n    test_size=0.2,  # hold out a fifth\n    random_state=SEED,\n)\n"
        "scores = cross_val_score(make_pipeline(StandardScaler(), LR(random_state=SEED)), X, y, "
        "cv=KFold(5, shuffle=True, random_state=SEED))\n"
        "if True:\n\tparts = train_test_split(X, y,\n\t\tstratify=y,\n\t\trandom_state=SEED)  # keep classes")


def test_cli_json_list_and_unreadable_files(nbdir, capsys):
    from jupyter_trainguard.fix import all_fixers, rule_fix_safety

    assert main(["fix", "--list-fixers"]) == 0
    listed = capsys.readouterr().out
    assert all(fx.id in listed for fx in all_fixers())
    assert rule_fix_safety()["SEED004"] == "safe" and rule_fix_safety()["LEAK001"] == "unsafe"
    path = sklearn_nb(nbdir / "j.ipynb")
    assert main(["fix", "--format", "json", "--select", "SEED004", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "fixed" and {c["rule_id"] for c in data["changes"]} == {"SEED004"}
    bad = nbdir / "bad.ipynb"
    bad.write_text('{"cells": [', encoding="utf-8")
    assert main(["fix", str(bad)]) == 2
    assert bad.read_text(encoding="utf-8") == '{"cells": ['
    assert "not valid JSON" in capsys.readouterr().out
