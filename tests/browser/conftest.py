"""A real JupyterLab server on 127.0.0.1 (temp root, token, free port) and headless Chromium via Playwright.

Skipped with a reason when /usr/bin/chromium (or $TRAINGUARD_CHROMIUM) or the `playwright` package is missing.
The labextension must be installed: `pip install .` or `pip install -e .` (both build it with node).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("TRAINGUARD_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def pytest_collection_modifyitems(config, items):
    reason = None
    if not os.path.exists(CHROMIUM):
        reason = f"{CHROMIUM} not found (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "python package 'playwright' not installed (pip install playwright; no browser download needed)"
    here = Path(__file__).parent
    for item in items:
        if reason and here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.skip(reason=reason))


XSS = '<img src=x onerror="window.__tgxss=(window.__tgxss||0)+1"><script>window.__tgxss=99</script>'
RUN_MIME = "application/vnd.trainguard.run+json"
AUDIT_MIME = "application/vnd.trainguard.audit+json"


def _finding(rule_id: str, message: str, count: int | None = None, severity: str = "error") -> dict:
    location = {"path": "<session>"} if count is None else {"path": "<session>", "execution_count": count}
    return {"rule_id": rule_id, "rule_name": "name " + XSS, "severity": severity, "category": "leakage.overlap",
            "message": message, "location": location, "impact": "impact " + XSS,
            "fix": "fix " + XSS, "evidence": {"html": XSS}, "source": "runtime"}


def write_all(root: Path) -> None:
    """demo.ipynb: leaky, a syntax error (NB001), out-of-order counts (NB003); xss.ipynb: hostile text everywhere;
    train.py: a jupytext script with a syntax error on file line 9."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    ks = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}
    demo = new_notebook(metadata=ks, cells=[
        new_markdown_cell("# Leaky demo"),
        new_code_cell("import numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
                      "from sklearn.model_selection import train_test_split", execution_count=1),
        new_code_cell("X = np.random.rand(100, 3)\ny = (X[:, 0] > 0.5).astype(int)", execution_count=4),
        new_code_cell("X_scaled = StandardScaler().fit_transform(X)\n"
                      "X_tr, X_te, y_tr, y_te = train_test_split(X_scaled, y)", execution_count=2),
        new_code_cell("print 'accuracy', 0.9", execution_count=3),
    ])
    nbformat.write(demo, root / "demo.ipynb")
    payload = {"kind": "guarded_train " + XSS, "findings": [_finding("DATA001", "rows overlap " + XSS)]}
    audit = {"findings": [_finding("LEAK005", "scored again on `X_test` " + XSS, count=3, severity="warning")]}
    xss = new_notebook(metadata=ks, cells=[
        new_markdown_cell("# Hostile text"),
        new_code_cell("x = 1  # " + XSS + "\nprint 'broken' " + XSS, execution_count=1),
        new_code_cell("%%guarded_train\nmodel.fit(X, y)", execution_count=2, outputs=[
            new_output("display_data", data={RUN_MIME: payload, "text/plain": "guarded run",
                                             "text/html": "<b class='tg-html-fallback'>html fallback</b>"}),
        ]),
        new_code_cell("%trainaudit", execution_count=3, outputs=[
            new_output("execute_result", data={AUDIT_MIME: audit, "text/plain": "audit"}, execution_count=3),
        ]),
    ])
    nbformat.write(xss, root / "xss.ipynb")
    run = {"kind": "guarded_train", "steps": 3, "findings": [{
        "rule_id": "DATA003", "rule_name": "transformer-saw-more-rows", "severity": "error",
        "category": "leakage.preprocessing", "source": "runtime", "location": {"path": "<session>"},
        "message": "StandardScaler was fitted on 100 rows; the training split has 75.",
        "impact": "Scaling statistics include the 25 test rows, so the test score is optimistic.",
        "fix": "Fit the scaler on X_train only (or put it in a Pipeline)."}]}
    leaky = new_notebook(metadata=ks, cells=[
        new_markdown_cell("# Churn model"),
        new_code_cell("import numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
                      "from sklearn.model_selection import train_test_split\n"
                      "from sklearn.linear_model import LogisticRegression"),
        new_code_cell("X = np.random.rand(100, 3)\ny = (X[:, 0] > 0.5).astype(int)"),
        new_code_cell("X_scaled = StandardScaler().fit_transform(X)\n"
                      "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y)"),
        new_code_cell("%%guarded_train\nmodel = LogisticRegression().fit(X_train, y_train)", outputs=[
            new_output("display_data", data={RUN_MIME: run, "text/plain": "guarded run"})]),
        new_code_cell("print('test accuracy', model.score(X_test, y_test))"),
    ])
    nbformat.write(leaky, root / "leaky.ipynb")
    (root / "train.py").write_text("# %% [markdown]\n# Demo\n\n# %%\nimport math\n\n# %%\nx = 1\n"
                                   "print 'x', x\n", encoding="utf-8")


@dataclass
class Lab:
    url: str
    token: str
    root: Path

    def api(self, path: str) -> dict:
        req = urllib.request.Request(f"{self.url}/{path}", headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _labextension_installed() -> bool:
    from jupyter_core.paths import jupyter_path

    return any(Path(p, "jupyter-trainguard", "package.json").exists() for p in jupyter_path("labextensions"))


@pytest.fixture(scope="session")
def lab(tmp_path_factory) -> Iterator[Lab]:
    if not _labextension_installed():
        pytest.fail("the jupyter-trainguard labextension is not installed: run `pip install .` (needs node) first")
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    root.mkdir()
    write_all(root)
    home = base / "home"
    config_dir = home / "config"
    config_dir.mkdir(parents=True)
    (config_dir / "jupyter_server_config.json").write_text(
        json.dumps({"ServerApp": {"jpserver_extensions": {"jupyter_trainguard": True}}}))
    settings = home / "lab-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config_dir), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "lab-settings"), JUPYTERLAB_WORKSPACES_DIR=str(home / "ws"),
               IPYTHONDIR=str(home / "ipython"), JUPYTER_PLATFORM_DIRS="1")
    port, token = _free_port(), secrets.token_hex(16)
    log = open(base / "lab.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
         "--FileContentsManager.delete_to_trash=False", "--LabApp.expose_app_in_browser=True"],
        env=env, stdout=log, stderr=subprocess.STDOUT, cwd=root)
    url = f"http://127.0.0.1:{port}"
    lab = Lab(url, token, root)
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail("jupyter lab exited early:\n" + (base / "lab.log").read_text(errors="replace")[-3000:])
            try:
                lab.api("api/status")
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("jupyter lab did not answer within 90 s")
                time.sleep(0.3)
        yield lab
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="module")
def browser():
    """Module-scoped: Playwright's sync API keeps an event loop running in this thread while it is open, which
    breaks the asyncio-based server fixtures of later test modules."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.js_errors = errors  # type: ignore[attr-defined]
    yield pg
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
