"""A dataset class counts its items by one of its arguments (`__len__` returns `len(self.ids)`) and looks each
item up in a whole table (`self.emb[self.ids[i]]`): its rows are the counted ones, so datasets built from two parts
of a split of ids share no rows however large the table beside them. A dictionary built over a split part's items
(`{i: labels[i] for i in train_ids}`) holds that part's rows. A frozen copy of a network called inside a training
loop only makes targets for the loss being minimised (a teacher): nothing is scored. Whole notebooks through the
real engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

HEAD = """import copy
import json
import torch
from torch import nn
from torch.utils.data import Dataset, DataLoader
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
with open("labels.json") as f:
    labels = json.load(f)
emb = torch.load("embeddings.pt")
class ById(Dataset):
    def __init__(self, by_id, table):
        self.ids = list(by_id.keys())
        self.table = table
        self.y = [by_id[i] for i in self.ids]
    def __len__(self):
        return len(self.ids)
    def __getitem__(self, i):
        return self.table[self.ids[i]], self.y[i]
ids = list(labels.keys())
tr_ids, va_ids = train_test_split(ids, test_size=0.2, random_state=0)
tr_lab = {i: labels[i] for i in tr_ids}
va_lab = {i: labels[i] for i in va_ids}
train_ld = DataLoader(ById(tr_lab, emb), batch_size=64, shuffle=True)
val_ld = DataLoader(ById(VAL, emb), batch_size=64)
net = nn.Linear(128, 5)
opt = torch.optim.Adam(net.parameters())
loss_fn = nn.CrossEntropyLoss()
for epoch in range(5):
    net.train()
    for x, y in train_ld:
        opt.zero_grad()
        loss_fn(net(x), y).backward()
        opt.step()"""

SCORE = """net.eval()
preds, truth = [], []
with torch.no_grad():
    for x, y in val_ld:
        preds.append(net(x).argmax(1))
        truth.append(y)
print(f1_score(torch.cat(truth), torch.cat(preds), average="micro"))"""


def rules(*cells: str) -> set[str]:
    return {f.rule_id for f in analyze_sources(list(cells)).findings if f.rule_id.startswith("LEAK")}


def test_datasets_of_two_parts_of_split_ids_share_no_rows_through_their_lookup_table() -> None:
    assert not rules(HEAD.replace("VAL", "va_lab"), SCORE)


def test_a_dataset_of_the_training_ids_scored_is_a_training_score() -> None:
    """The rule never hides an overlap: the same counted ids on both sides are the same rows."""
    assert "LEAK007" in rules(HEAD.replace("VAL", "tr_lab"), SCORE)


@pytest.mark.parametrize("val", ["va_lab", "tr_lab"])
def test_a_dictionary_over_a_split_part_holds_that_part(val: str) -> None:
    """`{i: labels[i] for i in tr_ids}`: one entry per id of the part, so the two dictionaries are the two parts
    (as a plain model's training and scored data, with no dataset class between)."""
    code = HEAD.replace("VAL", val) + (
        "\nfrom sklearn.linear_model import LogisticRegression\n"
        "X_tr, y_tr = [emb[i] for i in tr_lab], list(tr_lab.values())\n"
        f"X_va, y_va = [emb[i] for i in {val}], list({val}.values())\n"
        "clf = LogisticRegression().fit(X_tr, y_tr)\nprint(f1_score(y_va, clf.predict(X_va), average='micro'))")
    found = rules(code)
    assert ("LEAK007" in found) == (val == "tr_lab")


TEACHER = """teacher = copy.deepcopy(net)
for epoch in range(5):
    net.train()
    for x, y in train_ld:
        with torch.no_grad():
            target = teacher(x)
        out = net(x)
        loss = loss_fn(out, y) + nn.functional.mse_loss(out, target)
        opt.zero_grad()
        loss.backward()
        opt.step()"""


def test_a_teachers_outputs_in_the_training_loss_score_nothing() -> None:
    """The frozen copy predicts its own training rows only to make targets for the loss the student minimises."""
    assert not rules(HEAD.replace("VAL", "va_lab"), TEACHER, SCORE)
    scored = SCORE.replace("net(x)", "teacher(x)").replace("net.eval()", "teacher.eval()")
    assert not rules(HEAD.replace("VAL", "va_lab"), TEACHER, scored)
    assert "LEAK007" in rules(HEAD.replace("VAL", "tr_lab"), TEACHER, scored)  # scored outside the loss: counted


def test_a_held_out_loss_inside_a_full_batch_training_loop_still_chooses() -> None:
    """Only the outputs feeding the minimised loss are targets: a test loss computed in the same loop and compared
    with the best so far picks the weights kept."""
    code = """import torch
import pandas as pd
from torch import nn
from sklearn.model_selection import train_test_split
df = pd.read_csv("d.csv")
X = torch.tensor(df.drop(columns="y").values, dtype=torch.float32)
y = torch.tensor(df["y"].values, dtype=torch.float32)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2)
model, crit = nn.Linear(4, 1), nn.MSELoss()
opt = torch.optim.Adam(model.parameters())
best = 1e9
for epoch in range(500):
    opt.zero_grad()
    loss = crit(model(X_train).squeeze(), y_train)
    loss.backward()
    opt.step()
    with torch.no_grad():
        test_loss = crit(model(X_test).squeeze(), y_test)
    if test_loss < best:
        best = test_loss
        torch.save(model.state_dict(), "best.pt")"""
    assert "LEAK004" in rules(code)
