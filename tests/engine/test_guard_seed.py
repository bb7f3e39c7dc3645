"""A `%%guarded_train --seed N` cell seeds Python random, NumPy and torch: the static seeding rules agree."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_path

from .conftest import write_notebook

SETUP = ("import torch\nfrom torch import nn\nX = torch.randn(64, 4)\ny = (X[:, 0] > 0).long()\n"
         "model = nn.Linear(4, 2)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)")
LOOP = ("for epoch in range(3):\n    opt.zero_grad()\n    loss = nn.functional.cross_entropy(model(X), y)\n"
        "    loss.backward()\n    opt.step()")


def _seed_ids(path) -> set[str]:
    return {f.rule_id for f in analyze_path(path).findings if f.rule_id.startswith("SEED")}


def test_guard_seed_counts_as_seeding(tmp_path):
    seeded = write_notebook(tmp_path / "seeded.ipynb", [SETUP, "%%guarded_train --seed 0\n" + LOOP])
    unseeded = write_notebook(tmp_path / "unseeded.ipynb", [SETUP, "%%guarded_train\n" + LOOP])
    assert "SEED003" not in _seed_ids(seeded)
    assert "SEED003" in _seed_ids(unseeded)


def test_review_counts_the_guard_seed(tmp_path):
    from jupyter_trainguard.report.review import audit_paths

    seeded = write_notebook(tmp_path / "seeded.ipynb", [SETUP, "%%guarded_train --seed 0\n" + LOOP])
    audit, errors = audit_paths([str(seeded)])
    assert not errors
    text = "\n".join(f"{ln.label}: {ln.value}" for part in audit.parts for ln in part.lines)
    assert "NOT seeded" not in text and "--seed 0" in text
    assert "SEED003" not in {f.rule_id for f in audit.findings}
