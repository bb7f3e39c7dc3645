"""`trainguard audit` produces the same review as the magic; the demo notebook runs under nbclient."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from jupyter_trainguard.cli import main
from jupyter_trainguard.display.bundle import AUDIT_MIME
from jupyter_trainguard.report.render import render_markdown
from jupyter_trainguard.report.review import audit_paths

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo_notebooks" / "audit_leaky_pipeline.ipynb"


def test_cli_audit_formats_and_exit_codes(leaky_nb, tmp_path, capsys):
    assert main(["audit", str(leaky_nb), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mode"] == "path" and doc["next_action"]["rule_id"] == "LEAK001"
    out = tmp_path / "r.md"
    assert main(["audit", str(leaky_nb), "--out", str(out), "--fail-on", "error"]) == 1
    expected, _ = audit_paths([str(leaky_nb)])
    assert out.read_text() == render_markdown(expected)
    assert main(["audit", str(tmp_path / "nope.ipynb")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_and_magic_agree(shell, leaky_nb, capsys):
    assert main(["audit", str(leaky_nb), "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    shell.run(f"%trainaudit {leaky_nb} --format json")
    magic = json.loads(capsys.readouterr().out)
    for key in ("parts", "findings", "groups", "next_action"):
        assert cli[key] == magic[key]


def test_docs_example_is_the_cli_review_of_the_demo():
    doc = (ROOT / "docs" / "audit_example.md").read_text()
    assert doc.startswith("# Training pipeline review: demo\\_notebooks/audit\\_leaky\\_pipeline.ipynb")
    for head in ("## 1. Reproducibility verdict", "## 6. Findings", "## 7. Next safe action", "## What was checked"):
        assert head in doc
    audit, _ = audit_paths([str(DEMO)])
    for f in audit.findings:
        assert f"| {f.rule_id} ({f.severity.value}) |" in doc


@pytest.mark.slow
def test_demo_notebook_executes_and_shows_the_review(tmp_path):
    from nbclient import NotebookClient

    nb = nbformat.read(str(DEMO), as_version=4)
    NotebookClient(nb, timeout=240, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    payloads = [o["data"][AUDIT_MIME] for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                if AUDIT_MIME in o.get("data", {})]
    assert len(payloads) == 1
    first = payloads[0]
    assert first["next_action"]["rule_id"] == "LEAK001"
    assert first["rerun"]["matched"] is False and first["rerun"]["seeds_itself"] is False
    assert "text/html" in next(o["data"] for c in nb.cells for o in c.get("outputs", [])
                               if AUDIT_MIME in o.get("data", {}))
    text = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []) if o.get("name") == "stdout")
    assert "acc_fixed = " in text and "): reproduces; the cell seeds itself" in text
