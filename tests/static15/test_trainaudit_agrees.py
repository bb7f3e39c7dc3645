"""Issue 15, one engine one answer: `%trainaudit` in a real IPython shell, `trainguard scan` and `trainguard audit`
(real CLI subprocesses) agree on ENV001 for the same notebook in the same folder, with and without a lockfile; a
DATA003 that the guarded run raised is a finding of the session review, not "skipped"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ipshell import loaded_shell

from .nbmake import write_nb

CELLS = [
    "import numpy as np, pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.linear_model import LogisticRegression\nfrom sklearn.preprocessing import StandardScaler",
    "rng = np.random.default_rng(1)\n"
    'X = pd.DataFrame(rng.normal(size=(400, 4)), columns=["f0", "f1", "f2", "f3"])\n'
    'y = pd.Series((X.f0 + X.f1 > 0).astype(int), name="label")',
    "scaler = StandardScaler().fit(X)\n"
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=0)",
    "%%guarded_train\nclf = LogisticRegression().fit(scaler.transform(X_train), y_train)\n"
    "score = clf.score(scaler.transform(X_test), y_test)",
]


def _kernel_review(folder: Path, monkeypatch) -> tuple[dict, list[str]]:
    monkeypatch.chdir(folder)  # Jupyter starts the kernel in the notebook's folder
    with loaded_shell() as sh:
        for cell in CELLS:
            sh.run(cell)
        guarded = [f.rule_id for f in sh.ns["_trainguard_last"].findings]
        sh.run("%trainaudit --format json --out review.json --no-log --no-hash")
    return json.loads((folder / "review.json").read_text()), guarded


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jupyter_trainguard", *args], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def _cli_rules(folder: Path) -> tuple[set[str], dict]:
    nb = folder / "train.ipynb"
    scan = _cli("scan", str(nb), "--format", "json", "--fail-on", "never", cwd=folder)
    found = {f["rule_id"] for r in json.loads(scan.stdout)["reports"] for f in r["findings"]}
    audit = _cli("audit", str(nb), "--format", "json", "--out", str(folder / "cli.json"), cwd=folder)
    assert audit.returncode == 0, audit.stderr
    return found, json.loads((folder / "cli.json").read_text())


def _environment(review: dict) -> str:
    part = next(p for p in review["parts"] if p["key"] == "reproducibility")
    return next(ln["value"] for ln in part["lines"] if ln["label"] == "Environment")


@pytest.mark.parametrize("pinned", [False, True], ids=["no-lockfile", "lockfile"])
def test_env001_same_answer_in_kernel_scan_and_audit(tmp_path, monkeypatch, pinned):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / ".git").mkdir()  # the project root: the lookup stops here on both sides
    if pinned:
        (folder / "requirements.txt").write_text("scikit-learn==1.5.2\npandas==2.2.3\n")
    write_nb(folder / "train.ipynb", CELLS)
    review, _ = _kernel_review(folder, monkeypatch)
    scan_rules, cli_review = _cli_rules(folder)
    kernel_env = "ENV001" in {f["rule_id"] for f in review["findings"]}
    assert kernel_env == ("ENV001" in scan_rules) == ("ENV001" in {f["rule_id"] for f in cli_review["findings"]})
    assert kernel_env is (not pinned)
    assert ("ENV001" in review["groups"]["passed"]) is pinned
    assert _environment(review) == _environment(cli_review)
    assert ("requirements.txt" in _environment(review)) is pinned


def test_runtime_finding_of_the_guarded_run_is_a_review_finding(tmp_path, monkeypatch):
    (tmp_path / "requirements.txt").write_text("scikit-learn==1.5.2\n")
    review, guarded = _kernel_review(tmp_path, monkeypatch)
    assert "DATA003" in guarded  # the run panel showed it
    findings = {f["rule_id"]: f for f in review["findings"]}
    assert "DATA003" in findings and findings["DATA003"]["source"] == "runtime"
    assert "DATA003" not in review["groups"]["skipped"]
    split = next(p for p in review["parts"] if p["key"] == "split")
    assert split["status"] == "issues"
    assert any("from the last %%guarded_train run" in n for n in review["notes"])


def test_env001_in_the_kernel_names_the_notebook_it_was_told(tmp_path, monkeypatch):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / ".git").mkdir()
    write_nb(folder / "train.ipynb", CELLS)
    monkeypatch.setenv("JPY_SESSION_NAME", str(folder / "train.ipynb"))  # what ipykernel is told by the server
    review, _ = _kernel_review(folder, monkeypatch)
    env = next(f for f in review["findings"] if f["rule_id"] == "ENV001")
    assert "next to `train.ipynb`" in env["message"] and "this notebook" not in env["message"]
