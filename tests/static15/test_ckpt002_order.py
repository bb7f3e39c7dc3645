"""Issue 15, CKPT002: training continues after a model-only restore only when a training call runs after the
load in replay order; a `def train` placed earlier (or one never called) does not make a notebook that only
predicts after loading into a resume."""

from __future__ import annotations

from .nbmake import rule_hits, write_nb

QUICKSTART = [
    "import torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader, TensorDataset",
    "X = torch.randn(64, 8)\ny = (X.sum(dim=1) > 0).long()\nloader = DataLoader(TensorDataset(X, y), batch_size=16)",
    "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.fc = nn.Linear(8, 2)\n\n"
    "    def forward(self, x):\n        return self.fc(x)\n\nmodel = Net()",
    "loss_fn = nn.CrossEntropyLoss()\noptimizer = torch.optim.SGD(model.parameters(), lr=1e-2)",
    "def train(dataloader, model, loss_fn, optimizer):\n    model.train()\n    for xb, yb in dataloader:\n"
    "        loss = loss_fn(model(xb), yb)\n        loss.backward()\n        optimizer.step()\n"
    "        optimizer.zero_grad()",
    "def test(dataloader, model):\n    model.eval()\n    with torch.no_grad():\n"
    "        return sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in dataloader)",
    "for t in range(3):\n    train(loader, model, loss_fn, optimizer)\n    print(test(loader, model))",
    'torch.save(model.state_dict(), "model.pth")',
    'model = Net()\nmodel.load_state_dict(torch.load("model.pth", weights_only=True))',
    "model.eval()\nwith torch.no_grad():\n    pred = model(X[:4]).argmax(1)\nprint(pred)",
]


def test_loading_then_only_predicting_is_not_a_resume(tmp_path):
    path = write_nb(tmp_path / "quickstart.ipynb", QUICKSTART)
    assert rule_hits(path, "CKPT002") == []


def test_a_training_function_defined_after_the_load_but_never_called(tmp_path):
    cells = QUICKSTART + [
        "def finetune(model):\n    opt = torch.optim.SGD(model.parameters(), lr=1e-3)\n    for xb, yb in loader:\n"
        "        loss_fn(model(xb), yb).backward()\n        opt.step()"
    ]
    path = write_nb(tmp_path / "quickstart.ipynb", cells)
    assert rule_hits(path, "CKPT002") == []


def test_training_called_after_the_load_is_reported_at_that_call(tmp_path):
    cells = QUICKSTART + ["for t in range(2):\n    train(loader, model, loss_fn, optimizer)"]
    path = write_nb(tmp_path / "quickstart.ipynb", cells)
    (hit,) = rule_hits(path, "CKPT002")
    assert hit.location.cell == 8  # the load
    assert hit.evidence["train_cell"] == 11  # the later call of train(), not its definition (cell 5)
    assert "training continues (cell 11" in hit.message


def test_replay_order_decides_not_cell_position(tmp_path):
    """The training cell sits below the load but ran before it (execution counts): no training after the load."""
    import nbformat

    cells = QUICKSTART + ["for t in range(2):\n    train(loader, model, loss_fn, optimizer)"]
    path = write_nb(tmp_path / "quickstart.ipynb", cells)
    nb = nbformat.read(str(path), as_version=4)
    counts = {8: 20, 9: 21, 10: 12}  # the last cell ran as [12], before the load ([20])
    for i, n in counts.items():
        nb.cells[i].execution_count = n
    nbformat.write(nb, str(path))
    assert rule_hits(path, "CKPT002") == []
