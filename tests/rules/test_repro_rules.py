"""SEED, DET, CKPT, TRACK, ENV and TRAIN rules on real notebooks."""

from __future__ import annotations

from .nbhelp import ids, of, scan_cells

TORCH = ("import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader, TensorDataset")
LOOP = ("model = nn.Linear(4, 2)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "loader = DataLoader(TensorDataset(torch.ones(8, 4), torch.zeros(8).long()), batch_size=4)\n"
        "for epoch in range(2):\n    for xb, yb in loader:\n        opt.zero_grad()\n"
        "        loss = nn.functional.cross_entropy(model(xb), yb)\n        loss.backward()\n        opt.step()")
SKL = ("import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
       "from sklearn.linear_model import LogisticRegression")


def test_python_and_numpy_random_only_when_training(tmp_path):
    cells = ["import random\nimport numpy as np\n" + SKL, "df = pd.read_csv('d.csv')\nrows = list(df.index)\n"
             "random.shuffle(rows)\nnoise = np.random.rand(3)",
             "X_tr, X_te, y_tr, y_te = train_test_split(df, df.y, random_state=0)\n"
             "LogisticRegression().fit(X_tr, y_tr)"]
    rep = scan_cells(tmp_path, cells)
    assert {"SEED001", "SEED002"} <= ids(rep)
    assert "random.shuffle" in of(rep, "SEED001")[0].message
    seeded = scan_cells(tmp_path, [cells[0], "random.seed(0)\nnp.random.seed(0)\n" + cells[1], cells[2]],
                        name="seeded.ipynb")
    assert not ids(seeded) & {"SEED001", "SEED002", "SEED004"}
    no_train = scan_cells(tmp_path, cells[:2], name="eda.ipynb")
    assert not ids(no_train) & {"SEED001", "SEED002"}


def test_default_rng_without_seed(tmp_path):
    rep = scan_cells(tmp_path, ["import numpy as np\nfrom sklearn.linear_model import Ridge",
                                "rng = np.random.default_rng()\nX = rng.normal(size=(9, 2))\n"
                                "Ridge().fit(X, X[:, 0])"])
    assert "default_rng" in of(rep, "SEED002")[0].message
    ok = scan_cells(tmp_path, ["import numpy as np\nfrom sklearn.linear_model import Ridge",
                               "rng = np.random.default_rng(0)\nX = rng.normal(size=(9, 2))\nRidge().fit(X, X[:, 0])"],
                    name="ok.ipynb")
    assert "SEED002" not in ids(ok)


def test_torch_seed_and_dataloader_shuffle(tmp_path):
    shuffled = LOOP.replace("batch_size=4)", "batch_size=4, shuffle=True)")
    rep = scan_cells(tmp_path, [TORCH, shuffled])
    assert {"SEED003", "SEED005"} <= ids(rep)
    seeded = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + shuffled], name="seeded.ipynb")
    assert not ids(seeded) & {"SEED003", "SEED005"}


def test_torch_imported_but_not_training_or_random(tmp_path):
    rep = scan_cells(tmp_path, [TORCH, "t = torch.ones(3)\nprint(t.sum())"])
    assert not ids(rep) & {"SEED003", "DET001", "TRAIN001", "TRACK001"}


def test_random_state_missing_and_shuffle_false(tmp_path):
    rep = scan_cells(tmp_path, [SKL + "\nfrom sklearn.ensemble import RandomForestClassifier",
                                "df = pd.read_csv('d.csv')\nX_tr, X_te, y_tr, y_te = train_test_split(df, df.y)\n"
                                "RandomForestClassifier().fit(X_tr, y_tr)\n"
                                "a, b = train_test_split(df, shuffle=False)\nLogisticRegression().fit(a, a.y)"])
    msgs = [f.message for f in of(rep, "SEED004")]
    assert len(msgs) == 2 and any("train_test_split" in m for m in msgs)
    assert any("RandomForestClassifier" in m for m in msgs)


