"""The JupyterLab side panel in a real browser: findings of the open notebook, click to the cell, inert text."""

from __future__ import annotations

import re
import shutil

import pytest

pytestmark = pytest.mark.browser

TAB = '.jp-SideBar.jp-mod-right .lm-TabBar-tab[data-id="trainguard-panel"]'
PANEL = "#trainguard-panel"
ACTIVE_CELL_INDEX = """() => {
  const nb = [...document.querySelectorAll('.jp-NotebookPanel')].find(p => !p.classList.contains('lm-mod-hidden'));
  return [...nb.querySelectorAll('.jp-Notebook .jp-Cell')].findIndex(c => c.classList.contains('jp-mod-active'));
}"""


def open_document(page, lab, name: str) -> None:
    # a fresh workspace per test (`reset`), so documents opened by earlier tests are not restored
    page.goto(f"{lab.url}/lab/tree/{name}?reset&token={lab.token}")
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=60_000)


def open_panel(page, name: str):
    from playwright.sync_api import expect

    tab = page.locator(TAB)
    expect(tab).to_be_visible(timeout=30_000)
    if "lm-mod-current" not in (tab.get_attribute("class") or ""):
        tab.click()
    expect(page.locator(PANEL)).to_be_visible()
    expect(page.locator(f"{PANEL} .jp-TrainGuardPanel-path")).to_have_text(name, timeout=30_000)
    return page.locator(PANEL)


def without_backticks(message: str) -> str:
    """The message as the panel shows it: Markdown code spans become <code>, their backticks gone."""
    return re.sub(r"`([^`\n]+)`", r"\1", message)


def finding(panel, rule: str):
    return panel.locator(f'.jp-TrainGuard-finding[data-rule="{rule}"]')


def test_panel_lists_findings_and_jumps_to_cell(page, lab, artifacts):
    from playwright.sync_api import expect

    open_document(page, lab, "demo.ipynb")
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=30_000)
    # open the panel through the command palette entry
    palette = page.locator(".lm-CommandPalette-input")
    page.evaluate("() => window.jupyterapp.restored")
    for attempt in range(12):  # the shortcut needs the app to have focus; retry while a kernel starts
        dialog = page.locator(".jp-Dialog")
        if dialog.count():  # e.g. kernel selection on a slow start: it would swallow the shortcut
            accept = page.locator(".jp-Dialog .jp-mod-accept")
            if accept.count():
                accept.first.click()
            else:
                page.keyboard.press("Escape")
        if attempt < 8:
            page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell").first.locator(".jp-InputPrompt").click()
            page.keyboard.press("Control+Shift+c")
        else:  # a loaded machine can swallow the shortcut: open the same palette through the app's command
            page.evaluate("window.jupyterapp.commands.execute('apputils:activate-command-palette')")
        try:
            palette.wait_for(state="visible", timeout=4000)
            break
        except Exception:
            continue
    opened = False
    if palette.is_visible():
        try:
            palette.fill("TrainGuard: Show", timeout=5000)
            item = page.locator('.lm-CommandPalette-item.lm-mod-active[data-command="trainguard:open-panel"]')
            expect(item).to_contain_text("TrainGuard: Show Findings Panel")
            page.keyboard.press("Enter")
            opened = True
        except Exception:  # the palette lost focus and closed (a kernel starting): use the command itself
            pass
    if not opened:  # seen with CI=true in the environment: the palette never opens; run the entry's command
        page.screenshot(path=str(artifacts / "palette_not_visible.png"))
        label = page.evaluate("window.jupyterapp.commands.label('trainguard:open-panel')")
        assert label == "TrainGuard: Show Findings Panel"
        page.evaluate("window.jupyterapp.commands.execute('trainguard:open-panel')")
    panel = open_panel(page, "demo.ipynb")
    expect(finding(panel, "NB001")).to_have_count(1, timeout=30_000)
    expect(finding(panel, "NB003")).to_have_count(1)

    report = lab.api("trainguard/findings?path=demo.ipynb")
    shown = panel.locator(".jp-TrainGuard-finding")
    expect(shown).to_have_count(len(report["findings"]))
    nb001 = finding(panel, "NB001")
    (expected,) = [f for f in report["findings"] if f["rule_id"] == "NB001"]
    expect(nb001.locator(".jp-TrainGuard-message")).to_have_text(without_backticks(expected["message"]))
    # "cell 5 [In 3]": 1-based over all cells (the markdown title is cell 1), then the prompt's count
    assert (expected["location"]["cell_index"], expected["location"]["execution_count"]) == (4, 3)
    expect(nb001.locator(".jp-TrainGuard-place")).to_have_text(f"cell 5 [In 3], line {expected['location']['line']}")
    expect(nb001.locator(".jp-TrainGuard-impact")).to_contain_text("Impact: ")
    expect(nb001.locator(".jp-TrainGuard-fix")).to_contain_text("Fix: ")
    # grouped by severity: errors come first, warnings after
    severities = panel.locator(".jp-TrainGuard-severity").evaluate_all("els => els.map(e => e.dataset.severity)")
    assert severities[0] == "error" and "warning" in severities
    # the tab badge carries the count
    assert page.locator(TAB).get_attribute("data-trainguard-count") == str(len(report["findings"]))
    badge = page.locator(TAB).evaluate("e => getComputedStyle(e, '::before').content")
    assert badge == f'"{len(report["findings"])}"'  # drawn even while the tab is the current one
    leak = [f for f in report["findings"] if f["rule_id"] == "LEAK001"]
    if leak:  # static leakage rules are developed separately; check them when the engine reports them
        expect(finding(panel, "LEAK001").first).to_have_attribute("data-cell", str(leak[0]["location"]["cell"]))

    assert page.evaluate(ACTIVE_CELL_INDEX) == 0
    nb001.click()
    page.wait_for_function(f"() => ({ACTIVE_CELL_INDEX})() === 4")
    finding(panel, "NB003").click()
    page.wait_for_function(f"() => ({ACTIVE_CELL_INDEX})() === 3")
    assert not page.js_errors


