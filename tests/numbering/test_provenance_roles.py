"""Provenance hashes the datasets training and evaluation read, not leftovers of loops or model outputs:
a quickstart-like session in a real IPython shell."""

from __future__ import annotations

import pytest
from IPython.utils.capture import capture_output

from jupyter_trainguard.report.provenance import collect_provenance
from tests.ipshell import Shell, loaded_shell

torch = pytest.importorskip("torch")

CELLS = [
    "import torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader, TensorDataset",
    "g = torch.Generator().manual_seed(0)\n"
    "training_data = TensorDataset(torch.randn(256, 8, generator=g), torch.randint(0, 3, (256,), generator=g))\n"
    "test_data = TensorDataset(torch.randn(64, 8, generator=g), torch.randint(0, 3, (64,), generator=g))",
    "train_dataloader = DataLoader(training_data, batch_size=32)\n"
    "test_dataloader = DataLoader(test_data, batch_size=32)\n"
    "for X, y in test_dataloader:\n    print('Shape of X', X.shape)\n    break",
    "model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))\nloss_fn = nn.CrossEntropyLoss()\n"
    "optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)\n"
    "def train(dataloader, model, loss_fn, optimizer):\n    for X, y in dataloader:\n"
    "        loss = loss_fn(model(X), y)\n        loss.backward()\n"
    "        optimizer.step()\n        optimizer.zero_grad()",
    "for t in range(2):\n    train(train_dataloader, model, loss_fn, optimizer)",
    "model.eval()\nx, y = test_data[0][0], test_data[0][1]\nwith torch.no_grad():\n    pred = model(x)\n"
    "print(pred.argmax(0), y)",
]


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with loaded_shell(Shell) as sh:
        for src in CELLS:
            sh.run(src)
        yield sh


def test_datasets_are_what_the_loaders_read(shell):
    prov = collect_provenance(shell.ns)
    datasets = prov["datasets"]
    assert {"training_data", "test_data"} <= set(datasets)
    assert not {"X", "x", "pred", "y"} & set(datasets)
    train = datasets["training_data"]
    assert train["role"] == "read by train_dataloader" and train["type"] == "TensorDataset"
    assert train["length"] == 256 and train["shape"] == [256, 8] and len(train["sha256"]) == 64
    assert datasets["test_data"]["role"] == "read by test_dataloader"
    why = prov["not_datasets"]
    assert "loop" in why["X"] and "model's output" in why["pred"] and "one sample" in why["x"]
    # the hash follows the content: a changed row changes it
    shell.run("training_data.tensors[0][0, 0] += 1")
    assert collect_provenance(shell.ns)["datasets"]["training_data"]["sha256"] != train["sha256"]


def test_trainaudit_lists_the_training_and_test_sets(shell):
    with capture_output() as cap:
        shell.run("%trainaudit --no-log")
    text = cap.outputs[-1].data["text/plain"]
    listed = [ln.split(":")[0] for ln in text.splitlines() if ln.startswith("Dataset ")]
    assert sorted(listed) == ["Dataset test_data", "Dataset training_data"], text


def test_arrays_passed_to_fit_come_first(shell):
    pytest.importorskip("sklearn")
    shell.run(
        "import numpy as np\nfrom sklearn.linear_model import LogisticRegression\n"
        "np.random.seed(0)\nfeatures = np.random.rand(50, 4)\nlabels = (features[:, 0] > 0.5).astype(int)\n"
        "clf = LogisticRegression().fit(features, labels)\nscratch = np.zeros((3, 3))"
    )
    datasets = collect_provenance(shell.ns)["datasets"]
    assert datasets["features"]["role"] == "passed to fit()" and datasets["labels"]["role"] == "passed to fit()"
    assert datasets["scratch"]["role"] == "in the namespace"
    order = list(datasets)
    assert order.index("features") < order.index("scratch")
