"""The cyclic garbage collector is held off while a notebook is analysed and restored afterwards, whatever it
was before and whether the analysis succeeds or a rule fails."""

from __future__ import annotations

import gc

import pytest

from jupyter_trainguard.engine import analyze_sources

CODE = ["import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\ndf = pd.read_csv('d.csv')",
        "m = LogisticRegression().fit(df[['a']], df['y'])\nprint(m.score(df[['a']], df['y']))"]


@pytest.fixture
def collector():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_paused_during_the_analysis_and_restored(collector, monkeypatch) -> None:
    import jupyter_trainguard.engine as engine

    seen = []
    real = engine._analyze_notebook

    def spy(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "_analyze_notebook", spy)
    gc.enable()
    report = analyze_sources(CODE)
    assert seen == [False] and gc.isenabled()
    assert any(f.rule_id == "LEAK007" for f in report.findings)  # the analysis itself ran as usual


def test_a_collector_the_caller_turned_off_stays_off(collector) -> None:
    gc.disable()
    analyze_sources(CODE)
    assert not gc.isenabled()


def test_the_collector_comes_back_when_the_analysis_raises(collector, monkeypatch) -> None:
    import jupyter_trainguard.engine as engine

    def boom(*args, **kwargs):
        raise RuntimeError("rule failed")

    monkeypatch.setattr(engine, "_analyze_notebook", boom)
    gc.enable()
    with pytest.raises(RuntimeError):
        analyze_sources(CODE)
    assert gc.isenabled()
