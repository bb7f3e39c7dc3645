"""Realistic notebooks written with nbformat, and a real IPython shell with trainguard loaded."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from tests.ipshell import Shell as BaseShell
from tests.ipshell import loaded_shell

LEAKY = [
    "import numpy as np\nimport pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.preprocessing import StandardScaler\nfrom sklearn.linear_model import LogisticRegression\n"
    "from sklearn.metrics import accuracy_score",
    "rng = np.random.default_rng()\n"
    "df = pd.DataFrame({'age': rng.integers(18, 80, 400), 'income': rng.normal(50, 12, 400),\n"
    "                   'tenure': rng.integers(1, 72, 400), 'visits': rng.poisson(3, 400)})\n"
    "df['churn'] = (df['income'] + rng.normal(0, 12, 400) > 50).astype(int)",
    "X = df.drop(columns=['churn'])\ny = df['churn']\nscaler = StandardScaler()\nX_scaled = scaler.fit_transform(X)",
    "X_train, X_test, y_train, y_test = train_test_split(X_scaled, y, test_size=0.25)",
    "model = LogisticRegression(max_iter=200)\nmodel.fit(X_train, y_train)\n"
    "acc = accuracy_score(y_test, model.predict(X_test))\nprint('test accuracy', acc)",
]

CLEAN = [
    "import numpy as np\nimport pandas as pd\nimport mlflow\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.pipeline import make_pipeline\nfrom sklearn.preprocessing import StandardScaler\n"
    "from sklearn.linear_model import LogisticRegression\nSEED = 0",
    "rng = np.random.default_rng(SEED)\n"
    "df = pd.DataFrame(rng.normal(size=(400, 4)), columns=['age', 'income', 'tenure', 'visits'])\n"
    "df['churn'] = (df['income'] + rng.normal(size=400) > 0).astype(int)\n"
    "X = df.drop(columns=['churn'])\ny = df['churn']",
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=SEED, stratify=y)\n"
    "pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=200, random_state=SEED))",
    "with mlflow.start_run():\n"
    "    mlflow.log_params({'C': 1.0, 'seed': SEED})\n"
    "    mlflow.set_tag('git_commit', 'abc123')\n"
    "    mlflow.set_tag('dataset_version', 'churn-v3')\n"
    "    pipe.fit(X_train, y_train)\n"
    "    mlflow.log_metric('test_acc', pipe.score(X_test, y_test))",
]

TORCH = [
    "import torch\nfrom torch import nn\nfrom torch.utils.data import DataLoader, TensorDataset\ntorch.manual_seed(0)",
    "X = torch.randn(256, 8)\ny = (X[:, 0] > 0).long()\n"
    "loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True)\n"
    "model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))\n"
    "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
    "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1)\nloss_fn = nn.CrossEntropyLoss()",
    "for epoch in range(3):\n"
    "    for xb, yb in loader:\n"
    "        optimizer.zero_grad()\n"
    "        loss = loss_fn(model(xb), yb)\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "    scheduler.step()\n"
    "    torch.save(model.state_dict(), f'ckpt_{epoch}.pt')",
    "model.load_state_dict(torch.load('ckpt_2.pt', weights_only=True))",
]

TEMPORAL = [
    "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.ensemble import RandomForestRegressor",
    "sales = pd.read_csv('sales.csv', parse_dates=['date'])\nsales = sales.sort_values('date')\n"
    "X = sales[['store', 'promo']]\ny = sales['units']",
    "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, random_state=0)\n"
    "reg = RandomForestRegressor(random_state=0).fit(X_train, y_train)\nr2 = reg.score(X_test, y_test)",
]


def write_notebook(path: Path, cells: list[str], title: str = "") -> Path:
    nb_cells = [new_markdown_cell(f"# {title}")] if title else []
    nb_cells += [new_code_cell(src, execution_count=i + 1) for i, src in enumerate(cells)]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(new_notebook(cells=nb_cells), str(path))
    return path


@pytest.fixture
def leaky_nb(tmp_path) -> Path:
    return write_notebook(tmp_path / "leaky" / "churn_leaky.ipynb", LEAKY)


@pytest.fixture
def clean_nb(tmp_path) -> Path:
    nb = write_notebook(tmp_path / "clean" / "churn_clean.ipynb", CLEAN)
    (nb.parent / "requirements.txt").write_text("numpy==2.1.0\npandas==2.2.3\nscikit-learn==1.5.2\n")
    return nb


@pytest.fixture
def torch_nb(tmp_path) -> Path:
    return write_notebook(tmp_path / "torch" / "train_mlp.ipynb", TORCH)


@pytest.fixture
def temporal_nb(tmp_path) -> Path:
    return write_notebook(tmp_path / "sales" / "forecast.ipynb", TEMPORAL)


class Shell(BaseShell):
    @property
    def magics(self):
        return next(m for m in self.ip.magics_manager.registry.values() if type(m).__name__ == "TrainAuditMagics")

    @property
    def audit(self):
        return self.magics.last_audit


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    with loaded_shell(Shell) as sh:
        yield sh
