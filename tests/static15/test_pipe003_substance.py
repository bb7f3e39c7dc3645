"""Issue 15, PIPE003: duplicate code across notebooks means substantial logic (a training loop, a preprocessing
function, a class, a long run of computing statements), never copied imports, plotting snippets or boilerplate."""

from __future__ import annotations

from jupyter_trainguard.engine import scan

from .nbmake import write_nb

IMPORTS = """import numpy as np
import pandas as pd
import matplotlib.pyplot as plt
import seaborn as sns
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, classification_report
import warnings
warnings.filterwarnings("ignore")
np.random.seed(42)
pd.set_option("display.max_columns", 50)"""
PLOT = """plt.figure(figsize=(8, 5))
plt.plot(history["loss"], label="train")
plt.plot(history["val_loss"], label="validation")
plt.xlabel("epoch")
plt.ylabel("loss")
plt.title("Learning curve")
plt.legend()
plt.grid(True)
plt.show()"""
PLOT_LOOP = """fig, axes = plt.subplots(2, 2, figsize=(10, 8))
for ax, col in zip(axes.flat, ["a", "b", "c", "d"]):
    ax.hist(df[col], bins=30)
    ax.set_title(col)
    ax.set_xlabel(col)
plt.tight_layout()
plt.show()"""
EXPLORE = """df.head()
df.describe()
df.info()
print(df.shape)
print(df.columns)
df["target"].value_counts()"""
CONSTANTS = 'DATA = "data/train.csv"\nSEED = 42\nEPOCHS = 10\nBATCH = 32\nLR = 0.001\nCOLUMNS = ["a", "b", "c"]'
PREP_FN = """def prepare(frame, label):
    frame = frame.dropna(subset=[label])
    frame[\"ratio\"] = frame[\"a\"] / (frame[\"b\"] + 1)
    features = frame.drop(columns=[label])
    return features, frame[label]"""
TRAIN_LOOP = """for epoch in range(EPOCHS):
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()"""
STRAIGHT = """df = pd.read_csv(DATA)
df = df[df["age"] > 0]
df["log_income"] = np.log1p(df["income"])
X = df.drop(columns=["target", "id"])
y = df["target"]
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y)"""


def _pipe003(paths) -> dict[str, list]:
    result = scan(paths)
    return {r.path: [f for f in r.findings if f.rule_id == "PIPE003"] for r in result.reports}


def test_boilerplate_copied_between_notebooks_is_not_duplicate_logic(tmp_path):
    cells = [IMPORTS, CONSTANTS, EXPLORE, PLOT, PLOT_LOOP]
    a = write_nb(tmp_path / "a.ipynb", cells)
    b = write_nb(tmp_path / "b.ipynb", cells)
    assert _pipe003([a, b]) == {str(a): [], str(b): []}


def test_short_helpers_and_plotting_functions_are_not_duplicate_logic(tmp_path):
    plot_fn = "def show_curve(h):\n" + "\n".join("    " + ln for ln in PLOT.splitlines())
    tiny_fn = "def rmse(a, b):\n    return np.sqrt(((a - b) ** 2).mean())"
    a = write_nb(tmp_path / "a.ipynb", [IMPORTS, plot_fn, tiny_fn])
    b = write_nb(tmp_path / "b.ipynb", [IMPORTS, plot_fn, tiny_fn])
    assert _pipe003([a, b]) == {str(a): [], str(b): []}


def test_copied_preprocessing_function_is_reported_even_renamed(tmp_path):
    renamed = PREP_FN.replace("prepare", "make_xy").replace("frame", "data").replace("features", "feats")
    a = write_nb(tmp_path / "a.ipynb", [IMPORTS, PREP_FN])
    b = write_nb(tmp_path / "b.ipynb", [IMPORTS, "x = 1", renamed])
    found = _pipe003([a, b])
    (fa,), (fb,) = found[str(a)], found[str(b)]
    assert (fa.location.cell, fa.location.line, fa.location.end_line) == (1, 1, 5)
    assert (fb.location.cell, fb.evidence["other_path"]) == (2, str(a))


def test_copied_training_loop_is_reported_inside_a_changed_cell(tmp_path):
    a = write_nb(tmp_path / "a.ipynb", [IMPORTS, "model.train()\n" + TRAIN_LOOP])
    b = write_nb(tmp_path / "b.ipynb", [IMPORTS, "print('training')\nlosses = []\n" + TRAIN_LOOP + "\nprint(loss)"])
    found = _pipe003([a, b])
    assert [(f.location.line, f.location.end_line) for f in found[str(a)]] == [(2, 7)]
    assert [(f.location.line, f.location.end_line) for f in found[str(b)]] == [(3, 8)]


def test_long_straight_line_preprocessing_is_reported(tmp_path):
    a = write_nb(tmp_path / "a.ipynb", [IMPORTS, CONSTANTS, STRAIGHT + "\n" + PLOT])
    b = write_nb(tmp_path / "b.ipynb", [IMPORTS, STRAIGHT])
    found = _pipe003([a, b])
    assert [(f.location.cell, f.location.line, f.location.end_line) for f in found[str(a)]] == [(2, 1, 6)]
    assert len(found[str(b)]) == 1


def test_a_few_shared_lines_are_not_enough(tmp_path):
    short = "\n".join(STRAIGHT.splitlines()[:4])
    a = write_nb(tmp_path / "a.ipynb", [IMPORTS, short + "\nmodel = LogisticRegression().fit(X, y)"])
    b = write_nb(tmp_path / "b.ipynb", [IMPORTS, short + "\nscore = accuracy_score(y, X.sum(axis=1) > 0)"])
    assert _pipe003([a, b]) == {str(a): [], str(b): []}
