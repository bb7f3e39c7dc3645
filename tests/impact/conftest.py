"""A real IPython shell with trainguard loaded, and the small generated churn table the impact tests train on."""

from __future__ import annotations

import pytest

from tests.ipshell import Shell as BaseShell
from tests.ipshell import loaded_shell

DATA = """
import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

rng = np.random.default_rng(7)
n = 1500
df = pd.DataFrame({
    "city": rng.integers(0, 500, n),
    "tenure": rng.integers(1, 72, n),
    "monthly_fee": rng.lognormal(4, 0.6, n).round(2),
    "support_calls": rng.poisson(2, n),
})
df["churned"] = (rng.random(n) < 0.1 + 0.008 * df["tenure"] + 0.05 * df["support_calls"]).astype(int)
"""

TARGET_ENCODING = """
df["city_churn_rate"] = df.groupby("city")["churned"].transform("mean")
X = df[["tenure", "monthly_fee", "support_calls", "city_churn_rate"]]
X_train, X_test, y_train, y_test = train_test_split(X, df["churned"], test_size=0.3, random_state=0)
"""

SCALER_LEAK = """
X_raw = df[["tenure", "monthly_fee", "support_calls"]]
scaler = StandardScaler()
X_scaled = scaler.fit_transform(X_raw)
X_train, X_test, y_train, y_test = train_test_split(X_scaled, df["churned"], test_size=0.3, random_state=0)
"""


class Shell(BaseShell):
    @property
    def last(self):
        return self.ip.user_ns["_trainguard_last"]

    def impacts(self, findings=None) -> dict[str, dict]:
        """rule id -> impact record of the findings that carry one."""
        findings = self.last.findings if findings is None else findings
        return {f.rule_id: f.evidence["impact"] for f in findings if "impact" in f.evidence}


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with loaded_shell(Shell) as sh:
        sh.run(DATA)
        yield sh
