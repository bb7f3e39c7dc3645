"""Hostile notebooks through the REST endpoint: always a JSON answer with findings or a clear error, never a 500."""

from __future__ import annotations

import json

import pytest

from tests.robustness.mutations import STRATEGIES, hostile_notebook


@pytest.mark.parametrize("seed", range(len(STRATEGIES)))
async def test_endpoint_answers_hostile_notebooks_with_json(jp_fetch, jp_root_dir, seed):
    name, data = hostile_notebook(seed)
    (jp_root_dir / f"h{seed}.ipynb").write_bytes(data)
    response = await jp_fetch("trainguard", "findings", params={"path": f"h{seed}.ipynb"}, raise_error=False)
    assert response.code == 200, (name, response.code, response.body[:300])
    doc = json.loads(response.body)
    assert "findings" in doc
    if doc.get("error"):
        assert any(f["rule_id"] == "NB002" for f in doc["findings"])
    assert (jp_root_dir / f"h{seed}.ipynb").read_bytes() == data
