"""Hostile-notebook generators shared by the fuzz tests and `benchmarks/fuzz_long.py`.

Each strategy takes a valid notebook (bytes) and a `random.Random` and returns damaged bytes, so the suite covers
broken JSON, wrong versions, missing keys, huge cells, deep nesting, binary junk, invalid UTF-8, odd line endings,
magic-heavy cells and Python 2 syntax.
"""

from __future__ import annotations

import json
import random

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

SNIPPETS = [
    "import pandas as pd\ndf = pd.read_csv('d.csv')",
    "from sklearn.model_selection import train_test_split\nX_tr, X_te, y_tr, y_te = train_test_split(X, y)",
    "from sklearn.preprocessing import StandardScaler\nX = StandardScaler().fit_transform(X)",
    "import torch\nmodel = torch.nn.Linear(3, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)",
    "for epoch in range(3):\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()",
    "%matplotlib inline\n!pip install x\nfiles = !ls\n%time y = 1",
    "%%bash\necho $HOME",
    "%%time\nmodel.fit(X_tr, y_tr)\nprint(model.score(X_te, y_te))",
    "print 'python 2'\nexec 'x = 1'",
    "LEARNING_RATE = 0  # trainguard: ignore[CFG002]",
    "def f(:\n  pass",
    "x = '<img src=x onerror=alert(1)>'",
    "get_ipython().run_line_magic('load_ext', 'trainguard')",
    "len?\n??str",
]


def base_notebook(rnd: random.Random, n_cells: int | None = None) -> bytes:
    nb = new_notebook()
    for i in range(n_cells if n_cells is not None else rnd.randint(0, 12)):
        if rnd.random() < 0.2:
            nb.cells.append(new_markdown_cell("# heading " + str(i)))
        else:
            nb.cells.append(new_code_cell(rnd.choice(SNIPPETS), execution_count=rnd.choice([None, i + 1, 99 - i])))
    return nbformat.writes(nb).encode()


def _json(data: bytes) -> dict:
    return json.loads(data.decode())


def truncate(data: bytes, rnd: random.Random) -> bytes:
    return data[: rnd.randint(0, max(0, len(data) - 1))]


def flip_bytes(data: bytes, rnd: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rnd.randint(1, 20)):
        if b:
            b[rnd.randrange(len(b))] = rnd.randrange(256)
    return bytes(b)


def binary_junk(data: bytes, rnd: random.Random) -> bytes:
    return bytes(rnd.randrange(256) for _ in range(rnd.randint(0, 4096)))


def invalid_utf8(data: bytes, rnd: random.Random) -> bytes:
    pos = data.find(b'"source"')
    pos = pos if pos >= 0 else len(data) // 2
    return data[:pos] + rnd.choice([b"\xff\xfe", b"\xc3\x28", b"\xe9", b"\x80\x80"]) + data[pos:]


def wrong_version(data: bytes, rnd: random.Random) -> bytes:
    doc = _json(data)
    doc["nbformat"] = rnd.choice([0, 1, 2, 3, 5, 99, -1, "4", None, 4.5, [4]])
    doc["nbformat_minor"] = rnd.choice([0, 5, 99, "x", None])
    return json.dumps(doc).encode()


def missing_keys(data: bytes, rnd: random.Random) -> bytes:
    doc = _json(data)
    key = rnd.choice(["cells", "metadata", "nbformat", "nbformat_minor"])
    doc.pop(key, None)
    for cell in doc.get("cells", []):
        if rnd.random() < 0.5:
            cell.pop(rnd.choice(["source", "cell_type", "metadata", "outputs", "execution_count"]), None)
    return json.dumps(doc).encode()


def wrong_types(data: bytes, rnd: random.Random) -> bytes:
    doc = _json(data)
    for cell in doc.get("cells", []):
        cell[rnd.choice(["source", "cell_type", "metadata", "execution_count", "outputs"])] = rnd.choice(
            [None, 1, 2.5, True, [], {}, [1, 2], {"a": "b"}, "x" * 10])
    if rnd.random() < 0.3:
        doc["cells"] = rnd.choice([None, "cells", 5, {"0": {}}])
    return json.dumps(doc).encode()


def huge_cell(data: bytes, rnd: random.Random) -> bytes:
    doc = _json(data)
    line = rnd.choice(["x = x + 1\n", "%time y = 2\n", "!echo hi\n", "a" * 5000 + "\n", "df.loc[:, 'a'] = 1\n"])
    doc.setdefault("cells", []).append({"cell_type": "code", "source": line * rnd.randint(1000, 8000),
                                        "metadata": {}, "outputs": [], "execution_count": None})
    return json.dumps(doc).encode()


def deep_nesting(data: bytes, rnd: random.Random) -> bytes:
    depth = rnd.randint(50, 5000)
    if rnd.random() < 0.5:
        return b"[" * depth + b"]" * depth
    doc = _json(data)
    src = "x = " + "(" * depth + "1" + ")" * depth if rnd.random() < 0.5 else \
        "".join("    " * i + "if x:\n" for i in range(min(depth, 150))) + "    " * min(depth, 150) + "pass\n"
    doc.setdefault("cells", []).append({"cell_type": "code", "source": src, "metadata": {}, "outputs": [],
                                        "execution_count": 1})
    return json.dumps(doc).encode()


def line_endings(data: bytes, rnd: random.Random) -> bytes:
    doc = _json(data)
    sep = rnd.choice(["\r\n", "\r", "\u2028", "\x0c", "\x00"])
    for cell in doc.get("cells", []):
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        cell["source"] = src.replace("\n", sep)
    return json.dumps(doc).encode()


def magic_storm(data: bytes, rnd: random.Random) -> bytes:
    doc = _json(data)
    magics = ["%load_ext trainguard", "!rm -rf /tmp/nothing", "%%capture\n", "x = %who_ls", "?", "??", "%",
              "!", "%%", "%%guarded_train --seed", "get_ipython().system('ls')", "%config TrainGuard.strict=True",
              "a = !ls | head", "%%writefile x.py\nprint(1)", "!!ls"]
    src = "\n".join(rnd.choice(magics) for _ in range(rnd.randint(1, 40)))
    doc.setdefault("cells", []).append({"cell_type": "code", "source": src, "metadata": {}, "outputs": [],
                                        "execution_count": 3})
    return json.dumps(doc).encode()


def python2(data: bytes, rnd: random.Random) -> bytes:
    doc = _json(data)
    src = rnd.choice(["print 'a'", "exec 'x'", "raise E, 'm'", "x = 0777", "def f((a, b)): pass", "`x`",
                      "ur'x'", "print >>sys.stderr, 'x'"])
    doc.setdefault("cells", []).append({"cell_type": "code", "source": src, "metadata": {}, "outputs": [],
                                        "execution_count": None})
    return json.dumps(doc).encode()


STRATEGIES = [truncate, flip_bytes, binary_junk, invalid_utf8, wrong_version, missing_keys, wrong_types,
              huge_cell, deep_nesting, line_endings, magic_storm, python2]


def hostile_notebook(seed: int) -> tuple[str, bytes]:
    """A deterministic hostile notebook for `seed`: (strategy name, bytes)."""
    rnd = random.Random(seed)
    strategy = STRATEGIES[seed % len(STRATEGIES)]
    data = base_notebook(rnd)
    for _ in range(rnd.choice([1, 1, 1, 2])):
        try:
            data = strategy(data, rnd)
        except (ValueError, UnicodeDecodeError, TypeError, AttributeError, RecursionError):  # already broken
            data = flip_bytes(data, rnd)
    return strategy.__name__, data
