"""A fit that watches only its own training rows (`validation_data=(X_train, y_train)`, a Trainer whose
`eval_dataset` is its `train_dataset`, LightGBM's `valid_sets=[dtrain]`) reports a validation loss that measures
memorisation: LEAK007 when it is the only score the model gets. Watched beside held-out rows, or with a held-out
score elsewhere, it is a training log."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

KERAS = """import numpy as np
from sklearn.model_selection import train_test_split
from tensorflow import keras
X, y = np.load("x.npy"), np.load("y.npy")
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
net = keras.Sequential([keras.layers.Dense(8), keras.layers.Dense(1)])
net.compile(optimizer="adam", loss="mse")
net.fit(X_train, y_train, epochs=5, {watch})"""

HF = """import pandas as pd
from datasets import Dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments
df = pd.read_csv("reviews.csv")
tok = AutoTokenizer.from_pretrained("bert-base-uncased")
model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
data = Dataset.from_pandas(df).map(lambda b: tok(b["text"], truncation=True), batched=True)
parts = data.train_test_split(test_size=0.2, seed=0)
args = TrainingArguments(output_dir="out", eval_strategy="epoch")
trainer = Trainer(model=model, args=args, train_dataset={train}, eval_dataset={watched})
trainer.train()"""

LGB = """import lightgbm as lgb
import pandas as pd
from sklearn.model_selection import train_test_split
df = pd.read_csv("table.csv")
X_tr, X_va, y_tr, y_va = train_test_split(df.drop(columns="y"), df["y"], random_state=0)
dtrain = lgb.Dataset(X_tr, label=y_tr)
dvalid = lgb.Dataset(X_va, label=y_va)
booster = lgb.train({{"objective": "binary"}}, dtrain, num_boost_round=100, valid_sets={watch})"""


@pytest.mark.parametrize("code, leaks", [
    (KERAS.format(watch="validation_data=(X_train, y_train)"), True),
    (KERAS.format(watch="validation_data=(X_test, y_test)"), False),
    (KERAS.format(watch="validation_data=(X_train, y_train)") + "\nprint(net.evaluate(X_test, y_test))", False),
    (HF.format(train="data", watched="data"), True),
    (HF.format(train="parts['train']", watched="parts['test']"), False),
    (LGB.format(watch="[dtrain]"), True),
    (LGB.format(watch="[dtrain, dvalid]"), False),
], ids=["keras-train", "keras-test", "keras-train-then-test-score", "hf-same", "hf-split", "lgb-train",
        "lgb-both"])
def test_watching_only_the_training_rows_is_their_score(code: str, leaks: bool) -> None:
    found = analyze_sources([code]).findings
    leak = [f for f in found if f.rule_id == "LEAK007"]
    assert bool(leak) is leaks
    if leaks:
        assert "watches the model on the very rows it trains on" in leak[0].message
