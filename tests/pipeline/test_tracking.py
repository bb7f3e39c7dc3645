"""A smoke run that leaves an MLflow run open (real MLflow, sqlite store) is reported, and the run is closed."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_trainguard.pipeline import check_pipeline

LEAKY = """\
import mlflow

def train(steps: int, tracking_uri: str) -> dict:
    mlflow.set_tracking_uri(tracking_uri)
    mlflow.start_run(run_name="leaky")
    mlflow.log_param("steps", steps)
    if steps > 1:
        raise RuntimeError("loss diverged")
    mlflow.end_run()
    return {"status": "ok"}
"""


@pytest.mark.slow
def test_smoke_run_leaving_an_mlflow_run_open(components, tmp_path):
    mlflow = pytest.importorskip("mlflow")
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    config = components({"loop.py": LEAKY}, f"""\
        [tool.trainguard.pipeline]
        timeout_s = 120
        [tool.trainguard.pipeline.smoke]
        entry = "loop.train"
        kwargs = {{ steps = 2, tracking_uri = "{uri}" }}
        """)
    result = check_pipeline(config, smoke=True)
    by_rule = {f.rule_id: f for f in result.findings}
    assert set(by_rule) == {"PHEALTH006", "PHEALTH013"}
    assert "RuntimeError: loss diverged" in by_rule["PHEALTH006"].message
    assert by_rule["PHEALTH006"].location.line == 8 and Path(by_rule["PHEALTH006"].location.path).name == "loop.py"
    runtime, static = sorted((f for f in result.findings if f.rule_id == "PHEALTH013"), key=lambda f: f.source)
    assert runtime.source == "runtime" and "left a tracking run open (mlflow run" in runtime.message
    assert static.source == "static" and static.location.line == 5
    # the probe closed the leaked run as FAILED, so the store does not keep it RUNNING forever
    client = mlflow.tracking.MlflowClient(tracking_uri=uri)
    (run,) = client.search_runs(experiment_ids=["0"])
    assert run.info.status == "FAILED" and run.data.params == {"steps": "2"}
