"""What the user sees (bundle with text/HTML/JSON, panel tabs, escaping), options, %config defaults, pre-checks."""

from __future__ import annotations

import json

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
    shell.run("%%guarded_train --quiet\nx = (1,)")  # corrected and re-run: the session is not poisoned
    assert shell.ns["x"] == (1,)