def test_determinism_cuda_and_benchmark(tmp_path):
    cuda = LOOP.replace("model = nn.Linear(4, 2)", "model = nn.Linear(4, 2).cuda()")
    rep = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + cuda])
    assert "DET001" in ids(rep)
    ok = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\ntorch.use_deterministic_algorithms(True)\n" + cuda],
                    name="ok.ipynb")
    assert "DET001" not in ids(ok)
    cpu = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + LOOP], name="cpu.ipynb")
    assert "DET001" not in ids(cpu)


def test_env_vars_set_too_late(tmp_path):
    rep = scan_cells(tmp_path, ["import os\nimport torch", "x = torch.ones(2).cuda()",
                                "os.environ['PYTHONHASHSEED'] = '0'\n"
                                "os.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'"])
    msgs = [f.message for f in of(rep, "DET002")]
    assert len(msgs) == 2
    assert any("PYTHONHASHSEED" in m and "too late" in m for m in msgs)
    assert any("CUBLAS_WORKSPACE_CONFIG" in m and "cell 2" in m for m in msgs)
    early = scan_cells(tmp_path, ["import os\nimport torch\n%env PYTHONHASHSEED=0",
                                  "os.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'", "x = torch.ones(2).cuda()"],
                       name="early.ipynb")
    msgs = [f.message for f in of(early, "DET002")]
    assert len(msgs) == 1 and "PYTHONHASHSEED" in msgs[0]


def test_checkpoint_rules(tmp_path):
    periodic = LOOP + "\n    torch.save(model.state_dict(), 'm.pt')"
    rep = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + periodic,
                                "model.load_state_dict(torch.load('m.pt'))\n" + LOOP.split("\n", 3)[3]])
    assert {"CKPT001", "CKPT002", "CKPT003"} <= ids(rep)
    assert "opt" in of(rep, "CKPT001")[0].message
    export = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + LOOP,
                                   "torch.save(model.state_dict(), 'final_weights.pt')"], name="export.ipynb")
    assert "CKPT001" not in ids(export)
    finetune = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\nmodel = nn.Linear(4, 2)\n"
                                            "model.load_state_dict(torch.load('pretrained.pt', weights_only=True))\n"
                                     + LOOP.split("\n", 1)[1]], name="finetune.ipynb")
    assert "CKPT002" not in ids(finetune)
    good = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + LOOP,
                                 "torch.save({'model': model.state_dict(), 'optimizer': opt.state_dict(), "
                                 "'epoch': epoch}, 'c.pt')",
                                 "ck = torch.load('c.pt', weights_only=True)\nmodel.load_state_dict(ck['model'])\n"
                                 "opt.load_state_dict(ck['optimizer'])"], name="good.ipynb")
    assert not ids(good) & {"CKPT001", "CKPT002", "CKPT003"}


def test_inference_only_load_is_not_a_resume(tmp_path):
    rep = scan_cells(tmp_path, [TORCH, "model = nn.Linear(3, 1)\n"
                                       "model.load_state_dict(torch.load('m.pt', weights_only=True))\nmodel.eval()"])
    assert not ids(rep) & {"CKPT001", "CKPT002", "CKPT003"}


def test_tracking_rules(tmp_path):
    fit = "df = pd.read_csv('d.csv')\nm = LogisticRegression().fit(df[['a']], df.y)"
    untracked = scan_cells(tmp_path, [SKL, fit])
    assert "TRACK001" in ids(untracked) and of(untracked, "TRACK001")[0].severity.value == "info"
    open_run = scan_cells(tmp_path, [SKL + "\nimport mlflow", "mlflow.start_run()\n" + fit +
                                     "\nmlflow.log_metric('acc', 1.0)\nmlflow.end_run()"], name="open.ipynb")
    assert {"TRACK002", "TRACK003"} <= ids(open_run) and "TRACK001" not in ids(open_run)
    assert "parameters" in of(open_run, "TRACK003")[0].message
    good = scan_cells(tmp_path, [SKL + "\nimport mlflow",
                                 "with mlflow.start_run():\n    mlflow.log_params({'C': 1.0})\n"
                                 "    mlflow.set_tag('git_commit', 'abc')\n"
                                 "    mlflow.set_tag('dataset_version', 'v2')\n"
                                 "    df = pd.read_csv('d.csv')\n    m = LogisticRegression().fit(df[['a']], df.y)\n"
                                 "    mlflow.log_metric('acc', 1.0)"], name="good.ipynb")
    assert not ids(good) & {"TRACK001", "TRACK002", "TRACK003"}


