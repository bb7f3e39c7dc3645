"""Data values never leave the session: a sentinel planted in a leaky dataset must not appear in anything
trainguard shows, stores or logs (panels, `_trainguard_last`, failure reports, exports, MLflow tags/params/
artifacts), even though every runtime data check (DATA001-DATA006) fires on that very data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from IPython.utils.capture import capture_output

from ..guard import conftest as guard_conftest

shell = guard_conftest.shell  # the real-InteractiveShell fixture of tests/guard

TEXT_SENTINEL = "SENTINEL_7f3a9"
NUM_SENTINEL = 987654.321
NEEDLES = (TEXT_SENTINEL, "7f3a9", "987654", "9.87654", "987,654")

SETUP = f"""
import numpy as np, pandas as pd, mlflow
from sklearn.preprocessing import StandardScaler
n = 120
i = np.arange(n)
df = pd.DataFrame({{
    "id": i % 40,                                                  # group key shared by the splits (DATA002)
    "when": pd.date_range("2024-01-01", periods=n, freq="D"),      # time order (DATA005)
    "city": pd.Categorical(np.where(i % 7 == 0, "{TEXT_SENTINEL}", "lyon")),
    "amount": np.linspace(1.0, 50.0, n),
}})
df.loc[7, "amount"] = {NUM_SENTINEL!r}
df["label"] = (i % 3 == 0).astype(int)
df["leaky"] = df["label"] * 2 + 1                                  # predicts the label (DATA006)
train = df.sample(frac=0.7, random_state=0)                        # random split of dated rows (DATA005)
test = df.iloc[:40]                                                # shares rows with train (DATA001)
X_train, y_train = train.drop(columns="label"), train["label"]
X_test, y_test = test.drop(columns="label"), test["label"]
num_train, num_test = X_train[["amount", "leaky"]], X_test[["amount", "leaky"]]
scaler = StandardScaler().fit(df[["amount", "leaky"]])             # fitted on every row (DATA003)

class EarlyStopper:
    def fit(self, X, y, eval_set=None):
        self.seen_ = float(eval_set[0][0]["amount"].max())
        return self
