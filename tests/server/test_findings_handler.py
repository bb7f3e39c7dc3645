"""`GET /trainguard/findings`: the engine's report for a notebook in the server root, behind auth and a root jail."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook


def write_demo(path: Path) -> Path:
    """A leaky notebook: a syntax-error cell (NB001), cells run out of order (NB003), scaling before the split."""
    cells = [
        new_markdown_cell("# Demo"),
        new_code_cell("import numpy as np\nfrom sklearn.preprocessing import StandardScaler\n"
                      "from sklearn.model_selection import train_test_split", execution_count=1),
        new_code_cell("X = np.random.rand(100, 3)\ny = (X[:, 0] > 0.5).astype(int)", execution_count=4),
        new_code_cell("X_scaled = StandardScaler().fit_transform(X)\n"
                      "X_tr, X_te, y_tr, y_te = train_test_split(X_scaled, y)", execution_count=2),
        new_code_cell("print 'accuracy', 0.9", execution_count=3),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=cells), path)
    return path


async def get_findings(jp_fetch, path: str, **kwargs):
    return await jp_fetch("trainguard", "findings", params={"path": path}, raise_error=False, **kwargs)


def body(response) -> dict:
    assert response.headers["Content-Type"].startswith("application/json")
    return json.loads(response.body)


async def test_authenticated_request_gets_the_engine_report(jp_fetch, jp_root_dir):
    write_demo(jp_root_dir / "work" / "demo.ipynb")
    r = await get_findings(jp_fetch, "work/demo.ipynb")
    assert r.code == 200
    data = body(r)
    assert data["path"] == "work/demo.ipynb"
    assert data["error"] is None
    assert data["cells"] == 5
    by_rule = {f["rule_id"]: f for f in data["findings"]}
    assert by_rule["NB001"]["location"]["cell"] == 4
    assert by_rule["NB001"]["severity"] == "error"
    assert by_rule["NB001"]["impact"] and by_rule["NB001"]["fix"]
    assert by_rule["NB003"]["location"]["cell"] == 3  # ran as [2] after the cell above ran as [4]
    assert all(f["location"]["path"] == "work/demo.ipynb" for f in data["findings"])
    assert str(jp_root_dir) not in r.body.decode()  # no server-side paths leak to the client
    assert data["counts"]["error"] >= 1 and data["counts"]["warning"] >= 1


async def test_request_without_token_is_refused(jp_fetch, jp_root_dir):
    write_demo(jp_root_dir / "demo.ipynb")
    r = await get_findings(jp_fetch, "demo.ipynb", headers={"Authorization": ""})
    assert r.code == 403
    assert b"NB001" not in r.body


async def test_wrong_token_is_refused(jp_fetch, jp_root_dir):
    write_demo(jp_root_dir / "demo.ipynb")
    r = await get_findings(jp_fetch, "demo.ipynb", headers={"Authorization": "token not-the-token"})
    assert r.code == 403


@pytest.mark.parametrize("path", ["../outside/secret.ipynb", "work/../../outside/secret.ipynb"])
async def test_dotdot_path_outside_root_is_refused(jp_fetch, jp_root_dir, path):
    write_demo(jp_root_dir.parent / "outside" / "secret.ipynb")
    (jp_root_dir / "work").mkdir()
    r = await get_findings(jp_fetch, path)
    assert r.code in (403, 404)
    data = body(r)
    assert "findings" not in data and data["message"]


async def test_absolute_path_does_not_escape_root(jp_fetch, jp_root_dir):
    outside = write_demo(jp_root_dir.parent / "outside" / "abs.ipynb")
    r = await get_findings(jp_fetch, str(outside))
    assert r.code in (403, 404)
    assert "findings" not in body(r)


async def test_dotdot_inside_root_is_allowed(jp_fetch, jp_root_dir):
    write_demo(jp_root_dir / "a" / "demo.ipynb")
    (jp_root_dir / "b").mkdir()
    r = await get_findings(jp_fetch, "b/../a/demo.ipynb")
    assert r.code == 200
    assert "NB001" in {f["rule_id"] for f in body(r)["findings"]}


async def test_symlink_to_a_file_outside_root_is_refused(jp_fetch, jp_root_dir):
    outside = write_demo(jp_root_dir.parent / "outside" / "secret.ipynb")
    os.symlink(outside, jp_root_dir / "link.ipynb")
    r = await get_findings(jp_fetch, "link.ipynb")
    assert r.code == 403
    assert body(r)["message"] == "path is outside the server root"


async def test_symlinked_folder_outside_root_is_refused(jp_fetch, jp_root_dir):
    outside = write_demo(jp_root_dir.parent / "outside" / "secret.ipynb")
    os.symlink(outside.parent, jp_root_dir / "linkdir", target_is_directory=True)
    r = await get_findings(jp_fetch, "linkdir/secret.ipynb")
    assert r.code == 403


async def test_symlink_inside_root_is_followed(jp_fetch, jp_root_dir):
    real = write_demo(jp_root_dir / "real" / "demo.ipynb")
    os.symlink(real, jp_root_dir / "alias.ipynb")
    r = await get_findings(jp_fetch, "alias.ipynb")
    assert r.code == 200
    assert body(r)["path"] == "alias.ipynb"


async def test_missing_file_is_404_json(jp_fetch, jp_root_dir):
    r = await get_findings(jp_fetch, "nope.ipynb")
    assert r.code == 404
    assert body(r)["message"] == "no such notebook: nope.ipynb"


async def test_missing_path_argument_is_400(jp_fetch):
    r = await jp_fetch("trainguard", "findings", raise_error=False)
    assert r.code == 400
    assert "path" in body(r)["message"]


async def test_hidden_file_is_not_served(jp_fetch, jp_root_dir):
    write_demo(jp_root_dir / ".hidden" / "demo.ipynb")
    r = await get_findings(jp_fetch, ".hidden/demo.ipynb")
    assert r.code == 404


async def test_corrupt_notebook_gives_nb002_not_500(jp_fetch, jp_root_dir):
    (jp_root_dir / "broken.ipynb").write_text('{"cells": [ {"cell_type": "code", "source": "x = 1"', encoding="utf-8")
    r = await get_findings(jp_fetch, "broken.ipynb")
    assert r.code == 200
    data = body(r)
    assert data["error"].startswith("not valid JSON")
    (finding,) = data["findings"]
    assert finding["rule_id"] == "NB002"
    assert finding["message"].startswith("Notebook could not be read: not valid JSON")
    assert str(jp_root_dir) not in r.body.decode()


async def test_oversized_notebook_is_not_read(jp_fetch, jp_root_dir, jp_web_app):
    write_demo(jp_root_dir / "big.ipynb")
    jp_web_app.settings["trainguard_max_bytes"] = 200
    r = await get_findings(jp_fetch, "big.ipynb")
    assert r.code == 200
    data = body(r)
    assert [f["rule_id"] for f in data["findings"]] == ["NB002"]
    assert "over the" in data["error"]


async def test_jupytext_script_findings_carry_file_lines(jp_fetch, jp_root_dir):
    script = "# %% [markdown]\n# Demo\n\n# %%\nimport math\n\n# %%\nx = 1\nprint 'x', x\n"
    (jp_root_dir / "train.py").write_text(script, encoding="utf-8")
    r = await get_findings(jp_fetch, "train.py")
    assert r.code == 200
    (nb001,) = [f for f in body(r)["findings"] if f["rule_id"] == "NB001"]
    assert nb001["location"]["file_line"] == 9
    assert nb001["location"]["cell"] == 2


def test_extension_is_enabled_by_shipped_config():
    config_d = Path(__file__).resolve().parents[2] / "jupyter-config" / "jupyter_server_config.d"
    config = config_d / "jupyter_trainguard.json"
    assert json.loads(config.read_text())["ServerApp"]["jpserver_extensions"]["jupyter_trainguard"] is True