def test_env001_requirements_lookup(tmp_path):
    cells = [SKL, "df = pd.read_csv('d.csv')\nLogisticRegression().fit(df[['a']], df.y)"]
    (tmp_path / "proj").mkdir()
    sub = tmp_path / "proj" / "notebooks"
    sub.mkdir()
    (tmp_path / "proj" / ".git").mkdir()
    rep = scan_cells(sub, cells)
    assert "ENV001" in ids(rep) and of(rep, "ENV001")[0].severity.value == "warning"
    (tmp_path / "proj" / "requirements.txt").write_text("scikit-learn>=1.0\n")
    assert "ENV001" in ids(scan_cells(sub, cells, name="b.ipynb"))
    (tmp_path / "proj" / "requirements-lock.txt").write_text("scikit-learn==1.5.2\npandas==2.2.3\n")
    assert "ENV001" not in ids(scan_cells(sub, cells, name="c.ipynb"))


def test_env001_uv_lock_and_session_without_file(tmp_path):
    from jupyter_trainguard.engine import analyze_sources

    cells = [SKL, "df = pd.read_csv('d.csv')\nLogisticRegression().fit(df[['a']], df.y)"]
    (tmp_path / ".git").mkdir()
    (tmp_path / "uv.lock").write_text("version = 1\n")
    assert "ENV001" not in ids(scan_cells(tmp_path, cells))
    rep = analyze_sources(cells, path=str(tmp_path / "missing" / "session.ipynb"))
    assert "ENV001" not in ids(rep)


def test_zero_grad_missing_and_accumulation(tmp_path):
    bad = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + LOOP.replace("        opt.zero_grad()\n", "")])
    [f] = of(bad, "TRAIN001")
    assert "zero_grad" in f.message and f.location.cell == 1
    acc = LOOP.replace("        opt.zero_grad()\n", "").replace(
        "        opt.step()", "        if epoch % 2 == 0:\n            opt.step()\n            opt.zero_grad()")
    assert "TRAIN001" not in ids(scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + acc], name="acc.ipynb"))


def test_zero_grad_inside_helper_function(tmp_path):
    rep = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\nmodel = nn.Linear(4, 2)\n"
                                       "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                                       "def step(xb, yb):\n    opt.zero_grad()\n"
                                       "    nn.functional.cross_entropy(model(xb), yb).backward()\n    opt.step()",
                                "for i in range(3):\n    step(torch.ones(2, 4), torch.zeros(2).long())"])
    assert "TRAIN001" not in ids(rep)


def test_eval_without_train_reset(tmp_path):
    body = LOOP + "\n    model.eval()\n    with torch.no_grad():\n        print(model(torch.ones(1, 4)))"
    rep = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + body])
    assert "not-reset" == of(rep, "TRAIN002")[0].evidence["case"]
    fixed = body.replace("for epoch in range(2):\n", "for epoch in range(2):\n    model.train()\n")
    assert "TRAIN002" not in ids(scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + fixed], name="ok.ipynb"))


def test_no_grad_eval_without_eval_mode(tmp_path):
    rep = scan_cells(tmp_path, [TORCH, "torch.manual_seed(0)\n" + LOOP,
                                "with torch.no_grad():\n    out = model(torch.ones(1, 4))"])
    assert "no-eval" == of(rep, "TRAIN002")[0].evidence["case"]


def test_inference_notebook_with_random_dummy_input_is_quiet(tmp_path):
    rep = scan_cells(tmp_path, [TORCH + "\nimport torchvision", "model = torchvision.models.resnet18(weights=None)\n"
                                "model.eval()\nwith torch.no_grad():\n    out = model(torch.randn(1, 3, 224, 224))"])
    assert not ids(rep) & {"SEED003", "SEED005", "TRAIN002", "TRACK001", "DET001"}
