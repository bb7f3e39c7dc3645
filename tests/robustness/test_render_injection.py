"""Hostile user text (column names, variable names, cell code, file names) is rendered inert everywhere
trainguard emits HTML or Markdown: the run panel (widgets and HTML fallback), the audit panel, the audit
Markdown/HTML exports, the scan Markdown output and the `%tg_estimate` HTML."""

from __future__ import annotations

import re

import nbformat
import pytest
from IPython.utils.capture import capture_output

from ..guard import conftest as guard_conftest

shell = guard_conftest.shell  # the real-InteractiveShell fixture of tests/guard

IMG = "<img src=x onerror=alert(1)>"
SCRIPT = "<script>alert(1)</script>"
SVG = '"><svg onload=alert(1)>'
MD_LINK = "![x](javascript:alert(1))"
PIPE = "a|b"
# a live tag from the payloads (trainguard's own timeline <svg xmlns=...> is allowed), or an event handler
# attribute inside any real tag
RAW_TAG = re.compile(r"<\s*/?\s*(img|script)\b|<\s*svg\b(?!\s+xmlns=\"http://www\.w3\.org/2000/svg\")"
                     r"|<[^>]*\bon(error|load)\s*=", re.IGNORECASE)


def assert_inert_html(where: str, html: str, must_show: tuple[str, ...] = ()) -> None:
    m = RAW_TAG.search(html)
    assert m is None, f"raw tag in {where}: ...{html[max(0, m.start() - 80): m.end() + 80]}..."
    for text in must_show:  # the hostile text reached the output, escaped (so the test is not vacuous)
        escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
        assert escaped in html, f"{text!r} was expected, escaped, in {where}"


def widget_html(widget) -> str:
    out, stack = [], [widget]
    while stack:
        w = stack.pop()
        if type(w).__name__ == "HTML":
            out.append(w.value)
        stack.extend(getattr(w, "children", ()) or ())
    return "\n".join(out)


def outside_fences(md: str) -> str:
    """The Markdown with fenced code blocks removed (code there is shown literally); checks each fence closes."""
    out, fence = [], None
    for line in md.split("\n"):
        if fence is None:
            m = re.match(r"^(`{3,})", line)
            if m:
                fence = m.group(1)
                continue
            out.append(line)
        elif line.strip() == fence:
            fence = None
    assert fence is None, "a code fence was never closed: hostile code broke out of it"
    return "\n".join(out)


def assert_inert_markdown(where: str, md: str, must_show: tuple[str, ...] = ()) -> None:
    text = outside_fences(md)
    assert_inert_html(where, text)
    assert "](javascript:" not in text.replace("\\]", ""), f"live javascript: link in {where}"
    assert not re.search(r"(?<!\\)!?(?<!\\)\[[^\]\\]*(?<!\\)\]\(", text), f"live Markdown link in {where}"
    width = None
    for ln in text.split("\n"):  # each table keeps its header's column count: user text cannot add a column
        if not ln.startswith("|"):
            width = None
            continue
        cells = len(re.findall(r"(?<!\\)\|", ln))
        width = cells if width is None else width
        assert cells == width, f"a table row in {where} has {cells} cell separators, not {width}: {ln[:200]}"
    for text_ in must_show:
        assert text_.replace("|", "\\|").replace("[", "\\[").replace("]", "\\]").replace("<", "&lt;")\
            .replace(">", "&gt;") in text, f"{text_!r} was expected, escaped, in {where}"


# -- %%guarded_train run panel -----------------------------------------------------------------------------------

RUN_SETUP = f"""
import numpy as np, pandas as pd
n = 60
label = (np.arange(n) % 2).astype(int)
X_train = pd.DataFrame({{{IMG!r}: label * 3, {SCRIPT!r}: np.arange(n), {SVG!r}: np.arange(n) % 5,
                         {MD_LINK!r}: np.ones(n), {PIPE!r}: np.arange(n) % 3}})
y_train = pd.Series(label)
X_test = X_train.iloc[:10]
y_test = y_train.iloc[:10]
globals()[{SCRIPT!r}] = np.zeros(2_000_000)        # a hostile variable name among the largest objects
"""


