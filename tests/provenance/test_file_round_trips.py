# ruff: noqa: E501  (the bad/good pairs read best one statement per line)
"""Values the notebook writes to a file and reads back keep their rows, statistics and fits; folders read as
image datasets are the data they hold. Bad/good pairs, whole notebooks through the real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

from .pairs import check_pair, leak_ids

SK = """import pickle
import joblib
import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score
df = pd.read_csv("data.csv")
X, y = df.drop(columns="label"), df["label"]"""

PAIRS = [
    ("text-lines-written-then-read-back", "LEAK001",
     "from sklearn.feature_extraction.text import TfidfVectorizer\ntr, te = train_test_split(df, random_state=0)\n"
     "with open('held.txt', 'w') as fp:\n    for t in te['text']:\n        fp.write(t + '\\n')\nvec = TfidfVectorizer().fit(df['text'])\n"
     "m = LogisticRegression().fit(vec.transform(tr['text']), tr['label'])\n# %%\n"
     "with open('held.txt') as fp:\n    lines = [l.strip() for l in fp.readlines()]\nprint(accuracy_score(te['label'], m.predict(vec.transform(lines))))",
     "from sklearn.feature_extraction.text import TfidfVectorizer\ntr, te = train_test_split(df, random_state=0)\n"
     "with open('held.txt', 'w') as fp:\n    for t in te['text']:\n        fp.write(t + '\\n')\nvec = TfidfVectorizer().fit(tr['text'])\n"
     "m = LogisticRegression().fit(vec.transform(tr['text']), tr['label'])\n# %%\n"
     "with open('held.txt') as fp:\n    lines = [l.strip() for l in fp.readlines()]\nprint(accuracy_score(te['label'], m.predict(vec.transform(lines))))"),
    ("pickle-handle-round-trip", "LEAK001",
     "X = StandardScaler().fit_transform(X)\nwith open('features.pkl', 'wb') as f:\n    pickle.dump(X, f)\n# %%\n"
     "with open('features.pkl', 'rb') as f:\n    X2 = pickle.load(f)\nXtr, Xte, ytr, yte = train_test_split(X2, y)\n"
     "m = LogisticRegression().fit(Xtr, ytr)\nprint(accuracy_score(yte, m.predict(Xte)))",
     "with open('features.pkl', 'wb') as f:\n    pickle.dump(X, f)\n# %%\n"
     "with open('features.pkl', 'rb') as f:\n    X2 = pickle.load(f)\nXtr, Xte, ytr, yte = train_test_split(X2, y)\n"
     "sc = StandardScaler().fit(Xtr)\nm = LogisticRegression().fit(sc.transform(Xtr), ytr)\n"
     "print(accuracy_score(yte, m.predict(sc.transform(Xte))))"),
    ("pickle-keywords-round-trip", "LEAK007",
     "m = LogisticRegression().fit(X, y)\nwith open('model.pkl', 'wb') as f:\n    pickle.dump(obj=m, file=f)\n# %%\n"
     "with open('model.pkl', 'rb') as f:\n    m2 = pickle.load(f)\nprint(accuracy_score(y, m2.predict(X)))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = LogisticRegression().fit(Xtr, ytr)\n"
     "with open('model.pkl', 'wb') as f:\n    pickle.dump(obj=m, file=f)\n# %%\n"
     "with open('model.pkl', 'rb') as f:\n    m2 = pickle.load(f)\nprint(accuracy_score(yte, m2.predict(Xte)))"),
    ("csv-round-trip-path-in-a-name", "LEAK001",
     "PATH = './clean.csv'\ndf = df.fillna(df.mean())\ndf.to_csv(PATH, index=False)\n# %%\n"
     "clean = pd.read_csv('clean.csv')\ntr, te = train_test_split(clean)\n"
     "m = LogisticRegression().fit(tr.drop(columns='label'), tr['label'])\n"
     "print(m.score(te.drop(columns='label'), te['label']))",
     "PATH = './clean.csv'\ndf.to_csv(PATH, index=False)\n# %%\n"
     "clean = pd.read_csv('clean.csv')\ntr, te = train_test_split(clean)\ntr = tr.fillna(tr.mean())\n"
     "te = te.fillna(tr.mean())\nm = LogisticRegression().fit(tr.drop(columns='label'), tr['label'])\n"
     "print(m.score(te.drop(columns='label'), te['label']))"),
    ("numpy-save-load", "LEAK001",
     "Z = StandardScaler().fit_transform(X)\nnp.save('z.npy', Z)\n# %%\nZ = np.load('z.npy')\n"
     "Ztr, Zte, ytr, yte = train_test_split(Z, y)\nprint(LogisticRegression().fit(Ztr, ytr).score(Zte, yte))",
     "Ztr, Zte, ytr, yte = train_test_split(X, y)\nsc = StandardScaler().fit(Ztr)\nnp.save('te.npy', sc.transform(Zte))\n"
     "# %%\nZte = np.load('te.npy')\nprint(LogisticRegression().fit(sc.transform(Ztr), ytr).score(Zte, yte))"),
    ("joblib-model-round-trip", "LEAK007",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = LogisticRegression().fit(Xtr, ytr)\njoblib.dump(m, 'model.joblib')\n"
     "# %%\nloaded = joblib.load('model.joblib')\nprint(accuracy_score(ytr, loaded.predict(Xtr)))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = LogisticRegression().fit(Xtr, ytr)\njoblib.dump(m, 'model.joblib')\n"
     "# %%\nloaded = joblib.load('model.joblib')\nprint(accuracy_score(yte, loaded.predict(Xte)))"),
    ("split-parts-written-apart", "LEAK001",
     "X = StandardScaler().fit_transform(X)\nXtr, Xte, ytr, yte = train_test_split(X, y)\n"
     "np.save('xtr.npy', Xtr)\nnp.save('xte.npy', Xte)\n# %%\nA, B = np.load('xtr.npy'), np.load('xte.npy')\n"
     "print(LogisticRegression().fit(A, ytr).score(B, yte))",
     "Xtr, Xte, ytr, yte = train_test_split(X, y)\nnp.save('xtr.npy', Xtr)\nnp.save('xte.npy', Xte)\n# %%\n"
     "A, B = np.load('xtr.npy'), np.load('xte.npy')\nsc = StandardScaler().fit(A)\n"
     "print(LogisticRegression().fit(sc.transform(A), ytr).score(sc.transform(B), yte))"),
]


@pytest.mark.parametrize("case, rule, bad, good", PAIRS, ids=[p[0] for p in PAIRS])
def test_values_read_back_from_files(case: str, rule: str, bad: str, good: str) -> None:
    check_pair(SK, case, rule, bad, good)


def test_a_file_never_written_here_is_new_data() -> None:
    """Only a path the notebook wrote carries what was written: another path is rows of their own."""
    code = ("X = StandardScaler().fit_transform(X)\nnp.save('all.npy', X)\n# %%\n"
            "A = np.load('other.npy')\nAtr, Ate, ytr, yte = train_test_split(A, y)\n"
            "print(LogisticRegression().fit(Atr, ytr).score(Ate, yte))")
    assert not leak_ids(SK, code)


def test_a_reloaded_model_scored_again_is_one_configuration() -> None:
    """The model saved and loaded back is the model, not a second one compared on the test rows."""
    code = ("Xtr, Xte, ytr, yte = train_test_split(X, y)\nm = LogisticRegression().fit(Xtr, ytr)\n"
            "print(m.score(Xte, yte))\npickle.dump(m, open('m.pkl', 'wb'))\n# %%\n"
            "m2 = pickle.load(open('m.pkl', 'rb'))\nprint(accuracy_score(yte, m2.predict(Xte)))\n"
            "# %%\nother = LogisticRegression(C=0.1).fit(Xtr, ytr)\n")
    rep = analyze_sources([SK] + code.split("\n# %%\n"))
    assert not [f for f in rep.findings if f.rule_id in ("LEAK004", "LEAK005")]
    compared = code + "\nprint(other.score(Xte, yte))"
    rep = analyze_sources([SK] + compared.split("\n# %%\n"))
    assert [f for f in rep.findings if f.rule_id == "LEAK005"]


TORCH = """import torch
import torchvision
from torch.utils.data import DataLoader
tf = torchvision.transforms.ToTensor()"""

LOOP = """model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(3 * 32 * 32, 2))
opt = torch.optim.Adam(model.parameters())
for xb, yb in train_loader:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(xb), yb)
    loss.backward()
    opt.step()
