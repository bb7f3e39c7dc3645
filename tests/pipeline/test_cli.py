"""`trainguard pipeline`: exit codes, output formats, inline suppression (small packages, no torch)."""

from __future__ import annotations

import json

from jupyter_trainguard.cli import main
from jupyter_trainguard.engine import Selection
from jupyter_trainguard.pipeline import check_pipeline

RUNNER = """\
def run(name: str, output_dir: str) -> dict:
    return {"status": "ok"}
"""
BROKEN = "import not_a_real_module_xyz\n"


def test_exit_codes_and_formats(components, capsys, tmp_path):
    clean = components({"runner.py": RUNNER}, '[tool.trainguard.pipeline]\ntimeout_s = 20\ntraining_loop = ""\n',
                       runner="runner.run")
    root = str(clean.root)
    assert main(["pipeline", root, "--ignore", "PHEALTH01"]) == 0
    text = capsys.readouterr().out
    assert "OK    runner" in text and "files checked: 0 error(s)" in text
    (clean.root / "comps" / "broken.py").write_text(BROKEN)
    assert main(["pipeline", root, "--ignore", "PHEALTH01", "--no-color"]) == 1
    text = capsys.readouterr().out
    assert "FAIL  broken" in text and "PHEALTH001" in text and "not_a_real_module_xyz" in text
    assert main(["pipeline", root, "--ignore", "PHEALTH01", "--fail-on", "never"]) == 0
    capsys.readouterr()
    for fmt in ("json", "sarif", "markdown"):
        out = tmp_path / f"out.{fmt}"
        assert main(["pipeline", root, "--ignore", "PHEALTH01", "-f", fmt, "-o", str(out)]) == 1
        body = out.read_text()
        assert "PHEALTH001" in body
        if fmt != "markdown":
            json.loads(body)
    assert main(["pipeline", root, "--select", "PHEALTH002"]) == 0  # only the entry points: all fine
    capsys.readouterr()


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main(["pipeline", str(tmp_path / "missing")]) == 2
    assert main(["pipeline", str(tmp_path)]) == 2
    assert "components is not set" in capsys.readouterr().err
    (tmp_path / "pyproject.toml").write_text('[tool.trainguard]\ncomponents = "nope"\n')
    assert main(["pipeline", str(tmp_path)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["pipeline", str(tmp_path), "--timeout", "0"]) == 2
    (tmp_path / "nope").mkdir()
    assert main(["pipeline", str(tmp_path), "--smoke"]) == 2
    assert "--smoke needs a [tool.trainguard.pipeline.smoke] table" in capsys.readouterr().err


def test_inline_suppression_in_component_source(components):
    leak = ("import mlflow\n\ndef log():\n    mlflow.start_run()  # trainguard: ignore[PHEALTH013]\n"
            "    mlflow.start_run()\n")
    result = check_pipeline(components({"leak.py": leak}), selection=Selection(select=("PHEALTH013",)))
    (rep,) = [r for r in result.reports if r.path.endswith("leak.py")]
    assert [f.location.line for f in rep.findings] == [5]
    assert [s.finding.location.line for s in rep.suppressed] == [4]
