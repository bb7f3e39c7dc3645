"""Property test: on notebooks assembled from realistic snippets, `fix --unsafe` never fails, never touches
outputs or markdown, keeps the notebook valid, and a second run finds nothing left to do."""

from __future__ import annotations

import json

import nbformat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jupyter_trainguard.fix import fix_paths

IMPORTS = ("import numpy as np\nimport random\nimport torch\nimport mlflow\n"
           "from sklearn.model_selection import train_test_split, KFold, cross_val_score\n"
           "from sklearn.preprocessing import StandardScaler\nfrom sklearn.ensemble import RandomForestClassifier")
SNIPPETS = [
    "X = np.random.rand(20, 2)\ny = (X[:, 0] > 0.5).astype(int)",
    "X_s = StandardScaler().fit_transform(X)",
    "a, b, c, d = train_test_split(X_s, y, test_size=0.25)",
    "a, b, c, d = train_test_split(\n    X,\n    y,  # labels\n)",
    "clf = RandomForestClassifier(n_estimators=3)\nclf.fit(a, c)",
    "%matplotlib inline\nv = random.random()",
    "%%time\ncv = KFold(3, shuffle=True)\nprint(cross_val_score(RandomForestClassifier(), X_s, y, cv=cv))",
    "%%bash\necho train_test_split",
    "run = mlflow.start_run()\nmlflow.log_metric('m', 1.0)\nmlflow.end_run()",
    "net = torch.nn.Linear(2, 1)\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
    "for epoch in range(2):\n    torch.save(net.state_dict(), 'w.pt')",
    "net.load_state_dict(torch.load('w.pt'))",
    "rng = np.random.default_rng()",
    "def broken(:\n    pass",
    "if True:\n\tz = train_test_split(X, shuffle=False)  # trainguard: ignore",
    "s = '''\ntrain_test_split(X)\n'''",
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=7), st.booleans(), st.integers(4, 5))
def test_fix_is_safe_valid_and_idempotent(tmp_path_factory, snippets, seed_const, minor):
    nb = new_notebook()
    nb.nbformat_minor = minor
    nb.cells = [new_markdown_cell("# notes"), new_code_cell(IMPORTS + ("\nSEED = 1" if seed_const else ""))]
    for i, s in enumerate(snippets):
        cell = new_code_cell(s, execution_count=i + 1)
        cell.outputs = [new_output("stream", name="stdout", text=f"out {i}\n")]
        nb.cells.append(cell)
    if minor < 5:
        for c in nb.cells:
            c.pop("id", None)
    path = tmp_path_factory.mktemp("p") / "nb.ipynb"
    nbformat.write(nb, str(path))
    before = json.loads(path.read_text(encoding="utf-8"))
    rep = fix_paths([path], unsafe=True, engine_rules=[])
    assert not rep.errors
    assert not [x for x in rep.left if "internal error" in x.reason]
    after = json.loads(path.read_text(encoding="utf-8"))
    nbformat.validate(nbformat.reads(path.read_text(encoding="utf-8"), as_version=4))
    old_cells = iter(before["cells"])
    kept = []
    for c in after["cells"]:
        if c["cell_type"] == "code" and c["execution_count"] is None and not c["outputs"] and \
                "".join(c["source"]).startswith("# Seed every random"):
            continue  # the inserted seeding cell
        kept.append(c)
    assert len(kept) == len(before["cells"])
    for old, new in zip(old_cells, kept):
        assert {k: v for k, v in old.items() if k != "source"} == {k: v for k, v in new.items() if k != "source"}
        if old["cell_type"] != "code":
            assert old == new
    again = fix_paths([path], unsafe=True, engine_rules=[])
    assert again.changes == [] and again.status == "no_work"
