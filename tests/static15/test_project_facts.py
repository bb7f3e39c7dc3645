"""Issue 15, noise: a project without a lockfile is one ENV001 per project in a multi-notebook scan (not one per
notebook); info findings (TRACK001) stay out of the default text output until asked (`--show-info`); a notebook
that trains nothing gets no TRACK001/ENV001/SEED004; a `df.sample(5)` that only displays rows is no SEED004."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jupyter_trainguard.engine import analyze_path

from .nbmake import write_nb

TEXTBOOK = [
    "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.ensemble import RandomForestClassifier",
    "df = pd.DataFrame({'a': range(60), 'b': [i % 3 for i in range(60)], 'y': [i % 2 for i in range(60)]})\n"
    "df.sample(5)",
    "X_tr, X_te, y_tr, y_te = train_test_split(df[['a', 'b']], df['y'], test_size=0.2, random_state=0)\n"
    "clf = RandomForestClassifier(random_state=0).fit(X_tr, y_tr)\nprint(clf.score(X_te, y_te))",
]
EXPLORES = [
    "import pandas as pd\nimport matplotlib.pyplot as plt",
    "df = pd.DataFrame({'a': range(60), 'b': [i % 3 for i in range(60)]})\ndf.sample(5)\ndf.describe()",
    "df.plot()\nplt.show()",
]


def _scan(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "jupyter_trainguard", "scan", *map(str, args), "--fail-on", "never"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _project(root: Path, n: int) -> list[Path]:
    root.mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "chapter2").mkdir()
    return [write_nb(root / ("chapter2" if i % 2 else ".") / f"nb{i}.ipynb", TEXTBOOK) for i in range(n)]


def test_no_lockfile_is_one_finding_per_project(tmp_path):
    a = _project(tmp_path / "book_a", 4)
    b = _project(tmp_path / "book_b", 2)
    res = _scan(tmp_path / "book_a", tmp_path / "book_b", "--format", "json")
    reports = json.loads(res.stdout)["reports"]
    env = [(r["path"], f) for r in reports for f in r["findings"] if f["rule_id"] == "ENV001"]
    assert len(env) == 2  # one per project
    by_project = {Path(p).parts[-2] if "chapter2" not in p else Path(p).parts[-3]: f for p, f in env}
    assert set(by_project) == {"book_a", "book_b"}
    assert len(by_project["book_a"]["evidence"]["notebooks"]) == len(a)
    assert "3 other notebook(s) of this project" in by_project["book_a"]["message"]
    assert len(by_project["book_b"]["evidence"]["notebooks"]) == len(b)
    # a single notebook still gets it (the panel, the kernel and `trainguard scan FILE` agree)
    assert "ENV001" in {f.rule_id for f in analyze_path(a[1]).findings}


def test_info_findings_are_counted_but_shown_only_when_asked(tmp_path):
    (nb,) = _project(tmp_path / "book", 1)
    default = _scan(nb).stdout
    assert "TRACK001" not in default
    assert "1 info (not shown; --show-info lists them)" in default
    shown = _scan(nb, "--show-info").stdout
    assert "info TRACK001" in shown and "(not shown" not in shown
    assert "TRACK001" in {
        f["rule_id"] for r in json.loads(_scan(nb, "--format", "json").stdout)["reports"] for f in r["findings"]
    }  # machine formats keep everything


def test_clean_textbook_notebook_has_one_project_fact_and_nothing_per_notebook(tmp_path):
    paths = _project(tmp_path / "book", 3)
    res = json.loads(_scan(tmp_path / "book", "--format", "json").stdout)
    shown = [f["rule_id"] for r in res["reports"] for f in r["findings"] if f["severity"] != "info"]
    assert shown == ["ENV001"]  # no SEED004 for the displayed df.sample(5), ENV001 once for 3 notebooks
    assert len(paths) == 3


def test_notebook_that_trains_nothing_gets_no_training_facts(tmp_path):
    path = write_nb(tmp_path / "explore.ipynb", EXPLORES)
    found = {f.rule_id for f in analyze_path(path).findings}
    assert not found & {"TRACK001", "ENV001", "SEED004"}


def test_a_sample_that_feeds_training_is_still_seed004(tmp_path):
    cells = TEXTBOOK[:2] + ["train = df.sample(frac=0.8)\n" + TEXTBOOK[2].split("\n", 1)[1]]
    path = write_nb(tmp_path / "sampled.ipynb", cells)
    hits = [f for f in analyze_path(path).findings if f.rule_id == "SEED004"]
    assert [(f.location.cell, f.location.line) for f in hits] == [(2, 1)]


def test_fitting_only_preprocessing_is_not_training_for_track001(tmp_path):
    prep = [
        "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler, OneHotEncoder\n"
        "from sklearn.decomposition import PCA",
        "df = pd.DataFrame({'a': range(20), 'b': [i % 3 for i in range(20)]})\n"
        "scaler = StandardScaler()\nscaler.fit(df[['a']])\nenc = OneHotEncoder().fit(df[['b']])\n"
        "proj = PCA(n_components=1).fit(df)",
    ]
    assert "TRACK001" not in {f.rule_id for f in analyze_path(write_nb(tmp_path / "prep.ipynb", prep)).findings}
    trained = prep + ["from sklearn.linear_model import LinearRegression\nm = LinearRegression().fit(df[['a']], df.b)"]
    (hit,) = [f for f in analyze_path(write_nb(tmp_path / "fit.ipynb", trained)).findings if f.rule_id == "TRACK001"]
    assert hit.location.cell == 2
