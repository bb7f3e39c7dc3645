"""A splitter the analysis does not know (`for tr, te in splitter.split(df)` from another library) yields two parts
it can neither tell apart nor prove to overlap: a model fitted on one and scored on the other is no overlap leak,
while the fields of one batch of a loader (`for xb, yb in loader`) still hold the same rows. Whole notebooks
through the real engine."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

HEAD = """import pandas as pd
from sklearn.linear_model import LinearRegression
from sktime.forecasting.model_selection import ExpandingWindowSplitter
df = pd.read_csv("load.csv")
"""


def leak_rules(code: str) -> set[str]:
    return {f.rule_id for f in analyze_sources([HEAD, code]).findings if f.rule_id.startswith("LEAK")}


def test_parts_of_an_unknown_splitter_are_not_the_same_rows() -> None:
    code = ("cv = ExpandingWindowSplitter(initial_window=100)\nfor tr, te in cv.split(df):\n"
            "    m = LinearRegression().fit(tr.drop(columns='y'), tr['y'])\n"
            "    print(m.score(te.drop(columns='y'), te['y']))")
    assert not leak_rules(code)


def test_a_model_fitted_on_every_row_is_still_scored_on_its_training_rows() -> None:
    code = ("m = LinearRegression().fit(df.drop(columns='y'), df['y'])\n"
            "cv = ExpandingWindowSplitter(initial_window=100)\n"
            "for tr, te in cv.split(df):\n    print(m.score(te.drop(columns='y'), te['y']))")
    assert leak_rules(code) & {"LEAK003", "LEAK007"}