def test_run_panel_html_and_widgets_escape_hostile_names(shell):
    from jupyter_trainguard.display.run_panel import build_widget, render_html

    shell.run(RUN_SETUP)
    with capture_output() as cap:
        shell.run(f"%%guarded_train --group-key '{IMG}' --sample-interval 0\n# {SCRIPT} {SVG}\nfit = 1\n")
    ids = shell.ids()
    assert "DATA001" in ids and "DATA006" in ids, ids
    (bundle,) = [o.data for o in cap.outputs if "text/html" in o.data]
    d = shell.last.to_dict()
    shown = (IMG, SCRIPT)  # IMG: a DATA006 column; SCRIPT: a largest-object name
    assert_inert_html("the run panel's HTML fallback", bundle["text/html"], shown)
    assert_inert_html("render_html", render_html(d), shown)
    assert_inert_html("the run panel's widgets", widget_html(build_widget(d)), shown)
    # a failing variant: error type, report path and notes are rendered too
    shell.run(f"bad = type({SCRIPT!r}.replace('<', 'X').replace('>', 'Y').replace('/', 'Z').replace('(', 'P')"
              ".replace(')', 'Q'), (Exception,), {})")
    with capture_output() as cap:
        result = shell.run(f"%%guarded_train --report-dir '{IMG}' --sample-interval 0\nraise bad('{SVG}')",
                           ok=False)
    assert result.error_in_exec is not None and shell.last.status == "failed"
    html = "\n".join(o.data.get("text/html", "") for o in cap.outputs)
    assert_inert_html("a failed run's panel", html)
    assert_inert_html("a failed run's widgets", widget_html(build_widget(shell.last.to_dict())))


# -- %trainaudit panel, exports, scan Markdown --------------------------------------------------------------------

CELLS = [
    "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
    "from sklearn.model_selection import train_test_split\nfrom sklearn.linear_model import LogisticRegression",
    f"# {SCRIPT} {MD_LINK} | ```\ndf = pd.read_csv({IMG!r})\nX = StandardScaler().fit_transform(df[[{SVG!r}]])\n"
    f"X_train, X_test, y_train, y_test = train_test_split(X, df['y'])\nnote = '''\n```\n{SCRIPT}\n'''\n"
    "LogisticRegression().fit(X_train, y_train).score(X_test, y_test)",
]


@pytest.fixture
def hostile_notebook(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c, execution_count=i + 1) for i, c in enumerate(CELLS)]
    path = tmp_path / f'{SVG}{PIPE}{MD_LINK.replace("/", "_")}.ipynb'
    nbformat.write(nb, path)
    return path


def test_audit_panel_and_exports_escape_hostile_code_and_file_names(hostile_notebook):
    pytest.importorskip("ipywidgets")
    from jupyter_trainguard.report.panel import AuditPanel, cell_code_html
    from jupyter_trainguard.report.render import render_html, render_markdown
    from jupyter_trainguard.report.review import audit_paths

    audit, errors = audit_paths([str(hostile_notebook)])
    assert not errors and audit.findings, errors
    assert "LEAK001" in {f.rule_id for f in audit.findings}
    assert_inert_html("the audit HTML export", render_html(audit), (SVG,))
    panel = AuditPanel(audit)
    codes = []
    for i in range(len(audit.findings)):  # every finding's cell code view
        panel.list.value = i
        codes.append(panel.code.value)
    assert_inert_html("the audit panel's widgets", widget_html(panel.widget) + "\n".join(codes), (SVG,))
    assert any("&lt;script&gt;" in c for c in codes), "the hostile cell code was expected in the code view"
    assert all(cell_code_html(audit, f) for f in audit.findings)
    md = render_markdown(audit)
    assert SCRIPT in md  # the code block shows the code literally, inside a fence it cannot close
    assert_inert_markdown("the audit Markdown export", md)


def test_scan_markdown_escapes_hostile_file_names(hostile_notebook):
    from jupyter_trainguard.engine import scan
    from jupyter_trainguard.output.markdown import render_markdown

    result = scan([str(hostile_notebook)])
    assert result.findings
    md = render_markdown(result.reports)
    assert_inert_markdown("the scan Markdown", md)
    assert "\\|" in md and "&gt;" in md  # the `|` and `>` of the file name are escaped


# -- %tg_estimate -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("hostile", [IMG, SCRIPT, SVG])
def test_estimate_html_escapes_hostile_expressions(shell, hostile):
    quoted = hostile.replace("'", "\\'")
    with capture_output() as cap:
        shell.run(f"%tg_estimate model='{quoted}' batch='{quoted}'")
    (bundle,) = [o.data for o in cap.outputs if "text/html" in o.data]
    assert_inert_html("the %tg_estimate HTML", bundle["text/html"])
    assert "&lt;" in bundle["text/html"], bundle["text/html"]  # the hostile expression is quoted, escaped