"""
CELL = """%%guarded_train --group-key id --seed 0 --sample-interval 0.01{opts}
model = EarlyStopper().fit(X_train, y_train, eval_set=[(X_test, y_test)])   # DATA004
scaled = scaler.transform(X_train[["amount", "leaky"]])
{tail}
"""
EXPECTED = {"DATA001", "DATA002", "DATA003", "DATA004", "DATA005", "DATA006"}


def assert_clean(where: str, text: str) -> None:
    for needle in NEEDLES:
        assert needle not in text, f"data value {needle!r} leaked into {where}: ...{_around(text, needle)}..."


def _around(text: str, needle: str) -> str:
    k = text.find(needle)
    return text[max(0, k - 120): k + 60]


def bundle_text(cap) -> str:
    """Every mime bundle displayed plus stdout/stderr, as one string."""
    parts = [json.dumps({"data": o.data, "metadata": o.metadata}, default=str) for o in cap.outputs]
    return "\n".join(parts + [cap.stdout, cap.stderr])


def widget_text(widget) -> str:
    """The `value`s and titles of a widget tree (what a live panel would render)."""
    out, stack = [], [widget]
    while stack:
        w = stack.pop()
        for attr in ("value", "description", "options"):
            if hasattr(w, attr):
                out.append(str(getattr(w, attr)))
        if hasattr(w, "get_title"):
            out += [str(w.get_title(k)) for k in range(len(getattr(w, "children", ())))]
        stack.extend(getattr(w, "children", ()) or ())
    return "\n".join(out)


def tree_text(root: Path) -> str:
    return "\n".join(f"{p}\n{p.read_text(errors='replace')}" for p in sorted(root.rglob("*")) if p.is_file())


@pytest.fixture
def leaky(shell, tmp_path):
    mlflow = pytest.importorskip("mlflow")
    pytest.importorskip("sklearn")
    uri = f"sqlite:///{tmp_path}/mlflow.db"
    mlflow.set_tracking_uri(uri)
    mlflow.set_experiment("sensitive")
    shell.run(SETUP)
    assert (shell.ns["df"]["city"] == TEXT_SENTINEL).any() and (shell.ns["df"]["amount"] == NUM_SENTINEL).any()
    yield shell, mlflow, uri
    while mlflow.active_run() is not None:
        mlflow.end_run()


def test_guarded_run_and_failure_report_hold_no_data_values(leaky, tmp_path):
    from jupyter_trainguard.display.run_panel import build_widget

    shell, _, _ = leaky
    with capture_output() as cap:
        shell.run(CELL.format(opts="", tail="done = True"))
    assert EXPECTED <= set(shell.ids()), (shell.ids(), shell.last.notes)
    assert_clean("the run panel bundle", bundle_text(cap))
    assert_clean("_trainguard_last.to_dict()", json.dumps(shell.last.to_dict(), default=str))
    assert_clean("the run panel widgets", widget_text(build_widget(shell.last.to_dict())))

    # failing variants: a neutral error, and one whose message quotes a data value (as pandas/sklearn errors do)
    for tail, exc_type in (("raise RuntimeError('loss diverged')", RuntimeError),
                           ("float(X_train.loc[X_train['city'] != 'lyon', 'city'].iloc[0])", ValueError)):
        with capture_output() as cap:
            result = shell.run(CELL.format(opts=" --report-dir reports", tail=tail), ok=False)
        assert type(result.error_in_exec) is exc_type and shell.last.status == "failed"
        assert EXPECTED <= set(shell.ids())
        displayed = [json.dumps(o.data, default=str) for o in cap.outputs]  # the guard's own panel only
        assert_clean("the failed run's panel", "\n".join(displayed))
        assert_clean("_trainguard_last.to_dict() of a failed run", json.dumps(shell.last.to_dict(), default=str))
        assert Path(shell.last.report_path).is_file()
    assert_clean("the failure reports", tree_text(tmp_path / "reports"))


def test_audit_exports_and_mlflow_hold_no_data_values(leaky, tmp_path):
    from jupyter_trainguard.report.panel import make_panel

    shell, mlflow, uri = leaky
    shell.run(CELL.format(opts="", tail="done = True"), ok=True)
    shell.run("run = mlflow.start_run()\nmlflow.log_param('lr', 0.1)")
    with capture_output() as cap:
        shell.run("%trainaudit")
    audit = shell.ip.magics_manager.registry["TrainAuditMagics"].last_audit
    assert audit is not None and audit.provenance.get("mlflow"), audit.notes
    assert {"X_train", "X_test", "df"} <= set(audit.provenance.get("datasets") or {})
    assert_clean("the %trainaudit panel bundle", bundle_text(cap))
    assert_clean("the %trainaudit widgets", widget_text(make_panel(audit)))
    assert_clean("audit.to_dict()", json.dumps(audit.to_dict(), default=str))
    (tmp_path / "exports").mkdir()
    with capture_output() as cap:
        shell.run("%trainaudit --last")
        for ext in ("md", "json", "html"):
            shell.run(f"%trainaudit --out exports/live.{ext}")
            shell.run(f"%trainaudit --last --out exports/last.{ext}")
        shell.run("%trainaudit --last --format text")
    assert_clean("the %trainaudit --last / export output", bundle_text(cap))
    exported = tree_text(tmp_path / "exports")
    assert exported.count("exports/") == 6 and "DATA004" in exported
    assert_clean("the exported reviews", exported)

    run_id = shell.ns["run"].info.run_id
    shell.run("mlflow.end_run()")
    data = mlflow.MlflowClient(uri).get_run(run_id).data
    assert any(k.startswith("trainguard.dataset.") for k in data.tags), sorted(data.tags)
    assert_clean("MLflow tags", json.dumps(data.tags))
    assert_clean("MLflow params", json.dumps(data.params))
    local = Path(mlflow.artifacts.download_artifacts(run_id=run_id, dst_path=str(tmp_path / "artifacts")))
    artifacts = tree_text(local)
    assert "audit.json" in artifacts and "audit.md" in artifacts
    assert_clean("MLflow artifacts", artifacts)
