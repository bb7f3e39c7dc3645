"""What the impact refit adds to a `%%guarded_train` cell, next to the budget it must stay within.

For each case (a leak kind x a model x a table size), in a real IPython shell: the guarded training cell runs with
the impact measurement on; the run records the cell's own time, the default budget (2x the cell's time + 2 s) and
the time the refits took. Printed side by side with their ratio; a case whose refits exceed the budget is marked.
The last column is the honest metric change each leak was measured to make.

Run: python benchmarks/impact_cost.py [--rows 2000,20000,100000] [--only target,scaler,forest]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DATA = """
import numpy as np, pandas as pd
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
rng = np.random.default_rng(7)
n = {rows}
df = pd.DataFrame({{"city": rng.integers(0, n // 3, n), "tenure": rng.integers(1, 72, n),
                   "monthly_fee": rng.lognormal(4, 0.6, n), "support_calls": rng.poisson(2, n)}})
df["churned"] = (rng.random(n) < 0.1 + 0.008 * df["tenure"] + 0.05 * df["support_calls"]).astype(int)
"""
CASES = {
    "target": (
        "target encoding on every row, LogisticRegression, accuracy",
        'df["rate"] = df.groupby("city")["churned"].transform("mean")\n'
        'X = df[["tenure", "monthly_fee", "support_calls", "rate"]]\n'
        'X_train, X_test, y_train, y_test = train_test_split(X, df["churned"], test_size=0.3, random_state=0)',
        "%%guarded_train --quiet\nmodel = LogisticRegression(max_iter=1000)\nmodel.fit(X_train, y_train)\n"
        "acc = model.score(X_test, y_test)",
        "LEAK006",
    ),
    "scaler": (
        "scaler fitted before the split, LogisticRegression(C=0.01), ROC AUC",
        'X_raw = df[["tenure", "monthly_fee", "support_calls"]]\nscaler = StandardScaler()\n'
        "X_scaled = scaler.fit_transform(X_raw)\n"
        'X_train, X_test, y_train, y_test = train_test_split(X_scaled, df["churned"], test_size=0.3, '
        "random_state=0)",
        "%%guarded_train --quiet\nmodel = LogisticRegression(C=0.01)\nmodel.fit(X_train, y_train)\n"
        "auc = roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])",
        "DATA003",
    ),
    "forest": (
        "scaler fitted before the split, unseeded RandomForest (3 seeds x 2 refits), accuracy",
        'X_raw = df[["tenure", "monthly_fee", "support_calls"]]\nscaler = StandardScaler()\n'
        "X_scaled = scaler.fit_transform(X_raw)\n"
        'X_train, X_test, y_train, y_test = train_test_split(X_scaled, df["churned"], test_size=0.3, '
        "random_state=0)",
        "%%guarded_train --quiet\nforest = RandomForestClassifier(n_estimators=50, n_jobs=1)\n"
        "forest.fit(X_train, y_train)\nacc = forest.score(X_test, y_test)",
        "DATA003",
    ),
}


def measure(case: str, rows: int, impact: bool = True) -> dict:
    """One guarded run of the case in a fresh shell: the cell's own time, the wall time and the impact record."""
    from jupyter_trainguard.impact.session import cell_seconds
    from tests.ipshell import loaded_shell

    _, prep, cell, rule = CASES[case]
    if not impact:
        cell = cell.replace("--quiet", "--quiet --no-impact", 1)
    with loaded_shell() as sh:
        sh.run(DATA.format(rows=rows))
        sh.run(prep)
        t0 = time.perf_counter()
        sh.run(cell)
        wall = time.perf_counter() - t0
        run = sh.ns["_trainguard_last"]
        rec = next((f.evidence["impact"] for f in run.findings if f.rule_id == rule and "impact" in f.evidence), None)
    return {"cell": cell_seconds(run), "wall": wall, "rec": rec}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", default="2000,20000,100000")
    p.add_argument("--only", default=",".join(CASES))
    args = p.parse_args()
    print(
        f"{'case':7} {'rows':>6} {'cell s':>6} {'budget s':>8} {'refit s':>7} {'added s':>7} {'added/budget':>12} "
        f"{'within':6}  measured change"
    )
    worst = 0.0
    for case in args.only.split(","):
        for rows in (int(r) for r in args.rows.split(",")):
            plain = measure(case, rows, impact=False)  # the same guarded cell without the impact, side by side
            m = measure(case, rows)
            rec = m["rec"]
            added = m["wall"] - plain["wall"]
            budget = rec.get("budget_s", 0.0)
            refit = f"{rec['seconds']:7.2f}" if "seconds" in rec else f"{'-':>7}"
            ratio = added / budget if budget else float("nan")
            worst = max(worst, ratio)
            print(
                f"{case:7} {rows:>6} {m['cell']:6.2f} {budget:8.2f} {refit} {added:7.2f} {ratio:12.2f} "
                f"{'yes' if ratio <= 1 else 'NO':6}  {rec['summary']}"
            )
    print(
        f"\nworst added/budget: {worst:.2f}  (added = wall time of the guarded cell with the impact minus without it, "
        "each in a fresh shell; budget = 2x the cell's own time + 2 s; memory budget 1 GiB)"
    )
    for case in args.only.split(","):
        print(f"  {case}: {CASES[case][0]}")


if __name__ == "__main__":
    main()
