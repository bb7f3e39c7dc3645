"""Issue 15, install: the default `pip install .` gives a working `trainguard fix`, the server extension enabled
and the prebuilt lab extension; a missing optional package is a clear message, never an internal error.

The wheel is really built from this tree and installed (without dependencies) into a fresh virtual environment
that sees this environment's packages, so what is checked is what `pip install .` puts in place."""

from __future__ import annotations

import email
import json
import os
import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from .nbmake import write_nb

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
ROOT = Path(__file__).resolve().parents[2]
LEAKY = [
    "import numpy as np\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.linear_model import LogisticRegression",
    "X = np.arange(40).reshape(20, 2)\ny = np.arange(20) % 2",
    "X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25)\nclf = LogisticRegression().fit(X_tr, y_tr)",
]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("hatchling")
    pytest.importorskip("hatch_jupyter_builder")
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return next(out.glob("jupyter_trainguard-*.whl"))


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv (system site-packages visible for the dependencies) with the wheel installed into it."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    return env_dir


# `jupyter <sub>` would dispatch to the first `jupyter-<sub>` script on PATH (another environment's); the modules
# run with the venv's interpreter, so its prefix decides the config and data paths, as in a real venv.
def _run(env_dir: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER_", "PYTHONPATH"))}
    env["JUPYTER_CONFIG_DIR"] = str(env_dir / "user-config")  # no user-level config decides anything
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    res = subprocess.run(list(args), capture_output=True, text=True, timeout=180, env=env, cwd=cwd)
    res.stdout, res.stderr = _ANSI.sub("", res.stdout), _ANSI.sub("", res.stderr)
    return res


def test_wheel_metadata_makes_fixing_and_the_server_extension_core(wheel):
    with zipfile.ZipFile(wheel) as zf:
        meta_name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(zf.read(meta_name))
        names = zf.namelist()
    core = {
        r.split(";")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower().replace("_", "-")
        for r in meta.get_all("Requires-Dist")
        if "extra ==" not in r
    }
    assert {"libcst", "jupyter-server", "nbformat", "ipython"} <= core
    assert "jupyterlab" not in core  # JupyterLab stays the user's choice (the [lab] extra)
    assert any("jupyterlab" in r and "extra == 'lab'" in r.replace('"', "'") for r in meta.get_all("Requires-Dist"))
    data = [n for n in names if ".data/data/" in n]
    config = next(n for n in data if n.endswith("etc/jupyter/jupyter_server_config.d/jupyter_trainguard.json"))
    with zipfile.ZipFile(wheel) as zf:
        assert json.loads(zf.read(config))["ServerApp"]["jpserver_extensions"] == {"jupyter_trainguard": True}
    assert any(n.endswith("share/jupyter/labextensions/jupyter-trainguard/package.json") for n in data)
    assert any("share/jupyter/labextensions/jupyter-trainguard/static/remoteEntry." in n for n in data)


def test_installed_server_extension_is_enabled_and_loads(installed):
    res = _run(installed, str(installed / "bin" / "python"), "-m", "jupyter_server", "extension", "list")
    text = res.stdout + res.stderr
    assert str(installed / "etc" / "jupyter") in text  # the config came from the installed wheel's prefix
    assert "jupyter_trainguard enabled" in text, text
    assert "jupyter_trainguard 0.1.0 OK" in text, text


def test_installed_lab_extension_is_the_prebuilt_one(installed):
    jupyterlab = pytest.importorskip("jupyterlab")  # noqa: F841 - listing lab extensions is JupyterLab's command
    res = _run(installed, str(installed / "bin" / "python"), "-m", "jupyterlab.labextensions", "list")
    text = res.stdout + res.stderr
    line = next((ln for ln in text.splitlines() if "jupyter-trainguard" in ln), "")
    assert "enabled" in line and "OK" in line, text
    assert "(python, jupyter-trainguard)" in line  # prebuilt: shipped by the Python package, no Node.js build
    assert str(installed / "share" / "jupyter" / "labextensions") in text


def test_installed_fix_works_on_a_notebook(installed, tmp_path):
    nb = write_nb(tmp_path / "leaky.ipynb", LEAKY)
    res = _run(installed, str(installed / "bin" / "trainguard"), "fix", str(nb), cwd=tmp_path)
    assert "internal error" not in res.stdout + res.stderr
    assert "STATUS: fixed" in res.stdout, res.stdout + res.stderr
    assert "random_state=" in nb.read_text()
    # the trainguard that ran is the installed one, not this checkout
    where = _run(
        installed,
        str(installed / "bin" / "python"),
        "-c",
        "import jupyter_trainguard; print(jupyter_trainguard.__file__)",
        cwd=tmp_path,
    )
    assert where.stdout.strip().startswith(str(installed))


def test_missing_libcst_is_a_clear_message_not_an_internal_error(tmp_path):
    """libcst really absent from the process (an import of it fails as it would when not installed)."""
    nb = write_nb(tmp_path / "leaky.ipynb", LEAKY)
    before = nb.read_bytes()
    code = (
        "import sys; sys.modules['libcst'] = None\n"
        "from jupyter_trainguard.cli import main\n"
        f"sys.exit(main(['fix', {str(nb)!r}]))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, cwd=tmp_path)
    out = res.stdout + res.stderr
    assert "internal error" not in out
    assert "Traceback" not in out
    assert out.count("need the package `libcst`") == 1, out
    assert "pip install libcst" in out
    assert "STATUS: no_work" in out
    assert nb.read_bytes() == before
