"""Helpers for the `trainguard fix` tests: real notebooks written with nbformat, raw-byte comparisons."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from jupyter_trainguard.engine import analyze_path
from jupyter_trainguard.fix import fix_paths


def write_nb(path: Path, cells: list, minor: int = 5) -> Path:
    """cells: strings (code), ("md", text) or (code, outputs_text) tuples; code cells get outputs and counts."""
    nb = new_notebook()
    nb.nbformat_minor = minor
    n = 0
    for c in cells:
        if isinstance(c, tuple) and c[0] == "md":
            cell = new_markdown_cell(c[1])
        else:
            src, out = (c if isinstance(c, tuple) else (c, None))
            n += 1
            cell = new_code_cell(src, execution_count=n)
            if out:
                cell.outputs = [new_output("stream", name="stdout", text=out),
                                new_output("display_data", data={"text/plain": out, "image/png": "iVBORw0KGgo="},
                                           metadata={"width": 10})]
            cell.metadata["tags"] = ["keep"]
        if minor < 5:
            cell.pop("id", None)
        nb.cells.append(cell)
    nbformat.write(nb, str(path))
    return path


def canonical(text: str) -> bool:
    """Is the text exactly nbformat's serialisation of its own JSON (indent 1, sorted keys, UTF-8)?"""
    return text == json.dumps(json.loads(text), sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def src(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def assert_only_sources_changed(before: str, after: str, changed: set[int], inserted: dict[int, int]) -> None:
    """Cells not in `changed` are equal in full (outputs, metadata, ids, source); changed cells differ only in
    `source`; `inserted` maps the new file's index of each inserted cell. With nbformat's canonical layout on
    both sides, equal JSON values mean byte-identical text outside the edited sources."""
    assert canonical(before) and canonical(after)
    old, new = json.loads(before), json.loads(after)
    assert {k: v for k, v in old.items() if k != "cells"} == {k: v for k, v in new.items() if k != "cells"}
    kept = [c for i, c in enumerate(new["cells"]) if i not in inserted]
    assert len(kept) == len(old["cells"])
    for i, (a, b) in enumerate(zip(old["cells"], kept)):
        if i in changed:
            assert a["source"] != b["source"], f"cell {i + 1} should have changed"
            assert {k: v for k, v in a.items() if k != "source"} == {k: v for k, v in b.items() if k != "source"}
        else:
            assert a == b, f"cell {i + 1} changed"
    nbformat.validate(nbformat.reads(after, as_version=4))


def own_targets(path: Path, rule: str, unsafe: bool = True) -> list:
    """What the fixers' own detectors would still change for `rule` (engine cross-check off)."""
    rep = fix_paths([path], diff_only=True, unsafe=unsafe, selection=[rule], engine_rules=[])
    return [c for c in rep.changes if c.rule_id.startswith(rule)]


def engine_findings(path: Path, rule: str | None = None) -> list:
    """The engine's findings on the file as it is now (of one rule, or all)."""
    return [f for f in analyze_path(path).findings if rule is None or f.rule_id == rule]


@pytest.fixture
def nbdir(tmp_path: Path) -> Path:
    return tmp_path
