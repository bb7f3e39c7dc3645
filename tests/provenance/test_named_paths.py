# ruff: noqa: E501  (the notebooks read best one statement per line)
"""Reads name their files through the notebook's own strings (`train_dir = "data/train"`, `os.path.join(base,
"train")`, `f"{base}/val"`, `Path(base) / "test"`): two reads of one path are the same rows, and a folder read
recursively holds every folder under it (`Dataset/` after `Dataset/Train`). Whole notebooks through the engine."""

from __future__ import annotations

import pytest

from jupyter_trainguard.engine import analyze_sources

KERAS = """import os
from pathlib import Path
import tensorflow as tf
from tensorflow.keras.preprocessing.image import ImageDataGenerator
from tensorflow.keras import layers, models
gen = ImageDataGenerator(rescale=1./255)"""

FIT = """model = models.Sequential([layers.Flatten(), layers.Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy", metrics=["accuracy"])
model.fit(train_data, epochs=5)"""


def rules(*cells: str) -> set[str]:
    rep = analyze_sources([KERAS, *cells])
    return {f.rule_id for f in rep.findings if f.rule_id.startswith("LEAK")}


@pytest.mark.parametrize(("test_path", "rule"), [
    ('root', "LEAK003"),  # the folder above the training folder: its classes are Train/Test, the training images
    ('os.path.join(root, "Train")', "LEAK007"),  # the training folder itself, named another way
])
def test_a_test_folder_holding_the_training_folder_scores_training_images(test_path: str, rule: str) -> None:
    reads = (f'root = "data/Dataset"\ntrain_dir = root + "/Train"\n'
             f'train_data = gen.flow_from_directory(train_dir, target_size=(64, 64))\n'
             f'test_data = gen.flow_from_directory({test_path}, target_size=(64, 64))')
    assert rule in rules(reads, FIT, "print(model.evaluate(test_data))")


@pytest.mark.parametrize("reads", [
    # sibling folders named through the notebook's strings
    'root = "data/Dataset"\n'
    'train_data = gen.flow_from_directory(os.path.join(root, "Train"), target_size=(64, 64))\n'
    'test_data = gen.flow_from_directory(f"{root}/Test", target_size=(64, 64))',
    # a folder beside one with a longer name is not inside it
    'train_data = gen.flow_from_directory("data/flowers")\n'
    'test_data = gen.flow_from_directory("data/flowers_test")',
    # a folder read for some of its subfolders holds only those
    'root = "data/Dataset"\n'
    'train_data = gen.flow_from_directory(root + "/Train", target_size=(64, 64))\n'
    'test_data = gen.flow_from_directory(root, classes=["Test"], target_size=(64, 64))',
])
def test_folders_that_share_no_images_keep_the_test_folder_held_out(reads: str) -> None:
    assert not rules(reads, FIT, "print(model.evaluate(test_data))")


def test_a_folder_read_before_its_subfolder_holds_the_subfolder() -> None:
    reads = ('base = Path("flowers")\n'
             'everything = tf.keras.utils.image_dataset_from_directory(base)\n'
             'train_data = tf.keras.utils.image_dataset_from_directory(base / "train")\n'
             'val_data = tf.keras.utils.image_dataset_from_directory(base / "val")')
    assert not rules(reads, FIT, "print(model.evaluate(val_data))")
    assert "LEAK003" in rules(reads, FIT, "print(model.evaluate(everything))")


def test_one_csv_read_twice_through_a_name_is_one_table() -> None:
    code = ['import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n'
            'from sklearn.metrics import accuracy_score\nPATH = "data/heart.csv"',
            'train = pd.read_csv(PATH)\nmodel = LogisticRegression().fit(train.drop(columns="target"), train["target"])',
            'test = pd.read_csv(PATH)\nprint(accuracy_score(test["target"], model.predict(test.drop(columns="target"))))']
    rep = analyze_sources(code)
    assert {f.rule_id for f in rep.findings} & {"LEAK003", "LEAK007"}
    other = [*code[:2], code[2].replace("test = pd.read_csv(PATH)", 'test = pd.read_csv("data/heart_test.csv")')]
    assert not {f.rule_id for f in analyze_sources(other).findings if f.rule_id.startswith("LEAK")}


DATASET = '''import glob, os
import torch
from torch.utils.data import Dataset, DataLoader
class Pairs(Dataset):
    def __init__(self, root, mode="train"):
        self.files = sorted(glob.glob(os.path.join(root, mode) + "/*.jpg"))
    def __len__(self):
        return len(self.files)
    def __getitem__(self, i):
        return torch.load(self.files[i])
data_path = "data/pairs"'''

TORCH_LOOP = '''net = torch.nn.Linear(8, 2)
opt = torch.optim.Adam(net.parameters())
for x, y in train_loader:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
correct = 0
with torch.no_grad():
    for x, y in test_loader:
        correct += (net(x).argmax(1) == y).sum().item()
print(correct)'''


def test_a_notebook_dataset_given_another_mode_reads_other_files() -> None:
    """`Pairs(root)` and `Pairs(root, mode="val")` name one root but pick other files by their other argument."""
    loaders = ('train_loader = DataLoader(Pairs(f"{data_path}"), batch_size=4, shuffle=True)\n'
               'test_loader = DataLoader(Pairs(f"{data_path}", mode="val"), batch_size=1)')
    rep = analyze_sources([DATASET, loaders, TORCH_LOOP])
    assert not [f for f in rep.findings if f.category == "leakage.overlap"]
    same = loaders.replace(', mode="val"', "")
    rep = analyze_sources([DATASET, same, TORCH_LOOP])
    assert [f for f in rep.findings if f.category == "leakage.overlap"]


def test_reads_of_one_file_that_keep_other_rows_are_other_rows() -> None:
    """`nrows=` and `skiprows=` read other rows of the same file: a model trained on the first part and scored on
    the second is scored on rows it never saw."""
    code = ['import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n'
            'from sklearn.metrics import accuracy_score\nPATH = "data/clicks.csv"',
            'train = pd.read_csv(PATH, nrows=100000)\n'
            'model = LogisticRegression().fit(train.drop(columns="click"), train["click"])',
            'test = pd.read_csv(PATH, skiprows=range(1, 100001), nrows=20000)\n'
            'print(accuracy_score(test["click"], model.predict(test.drop(columns="click"))))']
    assert not {f.rule_id for f in analyze_sources(code).findings if f.rule_id.startswith("LEAK")}


def test_a_whole_folder_scored_after_training_on_its_training_subset() -> None:
    """`subset=` does not make another read: the whole folder holds the training subset's images."""
    reads = ('data_dir = "data/flowers"\nsplit_gen = ImageDataGenerator(rescale=1./255, validation_split=0.2)\n'
             'train_data = split_gen.flow_from_directory(data_dir, subset="training")\n'
             'val_data = split_gen.flow_from_directory(data_dir, subset="validation")\n'
             'every = gen.flow_from_directory(data_dir, shuffle=False)')
    assert not rules(reads, FIT, "print(model.evaluate(val_data))")
    assert "LEAK003" in rules(reads, FIT, "print(model.evaluate(every))")
