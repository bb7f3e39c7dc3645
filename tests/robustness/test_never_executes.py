"""The scanner, the review and `trainguard fix --diff` never execute or import the code they read."""

from __future__ import annotations

import sys

from jupyter_trainguard.cli import main
from jupyter_trainguard.engine import scan
from tests.engine.conftest import PYPROJECT, write_notebook

PAYLOAD = "open({marker!r}, 'w').write('executed')"


def test_scan_audit_and_fix_diff_do_not_run_notebook_or_component_code(tmp_path, capsys):
    marker = tmp_path / "PWNED"
    comp = tmp_path / "notebooks" / "components"
    comp.mkdir(parents=True)
    (comp / "__init__.py").write_text(PAYLOAD.format(marker=str(marker)))
    (comp / "experiment_runner.py").write_text(
        PAYLOAD.format(marker=str(marker)) + "\ndef run_standard_experiment(component, positions, dataset, "
                                             "output_dir):\n    return {}\n")
    (comp / "data_loading.py").write_text(PAYLOAD.format(marker=str(marker)) + "\nDATASET_SPECS = {'a': 1}\n")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    nb = write_notebook(tmp_path / "notebooks" / "01_x.ipynb", [
        "import os\n" + PAYLOAD.format(marker=str(marker)),
        "%%bash\ntouch " + str(marker),
        "!touch " + str(marker),
        "from notebooks.components.experiment_runner import run_standard_experiment\n"
        "run_standard_experiment('aversion', [1], 'a', 'outputs/x', extra=1)",
        "import random\nfrom sklearn.model_selection import train_test_split\n"
        "a, b = train_test_split(list(range(10)))",
    ])
    before = set(sys.modules)
    result = scan([tmp_path])
    assert any(f.rule_id == "PIPE004" for f in result.findings)  # the components were read...
    assert main(["audit", str(nb), "--format", "json"]) in (0, 1)
    assert main(["fix", str(nb), "--diff"]) in (0, 1)
    capsys.readouterr()
    assert not marker.exists()  # ...but nothing ran
    assert not {m for m in set(sys.modules) - before if m.startswith("notebooks")}
