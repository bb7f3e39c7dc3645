"""Every rule is documented, and docs/rules.md is exactly what the registry generates."""

from __future__ import annotations

import re
from pathlib import Path

from jupyter_trainguard.commands.rules_cmd import catalogue_markdown
from jupyter_trainguard.findings import CATEGORIES
from jupyter_trainguard.rules import all_rules

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_every_rule_is_documented_with_stable_id():
    rules = all_rules()
    assert len(rules) >= 40
    for r in rules:
        assert re.fullmatch(r"[A-Z]+[0-9]{3}", r.id), r.id
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name), r.name
        assert r.category in CATEGORIES
        assert r.rationale and r.impact and r.fix, r.id
        assert len(r.rationale) <= 160, f"{r.id}: the rationale should be one line"
        if r.scope == "notebook":
            assert r.bad and r.good, f"{r.id} needs a bad and a good example"
    leakage = {r.category for r in rules if r.category.startswith("leakage.")}
    assert leakage == {"leakage.preprocessing", "leakage.overlap", "leakage.multi-test", "leakage.target",
                       "leakage.temporal", "leakage.validation"}


def test_docs_rules_md_is_generated_from_the_registry():
    assert DOCS.read_text(encoding="utf-8") == catalogue_markdown(all_rules()), \
        "docs/rules.md is stale: run `trainguard rules --format docs > docs/rules.md`"


def test_rules_declare_the_fix_safety_of_their_fixers():
    from jupyter_trainguard.fix.registry import rule_fix_safety

    by_id = {r.id: r for r in all_rules()}
    mapping = rule_fix_safety()
    assert mapping, "no fixers registered"
    for rule_id, safety in mapping.items():
        assert by_id[rule_id].fix_safety == safety, rule_id
    assert {r.id for r in by_id.values() if r.fix_safety} == set(mapping)


def test_registry_first_load_is_thread_safe():
    import subprocess
    import sys

    code = (
        "import threading\n"
        "from jupyter_trainguard.rules.registry import all_rules\n"
        "counts = []\n"
        "ts = [threading.Thread(target=lambda: counts.append(len(all_rules()))) for _ in range(8)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "assert len(set(counts)) == 1 and counts[0] > 40, counts\n"
    )
    assert subprocess.run([sys.executable, "-c", code], timeout=120).returncode == 0
