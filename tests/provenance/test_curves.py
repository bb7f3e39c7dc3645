"""Curves fitted to rows (scipy `curve_fit`, numpy `polyfit`) are models: evaluated on the rows they were fitted
on they score memorisation, and a trend line drawn through all the points is no evaluation at all."""

from __future__ import annotations

from jupyter_trainguard.engine import analyze_sources

PRELUDE = """import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
from scipy.optimize import curve_fit
from sklearn.metrics import mean_absolute_error
cases = pd.read_csv("series.csv")
t, n = cases["t"].values, cases["n"].values
def growth(x, a, b):
    return a * np.exp(b * x)"""


def leaks(code: str) -> list:
    return [f for f in analyze_sources([PRELUDE, code]).findings if f.rule_id.startswith("LEAK")]


def test_a_curve_scored_on_the_points_it_was_fitted_to_is_a_training_score() -> None:
    found = leaks("popt, _ = curve_fit(growth, t, n)\nprint(mean_absolute_error(n, growth(t, *popt)))")
    assert [f.rule_id for f in found] == ["LEAK007"]
    assert "`curve_fit(growth, t, n)`" in found[0].message


def test_parameters_unpacked_or_indexed_still_predict() -> None:
    code = ("t_tr, t_te, n_tr, n_te = t[:50], t[50:], n[:50], n[50:]\npopt, _ = curve_fit(growth, t, n)\n"
            "print(mean_absolute_error(n_te, growth(t_te, popt[0], popt[1])))")
    assert [f.rule_id for f in leaks(code)] == ["LEAK003"]


def test_a_trend_line_through_all_points_is_not_an_evaluation() -> None:
    code = "z = np.polyfit(t, n, 1)\nplt.plot(t, np.poly1d(z)(t))\nplt.scatter(t, n)"
    assert not leaks(code)
