"""Write demo_notebooks/impact_of_leaks.ipynb (run from the repository root; the notebook is committed).

Three leaks on one small generated churn table, each trained in a `%%guarded_train` cell that reports what the
leak did to the score: a target encoding computed on every row (clearly inflated), a scaler fitted before the
split (a small effect), and the same scaler leak under an unseeded random forest (no measurable effect: trees do
not care about scaling, and the seed spread is larger than the difference).
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().parent.parent / "demo_notebooks" / "impact_of_leaks.ipynb"

CELLS = [
    (
        "md",
        "# What did each leak do to the score?\n\n"
        "`%%guarded_train` finds leaks in the live objects; after the cell it refits *clones* of the model "
        "without each leak (on copies of the rows, RNG states restored) and puts the honest metric next to the "
        "reported one. When the refit draws randomness the notebook did not fix, it is repeated under 3 seeds "
        "and a difference inside the seed spread is reported as *no measurable effect*.",
    ),
    ("code", "%load_ext trainguard"),
    (
        "code",
        "import numpy as np\n"
        "import pandas as pd\n"
        "from sklearn.ensemble import RandomForestClassifier\n"
        "from sklearn.linear_model import LogisticRegression\n"
        "from sklearn.metrics import roc_auc_score\n"
        "from sklearn.model_selection import train_test_split\n"
        "from sklearn.preprocessing import StandardScaler\n\n"
        "rng = np.random.default_rng(7)\n"
        "n = 1500\n"
        "df = pd.DataFrame({\n"
        '    "city": rng.integers(0, 500, n),\n'
        '    "tenure": rng.integers(1, 72, n),\n'
        '    "monthly_fee": rng.lognormal(4, 0.6, n).round(2),\n'
        '    "support_calls": rng.poisson(2, n),\n'
        "})\n"
        'df["churned"] = (rng.random(n) < 0.1 + 0.008 * df["tenure"] + 0.05 * df["support_calls"])'
        ".astype(int)\n"
        "df.shape",
    ),
    (
        "md",
        "## 1. A target encoding computed on every row\n\n"
        "The churn rate per city is computed before the split, so each test row's own label is inside its "
        "feature.",
    ),
    (
        "code",
        'df["city_churn_rate"] = df.groupby("city")["churned"].transform("mean")\n'
        'X_te = df[["tenure", "monthly_fee", "support_calls", "city_churn_rate"]]\n'
        "Xe_train, Xe_test, ye_train, ye_test = train_test_split(\n"
        '    X_te, df["churned"], test_size=0.3, random_state=0)',
    ),
    (
        "code",
        "%%guarded_train --seed 0\n"
        "encoded_model = LogisticRegression(max_iter=1000)\n"
        "encoded_model.fit(Xe_train, ye_train)\n"
        "acc_encoded = encoded_model.score(Xe_test, ye_test)\n"
        'print(f"test accuracy: {acc_encoded:.3f}")',
    ),
    (
        "md",
        "## 2. A scaler fitted before the split\n\n"
        "The scaler's mean and variance include the test rows. With a strongly regularised logistic regression "
        "this moves the score a little.",
    ),
    (
        "code",
        'X_raw = df[["tenure", "monthly_fee", "support_calls"]]\n'
        "scaler = StandardScaler()\n"
        "X_scaled = scaler.fit_transform(X_raw)\n"
        "Xs_train, Xs_test, ys_train, ys_test = train_test_split(\n"
        '    X_scaled, df["churned"], test_size=0.3, random_state=0)',
    ),
    (
        "code",
        "%%guarded_train --seed 0\n"
        "scaled_model = LogisticRegression(C=0.01)\n"
        "scaled_model.fit(Xs_train, ys_train)\n"
        "auc_scaled = roc_auc_score(ys_test, scaled_model.predict_proba(Xs_test)[:, 1])\n"
        'print(f"test ROC AUC: {auc_scaled:.6f}")',
    ),
    (
        "md",
        "## 3. The same scaler leak, an unseeded random forest\n\n"
        "Trees split on thresholds, so rescaling changes nothing; the forest is not seeded, so its score moves "
        "from run to run. The refit is repeated under 3 seeds (6 fits, so this cell gives it a 30 s budget instead "
        "of the default 2x the cell's time + 2 s) and the verdict is *no measurable effect*.",
    ),
    (
        "code",
        "%%guarded_train --impact-budget 30\n"
        "forest = RandomForestClassifier(n_estimators=60)\n"
        "forest.fit(Xs_train, ys_train)\n"
        "acc_forest = forest.score(Xs_test, ys_test)\n"
        'print(f"test accuracy: {acc_forest:.3f}")',
    ),
    (
        "md",
        "## The same from the review, and for a notebook on disk\n\n"
        "`%trainaudit --impact` measures the leaks of the session within a time budget and shows them in the "
        "findings table (impact column); the JSON report carries them in each finding's `evidence.impact`.",
    ),
    ("code", "%trainaudit --impact --format text --no-log"),
    (
        "md",
        "On disk, without a live kernel: `trainguard fix --verify --unsafe impact_of_leaks.ipynb` runs the "
        "notebook before and after the fixes in a real kernel (on copies) and prints the metrics that changed, "
        "cell by cell.",
    ),
]


def build() -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.cells = [new_markdown_cell(src) if kind == "md" else new_code_cell(src) for kind, src in CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


if __name__ == "__main__":
    nbformat.write(build(), OUT)
    print(f"wrote {OUT}")
