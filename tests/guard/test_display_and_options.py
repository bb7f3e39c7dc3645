"""What the user sees (bundle with text/HTML/JSON, panel tabs, escaping), options, %config defaults, pre-checks."""

from __future__ import annotations

import json
import re

import pytest
from IPython.utils.capture import capture_output

from jupyter_trainguard.display import RUN_MIME
from jupyter_trainguard.display.run_panel import TABS, build_widget


def test_bundle_has_text_html_and_run_json_and_escapes(shell):
    shell.run("import numpy as np, pandas as pd\ny_train = pd.Series(np.arange(60) % 2)\n"
              "X_train = pd.DataFrame({'<img src=x onerror=alert(1)>': y_train * 2.0, 'ok': np.arange(60.)})\n"
              "X_test = X_train.iloc[:10]")
    with capture_output() as cap:
        shell.run("%%guarded_train\nimport time\ntime.sleep(0.35)")
    (out,) = [o for o in cap.outputs if RUN_MIME in o.data]
    assert "text/plain" in out.data and "application/vnd.jupyter.widget-view+json" not in out.data
    html = out.data["text/html"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img src" not in html
    assert all(f"<h4 style='margin:8px 0 4px'>{t}</h4>" in html for t in TABS)
    assert "<svg" in html  # the memory timeline
    payload = out.data[RUN_MIME]
    json.dumps(payload)
    assert payload["status"] == "ok" and {"DATA001", "DATA006"} <= {f["rule_id"] for f in payload["findings"]}
    assert payload["memory"]["timeline"] and "DATA001" in out.data["text/plain"]


def test_widget_has_the_four_tabs(shell):
    pytest.importorskip("ipywidgets")
    shell.run("%%guarded_train --quiet\nx = 1")
    box = build_widget(shell.last.to_dict())
    tab = box.children[1]
    assert [tab.get_title(i) for i in range(4)] == list(TABS)


def test_quiet_displays_nothing_but_keeps_the_report(shell):
    with capture_output() as cap:
        shell.run("%%guarded_train --quiet\nx = 41 + 1")
    assert not [o for o in cap.outputs if RUN_MIME in o.data]
    assert shell.ns["x"] == 42 and shell.last.status == "ok"


def test_config_defaults_through_traitlets(shell):
    shell.run("%config TrainGuard.seed = 3")
    shell.run("%config TrainGuard.report_dir = 'reports_here'")
    shell.run("%%guarded_train --quiet\nimport random\nv = random.random()")
    import random

    random.seed(3)
    assert shell.ns["v"] == random.random()
    assert shell.last.options["seed"] == 3 and shell.last.options["report_dir"] == "reports_here"
    shell.run("%%guarded_train --quiet --seed 4\nv = 1")
    assert shell.last.options["seed"] == 4


def test_help_and_bad_arguments(shell):
    doc = shell.ip.magics_manager.magics["cell"]["guarded_train"].__doc__
    for opt in ("--seed", "--deterministic", "--strict", "--config", "--estimate", "--memory-budget", "--group-key",
                "--report-dir"):
        assert opt in doc
    result = shell.run("%%guarded_train --memory-budget lots\nx = 1", ok=False)
    assert "not a size" in str(result.error_in_exec) and "x" not in shell.ns


def test_static_rules_run_over_history_with_magics(shell):
    shell.run("%time a = 1")
    shell.run("b = (", ok=False)  # a syntax error stored in the history: it never ran, so it is not analysed
    shell.run("%%guarded_train --quiet\nc = a + 1")
    static = shell.last.static
    assert static.cells == 3 and not any(f.rule_id == "NB001" for f in static.findings)
    assert shell.last.static_ms < 5000 and shell.ns["c"] == 2


def test_config_check_against_constants_schema(shell, tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.trainguard.constants.COMPONENT]\nchoices = ['empathy', 'honesty']\n"
        "[tool.trainguard.constants.BATCH]\ntype = 'int'\nmin = 1\n")
    shell.run("COMPONENT = 'curiosity'\nBATCH = 32\nparams = {'COMPONENT': 'honesty', 'BATCH': 0}")
    shell.run("%%guarded_train --quiet --config\nx = 1")
    cfg = [f for f in shell.last.findings if f.rule_id == "CFG001" and f.source == "runtime"]
    assert [f.evidence["constant"] for f in cfg] == ["COMPONENT"]
    shell.run("%%guarded_train --quiet --config params\nx = 1")
    cfg = [f for f in shell.last.findings if f.rule_id == "CFG001" and f.source == "runtime"]
    assert [f.evidence["constant"] for f in cfg] == ["BATCH"]