def test_panel_refreshes_on_save(page, lab):
    from playwright.sync_api import expect

    shutil.copyfile(lab.root / "demo.ipynb", lab.root / "fixme.ipynb")
    open_document(page, lab, "fixme.ipynb")
    panel = open_panel(page, "fixme.ipynb")
    expect(finding(panel, "NB001")).to_have_count(1, timeout=30_000)
    cell = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(4)
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.type("print('accuracy', 0.9)")
    page.keyboard.press("Control+s")
    expect(finding(panel, "NB001")).to_have_count(0, timeout=30_000)
    expect(finding(panel, "NB003")).to_have_count(1)
    assert "print('accuracy', 0.9)" in (lab.root / "fixme.ipynb").read_text()


def test_hostile_text_is_rendered_inert(page, lab, artifacts):
    from playwright.sync_api import expect

    open_document(page, lab, "xss.ipynb")
    panel = open_panel(page, "xss.ipynb")
    expect(finding(panel, "NB001")).to_have_count(1, timeout=30_000)
    # runtime results read from the cell outputs, placed at the cell holding the output
    data001 = finding(panel, "DATA001")
    expect(data001).to_have_count(1)
    expect(data001).to_have_attribute("data-cell", "2")
    expect(data001.locator(".jp-TrainGuard-message")).to_have_text(
        'rows overlap <img src=x onerror="window.__tgxss=(window.__tgxss||0)+1"><script>window.__tgxss=99</script>')
    # an audit finding named by its execution count lands on the cell showing [3]
    expect(finding(panel, "LEAK005")).to_have_attribute("data-cell", "3")
    expect(finding(panel, "LEAK005").locator(".jp-TrainGuard-place")).to_have_text("cell 4 [In 3]")
    expect(finding(panel, "LEAK005").locator(".jp-TrainGuard-message code")).to_have_text("X_test")
    # saved outputs render with the trainguard renderer, ranked above text/html
    outputs = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-TrainGuardOutput")
    expect(outputs).to_have_count(2)
    expect(outputs.first).to_contain_text("rows overlap <img src=x")
    assert page.locator(".tg-html-fallback").count() == 0
    finding(panel, "DATA001").click()
    page.wait_for_function(f"() => ({ACTIVE_CELL_INDEX})() === 2")
    page.wait_for_timeout(500)  # give any injected handler time to fire
    assert page.evaluate("() => window.__tgxss") is None
    assert page.locator('img[src="x"]').count() == 0
    assert page.locator(f"{PANEL} script, .jp-TrainGuardOutput script").count() == 0
    page.screenshot(path=str(artifacts / "lab_panel_xss.png"))
    assert not page.js_errors


