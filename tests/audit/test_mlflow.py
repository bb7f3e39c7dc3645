"""Provenance logged to a real MLflow store (sqlite) from `%trainaudit` in a real shell."""

from __future__ import annotations

import json
import subprocess

import pytest

mlflow = pytest.importorskip("mlflow")


def _git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def test_tags_params_and_artifact_reach_the_active_run(shell, tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "train.py").write_text("print('v1')\n")
    _git(tmp_path, "add", "train.py")
    _git(tmp_path, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "init")
    head = _git(tmp_path, "rev-parse", "HEAD")
    (tmp_path / "train.py").write_text("print('v2')\n")  # uncommitted change: dirty
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    shell.run(f"import mlflow, numpy as np, pandas as pd\nmlflow.set_tracking_uri({uri!r})\n"
              "mlflow.set_experiment('churn')")
    shell.run("df = pd.DataFrame({'age': np.arange(20000), 'visits': np.arange(20000) % 7})\n"
              "run = mlflow.start_run()\nmlflow.log_param('lr', 0.1)")
    run_id = shell.ns["run"].info.run_id
    shell.run("%trainaudit --format text")
    assert shell.audit.provenance["mlflow"]["run_id"] == run_id

    from jupyter_trainguard.report.provenance import hash_dataset

    client = mlflow.MlflowClient(uri)
    data = client.get_run(run_id).data
    first_hash = hash_dataset(shell.ns["df"])["sha256"]
    assert data.tags["trainguard.dataset.df.sha256"] == first_hash
    assert data.tags["trainguard.dataset.df.shape"] == "20000x2"
    assert data.tags["trainguard.dataset.df.columns"] == "age,visits"
    assert data.tags["trainguard.git_commit"] == head == data.tags["mlflow.source.git.commit"]
    assert data.tags["trainguard.git_dirty"] == "true"
    assert "scikit-learn==" in data.tags["trainguard.packages"]
    assert data.params["lr"] == "0.1"
    assert data.params["trainguard.dataset.df.sha256"] == first_hash
    assert data.metrics == {}  # the review never logs or changes a metric
    local = mlflow.artifacts.download_artifacts(run_id=run_id, artifact_path="trainguard/audit.json",
                                                tracking_uri=uri)
    doc = json.loads(open(local).read())
    assert doc["schema"] == "trainguard.audit/1" and doc["provenance"]["datasets"]["df"]["sha256"] == first_hash
    md = mlflow.artifacts.download_artifacts(run_id=run_id, artifact_path="trainguard/audit.md", tracking_uri=uri)
    assert open(md).read().startswith("# Training pipeline review")

    # a change beyond the first 10,000 rows changes the whole-data hash; the param stays (immutable), the tag moves
    shell.run("df.loc[15000, 'visits'] = -1")
    shell.run("%trainaudit --format text")
    data2 = client.get_run(run_id).data
    assert data2.tags["trainguard.dataset.df.sha256"] != first_hash
    assert data2.params["trainguard.dataset.df.sha256"] == first_hash
    assert shell.audit.provenance["mlflow"]["params_kept"] == ["trainguard.dataset.df.sha256"]
    shell.run("mlflow.end_run()")

    # no active run: nothing is logged; --no-log: an active run is left alone
    shell.run("%trainaudit --format text")
    assert "mlflow" not in shell.audit.provenance
    shell.run("run2 = mlflow.start_run()")
    shell.run("%trainaudit --format text --no-log")
    tags = client.get_run(shell.ns["run2"].info.run_id).data.tags
    assert not any(k.startswith("trainguard.") for k in tags)
    shell.run("mlflow.end_run()")
