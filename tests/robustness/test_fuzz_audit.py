"""Hostile notebooks through the structured review: every part renders, in every format, without raising."""

from __future__ import annotations

import json

import pytest

from jupyter_trainguard.report.render import render
from jupyter_trainguard.report.review import audit_paths

from .mutations import STRATEGIES, hostile_notebook


@pytest.mark.parametrize("seed", range(len(STRATEGIES) * 2))
def test_audit_of_hostile_notebook_renders_everywhere(tmp_path, seed):
    name, data = hostile_notebook(seed)
    path = tmp_path / f"{name}.ipynb"
    path.write_bytes(data)
    audit, errors = audit_paths([str(path)])
    assert errors == []
    doc = json.loads(render(audit, "json"))
    assert doc
    for fmt in ("text", "md", "html"):
        out = render(audit, fmt)
        assert isinstance(out, str) and out
    assert "<img src=x onerror" not in render(audit, "html")
    assert path.read_bytes() == data  # the review never writes to what it reads
