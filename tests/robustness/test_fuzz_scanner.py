"""Hostile notebooks never crash the scanner: each gives a report with findings or a clear error, quickly."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_trainguard.engine import analyze_notebook, scan
from jupyter_trainguard.findings import Report
from jupyter_trainguard.notebook import notebook_from_bytes

from .mutations import STRATEGIES, hostile_notebook

TIME_BOUND_S = 30.0  # generous: CI machines are shared; typical cases take milliseconds


def check_report(rep: Report) -> None:
    assert isinstance(rep, Report)
    if rep.error:
        assert any(f.rule_id == "NB002" for f in rep.findings)
    for f in rep.findings:
        assert f.rule_id and f.message and f.fix
    internal = {rid: why for rid, why in rep.skipped_rules.items() if why.startswith("internal error")}
    assert not internal, f"rules crashed: {internal}"


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(min_value=0, max_value=10**6))
def test_hostile_notebooks_never_crash(seed):
    name, data = hostile_notebook(seed)
    t0 = time.perf_counter()
    rep, _, _ = analyze_notebook(notebook_from_bytes(f"fuzz_{name}.ipynb", data))
    assert time.perf_counter() - t0 < TIME_BOUND_S, name
    check_report(rep)


def test_every_strategy_at_least_once():
    for i in range(len(STRATEGIES)):
        name, data = hostile_notebook(i)
        rep, _, _ = analyze_notebook(notebook_from_bytes(f"fuzz_{name}.ipynb", data))
        check_report(rep)


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=2048))
def test_arbitrary_bytes_as_ipynb_and_py(data):
    for suffix in (".ipynb", ".py"):
        rep, _, _ = analyze_notebook(notebook_from_bytes("x" + suffix, data))
        check_report(rep)


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_cell_text(src):
    from jupyter_trainguard.engine import analyze_sources

    check_report(analyze_sources([src, "x = 1\n" + src]))


def test_batch_with_hostile_files_scans_the_rest(tmp_path):
    for i in range(len(STRATEGIES)):
        name, data = hostile_notebook(i)
        (tmp_path / f"{i:02}_{name}.ipynb").write_bytes(data)
    (tmp_path / "zz_good.ipynb").write_text(
        '{"cells": [{"cell_type": "code", "source": "LR = 0", "metadata": {}, "outputs": [], '
        '"execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    result = scan([tmp_path])
    assert len(result.reports) == len(STRATEGIES) + 1
    good = next(r for r in result.reports if r.path.endswith("zz_good.ipynb"))
    assert [f.rule_id for f in good.findings] == ["CFG002"]


def test_scanning_never_modifies_files(tmp_path):
    before = {}
    for i in range(len(STRATEGIES)):
        _, data = hostile_notebook(100 + i)
        p = tmp_path / f"{i}.ipynb"
        p.write_bytes(data)
        before[p] = data
    scan([tmp_path])
    assert {p: p.read_bytes() for p in before} == before