def test_estimate_is_shown_or_explained(shell):
    shell.run("%%guarded_train --quiet --estimate --memory-budget 1KiB\nx = 1")
    est = shell.last.estimate
    assert est is not None
    if not est.get("available"):
        assert est["reason"]
    else:
        assert est["total_bytes"] > 0 and ("MEM003" in shell.ids()) == (est["total_bytes"] > 1024)


def test_estimate_over_budget_is_mem003_and_strict_refuses(shell):
    pytest.importorskip("torch")
    shell.run("import torch\nfrom torch import nn\nmodel = nn.Linear(256, 256)\n"
              "opt = torch.optim.Adam(model.parameters())\nxb, yb = torch.randn(32, 256), torch.randn(32, 256)\n"
              "loss_fn = nn.MSELoss()")
    step = "loss = loss_fn(model(xb), yb)\nopt.zero_grad(); loss.backward(); opt.step()\nstepped = True"
    shell.run("%%guarded_train --quiet --estimate --memory-budget 64GiB\n" + step)
    est = shell.last.estimate
    assert est["available"] and est["total_bytes"] > 0 and "MEM003" not in shell.ids()
    shell.run("%%guarded_train --quiet --estimate --memory-budget 1MiB\n" + step)
    (m,) = [f for f in shell.last.findings if f.rule_id == "MEM003"]
    assert m.severity.value == "warning" and m.evidence["estimate_bytes"] == shell.last.estimate["total_bytes"]
    del shell.ns["stepped"]
    result = shell.run("%%guarded_train --quiet --strict --no-static --estimate --memory-budget 1MiB\n" + step,
                       ok=False)
    assert "MEM003" in str(result.error_in_exec) and "stepped" not in shell.ns


def test_last_run_matches_namespace(shell):
    from jupyter_trainguard.runtime import last_run

    shell.run("%%guarded_train --quiet\nx = 1")
    assert last_run() is shell.ns["_trainguard_last"]


def test_syntax_error_in_a_guarded_cell_is_shown_once(shell, capsys):
    result = shell.run("%%guarded_train --quiet\nx = (1,\n", ok=False)
    assert isinstance(result.error_in_exec, SyntaxError)  # the cell fails with the user's own error
    out = capsys.readouterr()
    shown = out.out + out.err
    assert shown.count("SyntaxError") == 1, shown
    assert "compilerop" not in shown and "run_cell_async" not in shown  # no frames of IPython's parser
    assert "interactiveshell" not in shown and "guarded.py" not in shown, shown  # nor of IPython's or ours
    assert "Traceback" not in shown
    shell.run("%%guarded_train --quiet\nx = (1,)")  # corrected and re-run: the session is not poisoned
    assert shell.ns["x"] == (1,)


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _shown(capsys, count: int) -> str:
    out = capsys.readouterr()
    return _ANSI.sub("", out.out + out.err).replace(f"In[{count}]", "In[N]")