def test_python_file_in_editor_lists_findings_with_lines(page, lab):
    from playwright.sync_api import expect

    open_document(page, lab, "train.py")
    page.wait_for_selector(".jp-FileEditor .cm-content", timeout=30_000)
    panel = open_panel(page, "train.py")
    nb001 = finding(panel, "NB001")
    expect(nb001).to_have_count(1, timeout=30_000)
    expect(nb001).to_have_attribute("data-line", "9")
    expect(nb001.locator(".jp-TrainGuard-place")).to_have_text("line 9")
    nb001.click()
    # the cursor moved to file line 9 (status bar "Ln 9, Col 1")
    expect(page.get_by_role("button", name="Ln 9, Col 1")).to_be_visible()

    # the launcher card opens the panel again after it was collapsed
    page.locator(TAB).click()
    expect(page.locator(PANEL)).to_be_hidden()
    page.locator('.jp-FileBrowser [data-command="launcher:create"]').first.click()
    card = page.locator(".jp-LauncherCard", has_text="TrainGuard: Show Findings Panel")
    card.click()
    expect(page.locator(PANEL)).to_be_visible()



def test_jupytext_script_opened_as_notebook(page, lab):
    from playwright.sync_api import expect

    pytest.importorskip("jupytext", reason="jupytext (with its JupyterLab extension) is not installed")
    page.goto(f"{lab.url}/lab?reset&token={lab.token}")
    page.wait_for_selector("#jupyterlab-splash", state="detached", timeout=60_000)
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.commands.hasCommand('docmanager:open')")
    if "Jupytext Notebook" not in page.evaluate(
            "() => [...window.jupyterapp.docRegistry.widgetFactories()].map(f => f.name)"):
        pytest.skip("the jupytext JupyterLab extension is not enabled")
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:open',"
                  " {path: 'train.py', factory: 'Jupytext Notebook'})")
    page.locator(".jp-Dialog .jp-Dialog-button", has_text="No Kernel").click()  # kernel picker for a .py file
    panel = open_panel(page, "train.py")
    nb001 = finding(panel, "NB001")
    expect(nb001).to_have_count(1, timeout=30_000)
    expect(nb001).to_have_attribute("data-cell", "2")
    nb001.click()
    page.wait_for_function(f"() => ({ACTIVE_CELL_INDEX})() === 2")


def test_static_and_runtime_findings_together(page, lab, artifacts):
    """The README screenshot: a leaky notebook with a saved %%guarded_train result."""
    from playwright.sync_api import expect

    open_document(page, lab, "leaky.ipynb")
    panel = open_panel(page, "leaky.ipynb")
    report = lab.api("trainguard/findings?path=leaky.ipynb")
    expect(finding(panel, "DATA003")).to_have_attribute("data-cell", "4", timeout=30_000)
    expect(panel.locator(".jp-TrainGuard-finding")).to_have_count(len(report["findings"]) + 1)
    for f in report["findings"]:
        expect(finding(panel, f["rule_id"]).first).to_be_visible()
    expect(page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-TrainGuardOutput")).to_contain_text(
        "StandardScaler was fitted on 100 rows")
    page.screenshot(path=str(artifacts / "lab_panel.png"))
