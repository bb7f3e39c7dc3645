"""The Lab panel names cells as the notebook shows them: a notebook whose guarded cell really ran in a kernel
(markdown cells before it), opened in JupyterLab; the panel's "cell N [In k]" matches the cell's `[k]` prompt."""

from __future__ import annotations

import re

import pytest
from test_lab_panel import ACTIVE_CELL_INDEX, finding, open_document, open_panel

from tests.numbering.kernel import run_like_lab
from tests.numbering.test_kernel_cells import guarded_notebook

pytestmark = pytest.mark.browser

# the notebook attaches its cells progressively after it opens: wait until cell i and its prompt are rendered
PROMPT = """(i) => {
  const nb = [...document.querySelectorAll('.jp-NotebookPanel')].find(p => !p.classList.contains('lm-mod-hidden'));
  const cell = nb && nb.querySelectorAll('.jp-Notebook .jp-Cell')[i];
  const prompt = cell && cell.querySelector('.jp-InputPrompt');
  return prompt && prompt.textContent.trim() ? prompt.textContent.trim() : null;
}"""


def prompt_of(page, index: int) -> str:
    """The `[k]:` prompt JupyterLab shows for cell `index` (0-based), once the cell is rendered."""
    return page.wait_for_function(PROMPT, arg=index, timeout=30_000).json_value()


def test_panel_cell_labels_match_the_prompts(page, lab, artifacts):
    from playwright.sync_api import expect

    pytest.importorskip("nbclient")
    pytest.importorskip("sklearn")
    run_like_lab(guarded_notebook(lab.root / "guarded.ipynb"))
    open_document(page, lab, "guarded.ipynb")
    panel = open_panel(page, "guarded.ipynb")
    report = lab.api("trainguard/findings?path=guarded.ipynb")
    (static_leak,) = [f for f in report["findings"] if f["rule_id"] == "LEAK001"]
    assert (static_leak["location"]["cell_index"], static_leak["location"]["execution_count"]) == (3, 2)
    # the runtime finding saved by the guarded cell (cell 7, prompt [4]) and the leak (cell 4, prompt [2])
    runtime = panel.locator(".jp-TrainGuard-finding:has(.jp-TrainGuard-tag)")
    expect(runtime.first).to_be_visible(timeout=30_000)
    for i in range(runtime.count()):
        item = runtime.nth(i)
        label = item.locator(".jp-TrainGuard-place").text_content()
        m = re.match(r"cell (\d+) \[In (\d+)\]", label)
        assert m, label
        index = int(m.group(1)) - 1
        assert item.get_attribute("data-cell") == str(index)
        assert prompt_of(page, index) == f"[{m.group(2)}]:"
    leaks = finding(panel, "LEAK001")
    expect(leaks.first).to_be_visible()
    line = static_leak["location"]["line"]
    for i in range(leaks.count()):
        expect(leaks.nth(i).locator(".jp-TrainGuard-place")).to_have_text(f"cell 4 [In 2], line {line}")
        expect(leaks.nth(i)).to_have_attribute("data-cell", "3")
    assert prompt_of(page, 3) == "[2]:"
    # inline code in messages renders as <code>, the rest as text
    codes = leaks.first.locator(".jp-TrainGuard-message code")
    assert codes.count() >= 2 and "scaler.fit_transform(X)" in codes.all_text_contents()
    assert "`" not in leaks.first.locator(".jp-TrainGuard-message").text_content()
    data003 = runtime.filter(has=page.locator(".jp-TrainGuard-place", has_text="cell 7 [In 4]")).first
    data003.click()
    page.wait_for_function(f"() => ({ACTIVE_CELL_INDEX})() === 6")
    page.screenshot(path=str(artifacts / "lab_panel_cell_numbering.png"))
    assert not page.js_errors