@pytest.mark.parametrize("body", ["x = (1,\n", "if True:\nx = 1\n", "y = 1 +* 2\n"])
def test_syntax_error_of_a_guarded_cell_looks_like_a_plain_cells(shell, capsys, body):
    plain = shell.run(body, ok=False)
    plain_shown = _shown(capsys, shell.ip.execution_count - 1)
    guarded = shell.run("%%guarded_train --quiet\n" + body, ok=False)
    guarded_shown = _shown(capsys, shell.ip.execution_count - 1)
    assert guarded_shown == plain_shown and plain_shown.count("Error") == 1, (plain_shown, guarded_shown)
    # IPython gives a plain cell's SyntaxError as error_before_exec; the magic ran, so the guarded one is
    # error_in_exec: the user's own exception, of its own type (IndentationError stays one)
    assert type(guarded.error_in_exec) is type(plain.error_before_exec)
    assert guarded.error_in_exec.lineno == plain.error_before_exec.lineno


def test_custom_exception_handlers_and_other_syntax_errors_are_left_alone(shell, capsys):
    seen = []
    shell.ip.set_custom_exc((ValueError,), lambda ip, etype, value, tb, tb_offset=None: seen.append(value))
    try:
        shell.run("%%guarded_train --quiet\nraise ValueError('mine')", ok=False)
        assert [str(v) for v in seen] == ["mine"]  # the user's own handler still gets the guarded cell's error
        shell.run("%%guarded_train --quiet\nx = (1,\n", ok=False)
        shown = capsys.readouterr().out
        assert "guarded.py" not in shown and shown.count("SyntaxError") == 1 and len(seen) == 1
    finally:
        shell.ip.set_custom_exc((), None)
    # a SyntaxError raised by the cell's code (not its own source) is shown from the cell's frame on
    result = shell.run("%%guarded_train --quiet\nsource = 'x = ('\ncompile(source, 'other.py', 'exec')", ok=False)
    shown = _ANSI.sub("", capsys.readouterr().out)
    assert isinstance(result.error_in_exec, SyntaxError) and result.error_in_exec.filename == "other.py"
    assert "Traceback" in shown and "compile(source, 'other.py', 'exec')" in shown and "File other.py:1" in shown
    assert "guarded.py" not in shown and "interactiveshell" not in shown and shown.count("SyntaxError") == 1
    shell.run("compile('x = (', 'other.py', 'exec')", ok=False)  # plain cells: IPython's display, untouched
    assert "interactiveshell" in _ANSI.sub("", capsys.readouterr().out)


def test_unloading_restores_the_shells_showsyntaxerror():
    from tests.ipshell import loaded_shell

    with loaded_shell() as sh:
        assert "showsyntaxerror" in vars(sh.ip)
        sh.ip.run_line_magic("reload_ext", "trainguard")  # wrapped once, not twice
        was_set, original = vars(sh.ip)["showsyntaxerror"]._trainguard_show_plain
        assert not was_set and original == type(sh.ip).showsyntaxerror.__get__(sh.ip)
        sh.ip.run_line_magic("unload_ext", "trainguard")
        assert "showsyntaxerror" not in vars(sh.ip)
        sh.run("%load_ext trainguard")


def test_strict_refusal_renders_code_spans(shell):
    pytest.importorskip("sklearn")
    shell.run(
        "import numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.linear_model import LogisticRegression\n"
        "X = np.random.default_rng(0).normal(size=(80, 3))\ny = (X[:, 0] > 0).astype(int)\n"
        "X = StandardScaler().fit_transform(X)\n"
        "X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)"
    )
    with capture_output() as cap:
        result = shell.run(
            "%%guarded_train --strict\nmodel = LogisticRegression().fit(X_train, y_train)\n"
            "score = model.score(X_test, y_test)", ok=False)
    assert "LEAK001" in str(result.error_in_exec) and "`" in str(result.error_in_exec)
    (out,) = [o for o in cap.outputs if RUN_MIME in o.data]
    html = out.data["text/html"]
    start = html.index("The cell was not run (--strict):")
    refusal = html[start:html.index("</p>", start)]
    assert "LEAK001" in refusal and "<code>StandardScaler().fit_transform(X)</code>" in refusal
    assert "`" not in refusal and "`" not in html
