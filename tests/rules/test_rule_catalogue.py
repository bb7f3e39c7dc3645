"""The issue-3 rules are registered with complete documentation and the catalogue's ids."""

from __future__ import annotations

import re

from jupyter_trainguard.rules.registry import all_rules

IDS = ["LEAK001", "LEAK002", "LEAK003", "LEAK004", "LEAK005", "LEAK006", "EVAL001", "TIME001", "SEED001",
       "SEED002", "SEED003", "SEED004", "SEED005", "DET001", "DET002", "CKPT001", "CKPT002", "CKPT003", "TRACK001",
       "TRACK002", "TRACK003", "ENV001", "TRAIN001", "TRAIN002"]


def test_all_static_rules_registered_with_docs():
    rules = {r.id: r for r in all_rules()}
    for rid in IDS:
        r = rules[rid]
        assert r.scope == "notebook" and r.check is not None
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", r.name), r.name
        assert r.rationale and r.fix and r.impact and r.bad and r.good and r.docs, rid


def test_severities_and_categories():
    rules = {r.id: r for r in all_rules()}
    for rid in ("LEAK001", "LEAK002", "LEAK003", "LEAK004", "LEAK006", "TIME001"):
        assert rules[rid].severity.value == "error"
        assert rules[rid].category.startswith("leakage.")
    assert rules["LEAK005"].severity.value == "warning"
    assert rules["ENV001"].severity.value == "warning"
    assert {rules[r].category for r in ("LEAK002", "LEAK003")} == {"leakage.overlap"}
    assert rules["TIME001"].category == "leakage.temporal"


def test_scanning_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys\nfrom jupyter_trainguard.engine import analyze_sources\n"
            "analyze_sources(['import torch\\nm = torch.nn.Linear(2, 2)\\nm(torch.ones(2)).sum().backward()'])\n"
            "print('torch' in sys.modules, 'sklearn' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False False", out.stderr
