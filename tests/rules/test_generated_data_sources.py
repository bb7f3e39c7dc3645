"""Data made inside the notebook (random draws, frames built from arrays) is tracked like data that was read."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

IMPORTS = ("import numpy as np\nimport pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
           "from sklearn.model_selection import train_test_split\nfrom sklearn.linear_model import LogisticRegression")

MAKERS = {
    "frame_from_generator": "rng = np.random.default_rng(0)\n"
                            "df = pd.DataFrame(rng.normal(size=(200, 3)), columns=['a', 'b', 'c'])\n"
                            "df['y'] = (df.a > 0).astype(int)\nX = df[['a', 'b', 'c']]\ny = df['y']",
    "legacy_global_draws": "np.random.seed(0)\nX = np.random.rand(200, 3)\ny = (X[:, 0] > 0.5).astype(int)",
    "stacked_arrays": "a = np.random.randn(100, 2)\nb = np.random.randn(100, 2) + 1\nX = np.vstack([a, b])\n"
                      "y = np.array([0] * 100 + [1] * 100)",
}


def rule_ids(cells: list[str]) -> set[str]:
    return {f.rule_id for f in analyze_sources(cells).findings}


@pytest.mark.parametrize("maker", sorted(MAKERS))
def test_scaling_generated_data_before_the_split_is_leakage(maker):
    leaky = "X_s = StandardScaler().fit_transform(X)\n" \
            "X_tr, X_te, y_tr, y_te = train_test_split(X_s, y, random_state=0)\n" \
            "clf = LogisticRegression().fit(X_tr, y_tr)\nprint(clf.score(X_te, y_te))"
    assert "LEAK001" in rule_ids([IMPORTS, MAKERS[maker], leaky])


@pytest.mark.parametrize("maker", sorted(MAKERS))
def test_scaling_generated_data_after_the_split_is_clean(maker):
    clean = "X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)\nsc = StandardScaler().fit(X_tr)\n" \
            "clf = LogisticRegression().fit(sc.transform(X_tr), y_tr)\nprint(clf.score(sc.transform(X_te), y_te))"
    assert "LEAK001" not in rule_ids([IMPORTS, MAKERS[maker], clean])
