"""The same notebooks give the same findings (messages, evidence, places) whatever the interpreter's string hashing:
set order varies with PYTHONHASHSEED, and a finding must never pick its statistic, split or evidence by it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "heldout" / "notebooks"


def _findings(seed: str) -> list:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    out = subprocess.run([sys.executable, "-m", "jupyter_trainguard", "scan", str(FIXTURES), "--format", "json",
                          "--fail-on", "never"], capture_output=True, text=True, env=env, timeout=300, check=True)
    found = []

    def walk(x: object) -> None:
        if isinstance(x, dict):
            if "rule_id" in x and "message" in x:
                found.append(json.dumps({k: x.get(k) for k in ("rule_id", "message", "location", "evidence")},
                                        sort_keys=True))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(json.loads(out.stdout))
    return sorted(found)


def test_findings_do_not_depend_on_string_hashing():
    first = _findings("1")
    assert sum('"LEAK' in f for f in first) >= 10 and sum('"TIME001"' in f for f in first) >= 2
    assert _findings("2") == first
    assert _findings("3") == first


def test_every_frame_gets_a_key_of_its_own_even_after_an_earlier_frame_value_is_freed() -> None:
    """A frame's key stays unique for the whole run: an object's `id()` is reused once the object is freed, so a
    later frame keyed by it could pass for an earlier one (its label column then read as still in the features)."""
    import gc

    from jupyter_trainguard.analysis.parsed import ParsedNotebook
    from jupyter_trainguard.analysis.provenance.interpreter import Interpreter
    from jupyter_trainguard.analysis.provenance.values import Val
    from jupyter_trainguard.notebook.load import notebook_from_sources

    it = Interpreter(ParsedNotebook.from_notebook(notebook_from_sources("t.ipynb", ["x = 1"])), strict=True)
    keys = set()
    for _ in range(50):
        keys.add(it.new_frame(Val("data", rows=frozenset({(("read", 1),)}))).fcols["frame"])
        gc.collect()
    assert len(keys) == 50
