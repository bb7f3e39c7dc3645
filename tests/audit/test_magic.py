"""`%trainaudit` in a real IPython shell: session review, display bundle, panel, paths, --last, --out."""

from __future__ import annotations

import json

from IPython.utils.capture import capture_output

from jupyter_trainguard.display.bundle import AUDIT_MIME
from jupyter_trainguard.report.panel import AuditPanel, sort_findings

from .conftest import LEAKY


def _run_leaky(shell) -> int:
    """Runs the leaky notebook's cells; returns the execution count of its first cell."""
    first = shell.ip.execution_count
    for src in LEAKY:
        shell.run(src)
    return first


def test_session_review_publishes_text_html_and_payload(shell):
    first = _run_leaky(shell)
    with capture_output() as cap:
        shell.run("%trainaudit --no-log")
    bundle = cap.outputs[-1].data
    assert set(bundle) >= {"text/plain", "text/html", AUDIT_MIME}
    payload = bundle[AUDIT_MIME]
    assert payload["schema"] == "trainguard.audit/1" and payload["mode"] == "session"
    assert bundle["text/plain"].startswith("Training pipeline review")
    assert "<div class='trainguard-audit'>" in bundle["text/html"]
    audit = shell.audit
    # session cells are named by their execution count, "[In N]" (their place in a notebook is not known here)
    fit = [ln for ln in audit.part("split").lines if ln.label == "Preprocessing fit"][0]
    assert fit.where == f"[In {first + 2}], line 4" and "before the split" in fit.value
    # live data is hashed: column names and shapes only
    df = audit.provenance["datasets"]["df"]
    assert df["columns"] == ["age", "income", "tenure", "visits", "churn"] and df["shape"] == [400, 5]
    assert {"X_train", "X_test"} <= set(audit.provenance["datasets"])
    assert payload["next_action"] == audit.next_action
    shell.run("%trainaudit --no-log --no-hash --format json")
    assert "datasets" not in shell.audit.provenance


def test_panel_sorts_and_shows_cell_code(shell):
    first = _run_leaky(shell)
    shell.run("%trainaudit --format text --no-log")
    audit = shell.audit
    assert len(audit.findings) >= 2
    panel = AuditPanel(audit)
    titles = [panel.tabs.get_title(i) for i in range(len(panel.tabs.children))]
    assert titles == ["1 Reproducibility", "2 Split & leakage", "3 Temporal", "4 Checkpointing", "5 Tracking",
                      "6 Findings", "7 Next action", "Checked", "Provenance"]
    panel.sort.value = "rule"
    labels = [label for label, _ in panel.list.options]
    assert [lab.split(" ")[1] for lab in labels] == sorted(f.rule_id for f in audit.findings)
    panel.sort.value = "location"
    order = sort_findings(audit.findings, "location")
    # the unseeded default_rng() cell ran as In[first + 1], 0-based cell index `first`
    target = next(i for i, f in enumerate(order) if f.location.cell == first)
    panel.list.value = target
    html = panel.code.value
    assert "default_rng()" in html and "background:#fff3cd" in html and order[target].rule_id in html


def test_review_of_notebook_path_and_out_file(shell, leaky_nb, tmp_path):
    out = tmp_path / "review.md"
    shell.run(f"%trainaudit {leaky_nb} --out {out} --format md")
    text = out.read_text()
    assert text.startswith(f"# Training pipeline review: {leaky_nb}".replace("_", "\\_"))
    assert shell.audit.mode == "path"
    out_json = tmp_path / "review.json"
    shell.run(f"%trainaudit {leaky_nb} --out {out_json}")
    assert json.loads(out_json.read_text())["subject"] == str(leaky_nb)


def test_last_guarded_run(shell, capsys, monkeypatch):
    import jupyter_trainguard.runtime.report as run_report

    monkeypatch.setattr(run_report, "_LAST", None)  # a guarded run from an earlier test must not count
    shell.run("%trainaudit --last")
    assert "no %%guarded_train run in this kernel yet" in capsys.readouterr().out
    shell.run("import numpy as np\nfrom sklearn.model_selection import train_test_split\n"
              "from sklearn.linear_model import LogisticRegression\n"
              "X = np.random.normal(size=(200, 3))\ny = (X[:, 0] > 0).astype(int)")
    shell.run("%%guarded_train\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)\n"
              "m = LogisticRegression().fit(X_tr, y_tr)\nacc = m.score(X_te, y_te)")
    shell.run("%trainaudit --last --format text")
    audit = shell.audit
    from jupyter_trainguard.runtime import last_run

    recorded = [f["rule_id"] for f in last_run().to_dict()["findings"]]
    assert audit.mode == "last-run" and sorted(f.rule_id for f in audit.findings) == sorted(recorded)
    assert "RNG001" in recorded and any(f.source == "runtime" for f in audit.findings)
    # the guarded cell's body was analysed for the descriptive facts
    assert [ln.value for ln in audit.part("split").lines if ln.label == "Split"] == [
        "train_test_split (random shuffle)"]
    assert audit.run["status"] == "ok"


def test_bad_options_fail_the_cell_with_usage(shell, capsys):
    result = shell.run("%trainaudit --bogus", ok=False)
    assert not result.success and type(result.error_in_exec).__name__ == "UsageError"
    assert "unrecognized arguments: --bogus" in str(result.error_in_exec)
    assert "usage: %trainaudit" in str(result.error_in_exec)
    result = shell.run("%trainaudit --rerun 3", ok=False)
    assert type(result.error_in_exec).__name__ == "UsageError" and "--metric" in str(result.error_in_exec)
    shell.run("%trainaudit --help")
    assert "never retrains" in capsys.readouterr().out


def test_last_run_that_failed_says_how(shell, capsys, monkeypatch):
    import jupyter_trainguard.runtime.report as run_report

    monkeypatch.setattr(run_report, "_LAST", None)
    shell.run("import numpy as np")
    failed = shell.run("%%guarded_train\nx = np.ones(3)\ny = 1 / 0", ok=False)
    assert type(failed.error_in_exec).__name__ == "ZeroDivisionError"  # the user's exception, re-raised
    capsys.readouterr()
    shell.run("%trainaudit --last --format text")
    out = capsys.readouterr().out
    assert "FAILED with ZeroDivisionError" in out
    assert shell.audit.run["status"] == "failed" and "ZeroDivisionError" in shell.audit.run["outcome"]


def test_last_run_that_was_interrupted_says_so(shell, capsys, monkeypatch):
    import jupyter_trainguard.runtime.report as run_report

    monkeypatch.setattr(run_report, "_LAST", None)
    shell.run("%%guarded_train\nraise KeyboardInterrupt", ok=False)
    capsys.readouterr()
    shell.run("%trainaudit --last --format text")
    assert "interrupted (KeyboardInterrupt)" in capsys.readouterr().out
