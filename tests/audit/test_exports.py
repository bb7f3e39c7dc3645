"""Markdown, JSON, HTML and text exports of the review; user-controlled text is escaped everywhere."""

from __future__ import annotations

import json

from jupyter_trainguard.findings import Finding, Location, Report, Severity
from jupyter_trainguard.report.build import build_audit
from jupyter_trainguard.report.render import render_html, render_json, render_markdown, render_text
from jupyter_trainguard.report.review import audit_paths
from jupyter_trainguard.report.signals import Signals

EVIL = "<img src=x onerror=alert(1)>|`**x**`"


def _evil_audit():
    f = Finding(rule_id="LEAK001", severity=Severity.ERROR, category="leakage.preprocessing",
                message=f"scaler fitted on column {EVIL}", location=Location("nb<script>.ipynb", cell=0, line=1),
                impact="optimistic", fix=f"split first {EVIL}")
    rep = Report(path="nb<script>.ipynb", findings=[f], rules_run=["LEAK001"])
    sig = Signals()
    sig.cells["nb<script>.ipynb#0"] = f"df['{EVIL}'] = 1\n```\nprint('fence')"
    return build_audit([rep], sig, subject="nb<script>.ipynb", mode="path",
                       provenance={"datasets": {"df": {"type": "DataFrame", "shape": [2, 1], "columns": [EVIL],
                                                       "sha256": "ab" * 32}}})


def test_html_escapes_user_text():
    html = render_html(_evil_audit())
    assert "<img" not in html and "<script>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "nb&lt;script&gt;.ipynb" in html


def test_markdown_escapes_user_text_and_fences_code():
    md = render_markdown(_evil_audit())
    table_rows = [ln for ln in md.splitlines() if ln.startswith("| cell 1")]
    assert len(table_rows) == 1
    row = table_rows[0]
    assert "<img" not in row and "&lt;img" in row and "\\|" in row  # pipes cannot break the table
    assert row.count(" | ") == 4
    # code containing ``` is wrapped in a longer fence
    assert "````python\ndf['" in md and "\n````" in md
    assert "<script>" not in md.replace("````python", "")


def test_json_export_has_every_part_and_group(leaky_nb):
    audit, _ = audit_paths([str(leaky_nb)])
    doc = json.loads(render_json(audit))
    assert doc["schema"] == "trainguard.audit/1"
    assert [p["key"] for p in doc["parts"]] == ["reproducibility", "split", "temporal", "checkpointing", "tracking",
                                                "findings", "next"]
    assert set(doc["groups"]) == {"issues", "passed", "not_applicable", "skipped", "ignored"}
    assert doc["groups"]["issues"] == [f["rule_id"] for f in doc["findings"]]
    assert doc["next_action"]["rule_id"] == doc["findings"][0]["rule_id"]
    assert doc["counts"]["warning"] + doc["counts"]["error"] == len([f for f in doc["findings"]
                                                                      if f["severity"] != "info"])
    # the cell a finding points at travels with the export (for the panel and offline readers)
    first = doc["findings"][0]["location"]
    assert doc["cells"][f"{first['path']}#{first['cell']}"].startswith(("X = df", "rng =", "X_train"))


def test_markdown_and_text_have_the_parts_in_order(leaky_nb):
    audit, _ = audit_paths([str(leaky_nb)])
    md = render_markdown(audit)
    heads = [ln for ln in md.splitlines() if ln.startswith("## ")]
    assert heads[:7] == ["## 1. Reproducibility verdict", "## 2. Split & leakage audit", "## 3. Temporal correctness",
                         "## 4. Checkpointing", "## 5. Experiment tracking", "## 6. Findings",
                         "## 7. Next safe action"]
    assert "## What was checked" in heads
    assert "| location | rule | issue | impact on metric honesty | fix |" in md
    text = render_text(audit)
    assert text.index("1. Reproducibility") < text.index("6. Findings") < text.index("7. Next safe action")
    assert "not applicable (" in text and "skipped (" in text and "ignored (" in text