# %%
model.eval()
correct = 0
with torch.no_grad():
    for xb, yb in eval_loader:
        correct += (model(xb).argmax(1) == yb).sum().item()
print(correct)"""


@pytest.mark.parametrize("eval_root, leaks", [("'data/train'", True), ("'data/test'", False)])
def test_image_folders_are_the_folders_they_read(eval_root: str, leaks: bool) -> None:
    code = (f"train_loader = DataLoader(torchvision.datasets.ImageFolder('data/train', transform=tf), batch_size=8)\n"
            f"eval_loader = DataLoader(torchvision.datasets.ImageFolder(root={eval_root}, transform=tf), batch_size=8)\n"
            "# %%\n" + LOOP)
    rep = analyze_sources([TORCH] + code.split("\n# %%\n"))
    assert ("LEAK007" in {f.rule_id for f in rep.findings}) is leaks


LOADED = """import pandas as pd
from tensorflow.keras.models import Sequential, load_model
from tensorflow.keras.layers import Dense
from sklearn.metrics import accuracy_score
train, test = pd.read_csv("train.csv"), pd.read_csv("test.csv")
X, y, Xt, yt = train[["a", "b"]].values, train["y"].values, test[["a", "b"]].values, test["y"].values
net = Sequential([Dense(8, activation="relu"), Dense(1, activation="sigmoid")])
net.compile(optimizer="adam", loss="binary_crossentropy")
net.fit(X, y, epochs=10)
{save}
print(accuracy_score(yt, net.predict(Xt) > 0.5))
other = load_model("{path}")
print(accuracy_score(yt, other.predict(Xt) > 0.5))"""


def test_a_network_loaded_from_a_file_the_notebook_never_writes_is_another_model() -> None:
    """Trained elsewhere (another notebook wrote `cnn_v2.h5`): scored beside this notebook's network on the test
    rows, it is a second configuration; the notebook's own network saved and reloaded is the same one."""
    def multi(save: str, path: str) -> bool:
        code = LOADED.format(save=save, path=path).replace('load_model("<config>")', "load_model(config.path)")
        return any(f.rule_id == "LEAK005" for f in analyze_sources([code]).findings)
    assert multi("", "cnn_v2.h5")
    assert not multi("net.save('mine.h5')", "mine.h5")
    assert not multi("", "<config>")  # no literal path: unknown, nothing is assumed
