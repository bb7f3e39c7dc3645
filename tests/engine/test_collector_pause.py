"""The cyclic garbage collector's young collections are spaced out while a notebook is analysed, and its
thresholds come back afterwards, whatever they were, whether the analysis succeeds or a rule fails, and when
analyses overlap in threads."""

from __future__ import annotations

import gc
import threading

import pytest

import jupyter_trainguard.engine as engine
from jupyter_trainguard.engine import analyze_sources

CODE = ["import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\ndf = pd.read_csv('d.csv')",
        "m = LogisticRegression().fit(df[['a']], df['y'])\nprint(m.score(df[['a']], df['y']))"]


@pytest.fixture
def thresholds():
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)


def test_young_collections_are_spaced_out_during_the_analysis_and_restored(thresholds, monkeypatch) -> None:
    seen = []
    real = engine._analyze_notebook

    def spy(*args, **kwargs):
        seen.append(gc.get_threshold())
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "_analyze_notebook", spy)
    gc.set_threshold(700, 10, 10)
    report = analyze_sources(CODE)
    assert seen == [(engine.GC_YOUNG_THRESHOLD, 10, 10)] and gc.get_threshold() == (700, 10, 10)
    assert any(f.rule_id == "LEAK007" for f in report.findings)  # the analysis itself ran as usual


def test_a_larger_threshold_of_the_callers_is_kept_and_the_collector_left_as_it_was(thresholds) -> None:
    gc.set_threshold(10 * engine.GC_YOUNG_THRESHOLD, 5, 5)
    was = gc.isenabled()
    analyze_sources(CODE)
    assert gc.get_threshold() == (10 * engine.GC_YOUNG_THRESHOLD, 5, 5) and gc.isenabled() == was


def test_the_thresholds_come_back_when_the_analysis_raises(thresholds, monkeypatch) -> None:
    def boom(*args, **kwargs):
        raise RuntimeError("rule failed")

    monkeypatch.setattr(engine, "_analyze_notebook", boom)
    gc.set_threshold(700, 10, 10)
    with pytest.raises(RuntimeError):
        analyze_sources(CODE)
    assert gc.get_threshold() == (700, 10, 10)


def test_overlapping_analyses_in_threads_restore_the_thresholds_once_all_end(thresholds) -> None:
    gc.set_threshold(700, 10, 10)
    threads = [threading.Thread(target=analyze_sources, args=(CODE,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert gc.get_threshold() == (700, 10, 10)
