"""The Lab panel shows what a leak did to the score: a notebook with a target-encoding leak really run in a kernel
(two guarded runs: one measured, one with no time budget), opened in JupyterLab; under each finding that carries
`evidence.impact` the panel shows the measured summary, or "not measured: <reason>"."""

from __future__ import annotations

import re

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from test_lab_panel import finding, open_document, open_panel, without_backticks

from tests.numbering.kernel import run_like_lab

pytestmark = pytest.mark.browser

KERNELSPEC = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
RUN_MIME = "application/vnd.trainguard.run+json"

SETUP = """%load_ext trainguard
import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split"""
DATA = """rng = np.random.default_rng(3)
n = 1200
orders = pd.DataFrame({
    "store": rng.integers(0, 400, n),
    "basket": rng.gamma(2.0, 20.0, n).round(2),
    "visits": rng.poisson(4, n),
})
orders["returned"] = (rng.random(n) < 0.15 + 0.004 * orders["basket"].clip(upper=100)).astype(int)"""
# the leak: each store's return rate is computed from every row's label, test rows included
ENCODE = """orders["store_return_rate"] = orders.groupby("store")["returned"].transform("mean")
X = orders[["basket", "visits", "store_return_rate"]]
X_train, X_test, y_train, y_test = train_test_split(X, orders["returned"], test_size=0.3, random_state=0)"""
TRAIN = """model = LogisticRegression(max_iter=1000)
model.fit(X_train, y_train)
acc = model.score(X_test, y_test)"""
MEASURED = re.compile(r"reported accuracy (0\.\d{3}); refitted without the leak (0\.\d{3}) \(−\d+(\.\d+)? points\)")


def impact_notebook(path):
    cells = [
        new_markdown_cell("# Returns model"),
        new_code_cell(SETUP),
        new_code_cell(DATA),
        new_code_cell(ENCODE),
        new_markdown_cell("## Train"),
        new_code_cell("%%guarded_train\n" + TRAIN),
        new_code_cell("%%guarded_train --impact-budget 0\n" + TRAIN),
    ]
    for i, cell in enumerate(cells):
        cell.id = f"id-{i}"
    nbformat.write(new_notebook(cells=cells, metadata=KERNELSPEC), path)
    return path


def impacts(cell) -> list[tuple[str, dict]]:
    """(rule id, evidence.impact) of every finding in the guarded cell's saved run payload."""
    (payload,) = [o["data"][RUN_MIME] for o in cell.outputs if RUN_MIME in o.get("data", {})]
    return [(f["rule_id"], f["evidence"]["impact"]) for f in payload["findings"] if "impact" in f.get("evidence", {})]


def test_panel_shows_the_measured_impact_of_a_leak(page, lab, artifacts):
    from playwright.sync_api import expect

    pytest.importorskip("nbclient")
    pytest.importorskip("sklearn")
    nb = run_like_lab(impact_notebook(lab.root / "impact.ipynb"), timeout=180)
    measured, budgetless = impacts(nb.cells[5]), impacts(nb.cells[6])
    leak = dict(measured)["LEAK006"]  # the kernel measured it: a clear inflation
    assert leak["status"] == "measured" and leak["verdict"] == "inflated", leak
    m = MEASURED.fullmatch(leak["summary"])
    assert m and float(m.group(1)) - float(m.group(2)) > 0.05, leak["summary"]
    unmeasured = dict(budgetless)["LEAK006"]
    assert unmeasured["status"] == "not measured" and unmeasured["reason"].startswith("over the time budget")
    lines = [
        r["summary"] if r["status"] == "measured" else f"not measured: {r['reason']}" for _, r in measured + budgetless
    ]

    open_document(page, lab, "impact.ipynb")
    panel = open_panel(page, "impact.ipynb")
    shown = panel.locator(".jp-TrainGuard-measured")
    expect(shown).to_have_count(len(lines), timeout=30_000)  # one line per finding with a record, nowhere else
    label = "Effect on the score: "
    assert sorted(shown.all_text_contents()) == sorted(label + without_backticks(line) for line in lines)
    # under the leak's own finding, coloured by its verdict
    leaks = finding(panel, "LEAK006")
    inflated = leaks.locator('.jp-TrainGuard-measured[data-status="measured"]')
    expect(inflated).to_have_count(1)
    expect(inflated).to_have_text(label + leak["summary"])
    expect(inflated).to_have_attribute("data-verdict", "inflated")
    expect(inflated).to_have_class(re.compile(r"\bjp-mod-measured\b"))
    not_measured = leaks.locator('.jp-TrainGuard-measured[data-status="not measured"]')
    expect(not_measured).to_have_count(1)
    expect(not_measured).to_have_text(label + "not measured: " + without_backticks(unmeasured["reason"]))
    # text nodes only: the label span, then plain text (no markup made from the record)
    assert inflated.evaluate("n => [...n.children].map(c => c.tagName).join()") == "SPAN"
    # the static finding from the server (no record) has no such line
    static = leaks.filter(has_not=page.locator(".jp-TrainGuard-tag"))
    expect(static.first).to_be_visible()
    assert static.locator(".jp-TrainGuard-measured").count() == 0
    inflated.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "lab_panel_impact.png"))
    assert not page.js_errors
