"""The guard analyses a growing session incrementally (reused cells and parses, the provenance interpreter continued
over the new cells only, the hits of an unchanged history reused); its findings must be those of a full analysis of
the same history, cell for cell (real IPython shell)."""

from __future__ import annotations

import ast
from typing import Any

import numpy as np
import pytest

from jupyter_trainguard.analysis.provenance.interpreter import Interpreter
from jupyter_trainguard.config import load_config
from jupyter_trainguard.engine import analyze_notebook, clear_caches
from jupyter_trainguard.runtime.session_static import session_notebook, session_sources
from tests.perf.test_session_history import run_with_id

SETUP = (
    "import numpy as np\nimport pandas as pd\nfrom sklearn.model_selection import train_test_split\n"
    "from sklearn.preprocessing import StandardScaler\nfrom sklearn.linear_model import LogisticRegression"
)
DATA = (
    "rng = np.random.default_rng(0)\ndf = pd.DataFrame(rng.normal(size=(200, 4)), columns=list('abcd'))\n"
    "df['label'] = (df.a + df.b > 0).astype(int)\nX = df.drop(columns=['label']).to_numpy()\ny = df.label.to_numpy()"
)
LEAKY = "X = StandardScaler().fit_transform(X)  # fitted on every row, before the split"
SPLIT = "X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25)"
FIT = "%%guarded_train --quiet\nclf = LogisticRegression().fit(X_train, y_train)\nacc = clf.score(X_test, y_test)"
LOOP_DEF = (
    "import torch\n\ndef train(model, opt, batches):\n    for xb, yb in batches:\n"
    "        loss = torch.nn.functional.mse_loss(model(xb), yb)\n        loss.backward()\n        opt.step()\n"
    "    torch.save(model.state_dict(), 'last_checkpoint.pt')"
)


def finding(f: Any) -> dict[str, Any]:
    d = f.to_dict()
    d["evidence"] = {k: v for k, v in d["evidence"].items() if k != "impact"}  # added after the run, by the refits
    return d


def normalised(report: Any) -> dict[str, Any]:
    return {
        "findings": [finding(f) for f in report.findings],
        "suppressed": [s.to_dict() for s in report.suppressed],
        "rules_run": list(report.rules_run),
        "skipped": dict(report.skipped_rules),
        "cells": report.cells,
    }


def full_analysis(shell: Any, cell: str | None = None) -> dict[str, Any]:
    """The session the last guarded cell saw (`cell`: its body when it was not stored in the history), analysed
    from scratch: fresh cells, cold parse and rule memos."""
    sources, counts = session_sources(shell.ip, cell or shell.ip.history_manager.input_hist_raw[-1])
    nb, places = session_notebook(shell.ip, sources, counts)
    clear_caches()
    report, _, _ = analyze_notebook(nb, load_config(None))
    places.relocate_report(report)
    return normalised(report)


def check(shell: Any, cell: str | None = None) -> dict[str, Any]:
    guarded = normalised(shell.last.static)
    assert guarded == full_analysis(shell, cell)
    return guarded


@pytest.fixture
def resumed(monkeypatch):
    """How many cells (in replay order) each continued interpreter skipped."""
    skipped: list[int] = []
    original = Interpreter.resume

    def spy(self, parsed, done):
        skipped.append(done)
        return original(self, parsed, done)

    monkeypatch.setattr(Interpreter, "resume", spy)
    return skipped


def ids(report: dict[str, Any]) -> list[str]:
    return [f["rule_id"] for f in report["findings"]]


def test_growing_session_matches_full_analysis(shell, resumed):
    for src in (SETUP, DATA, LEAKY, SPLIT, FIT):
        shell.run(src)
    first = check(shell)
    assert "LEAK001" in ids(first)

    shell.run("n_rows = len(df)")  # appended cells: the interpreter continues over them only
    shell.run(FIT)
    check(shell)
    assert resumed and resumed[-1] > 0

    # a name no earlier cell binds is data from outside the notebook until a cell binds it; the continued
    # interpreter must see the same names bound as a full run does
    shell.ip.user_ns["extra"] = np.zeros((4, 2))
    shell.run("def summary():\n    return later.sum()\nlater = extra * 2\nz = summary()")
    shell.run(FIT)
    check(shell)

    shell.run(LOOP_DEF)  # a new import: the aliases change, so the interpreter starts again
    shell.run("%%guarded_train --quiet\nmodel = torch.nn.Linear(4, 1)\nopt = torch.optim.SGD(model.parameters(), "
              "lr=0.1)\ntrain(model, opt, [])")
    with_loop = check(shell)
    assert "TRAIN001" in ids(with_loop)

    shell.run(SPLIT.replace("0.25", "0.3"))  # a re-run cell with changed source (no cell ids: a new cell)
    shell.run(FIT)
    check(shell)

    shell.run("scores = [acc for _ in range(3]", ok=False)  # a SyntaxError, then its fix
    shell.run(FIT)
    check(shell)
    shell.run("scores = [acc for _ in range(3)]")
    shell.run(FIT)
    check(shell)

    bad = shell.run("%%guarded_train --quiet\nbest = max(scores", ok=False)  # a guarded body that does not compile
    assert isinstance(bad.error_in_exec, SyntaxError)
    check(shell)
    shell.run("%%guarded_train --quiet\nbest = max(scores)")
    fixed = check(shell)
    assert "NB001" not in ids(fixed)


def test_cells_replaced_by_a_rerun_with_cell_ids_match_full_analysis(shell, resumed):
    run_with_id(shell, SETUP, "setup")
    run_with_id(shell, DATA, "data")
    run_with_id(shell, SPLIT, "split")
    run_with_id(shell, FIT, "fit")
    check(shell)
    run_with_id(shell, LEAKY, "scale")  # run later, placed before: the session now holds a leaky X
    run_with_id(shell, SPLIT.replace("0.25", "0.2"), "split")  # replaces the earlier split, so the history shrinks
    run_with_id(shell, FIT, "fit")
    check(shell)
    run_with_id(shell, "X = X * 1.0", "scale")  # the leak is fixed in place
    run_with_id(shell, FIT, "fit")
    check(shell)


def test_unchanged_history_reuses_the_analysis_and_still_matches(shell):
    for src in (SETUP, DATA, LEAKY, SPLIT):
        shell.run(src)
    reports = []
    for _ in range(3):  # the same guarded cell, not stored: the history is the same each time
        shell.ip.run_cell(FIT, store_history=False)
        reports.append(normalised(shell.last.static))
        check(shell, FIT.partition("\n")[2])
    assert reports[0] == reports[1] == reports[2]
    assert "LEAK001" in ids(reports[-1]), "the leak is still reported when the analysis is reused"


def test_usage_index_built_per_cell_equals_one_walk_over_the_notebook(tmp_path):
    """`Usage.build` merges one index per cell; a walk over the whole notebook gives the same lists in the same
    order (calls inside notebook functions, nested loops, functions redefined in a later cell)."""
    import nbformat

    from jupyter_trainguard.analysis.parsed import ParsedNotebook
    from jupyter_trainguard.analysis.usage import Usage
    from jupyter_trainguard.notebook.load import load_notebook

    sources = [
        SETUP + "\nimport torch",
        "def step(model, opt, xb):\n    opt.zero_grad()\n    loss = model(xb).sum()\n    loss.backward()\n"
        "    opt.step()",
        "for epoch in range(3):\n    for xb in batches:\n        step(model, opt, xb)\n    sched.step()\n"
        "    with torch.no_grad():\n        val = model(xv)",
        "def step(model, opt, xb):\n    model(xb).sum().backward()\n    opt.step()",  # redefined: the last one wins
        "X_train, X_test = train_test_split(X, random_state=0)\nf(g(1))(2)\ntry:\n    torch.save(model, 'm.pt')\n"
        "except OSError:\n    pass",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s, execution_count=i + 1)
                                         for i, s in enumerate(sources)])
    path = tmp_path / "train.ipynb"
    nbformat.write(nb, path)
    parsed = ParsedNotebook.from_notebook(load_notebook(path))

    class Walked:  # a parsed notebook without per-cell node lists: indexed by one walk over every tree
        def __init__(self, p: ParsedNotebook) -> None:
            self.trees, self.qualname = list(p.trees), p.qualname

    per_cell, walked = Usage.build(parsed), Usage.build(Walked(parsed))  # type: ignore[arg-type]
    again = Usage.build(ParsedNotebook.from_notebook(parsed.notebook, parsed))  # cells reused: memoised parts
    for u in (walked, again):
        assert [(c.pos, c.node, c.q, c.in_func) for c in u.calls] == \
            [(c.pos, c.node, c.q, c.in_func) for c in per_cell.calls]
        assert u.funcs == per_cell.funcs and u.assigned_calls == per_cell.assigned_calls
        assert u.loops == per_cell.loops and u.assigns == per_cell.assigns and u.blocks == per_cell.blocks
    assert "zero_grad" not in ast.unparse(per_cell.funcs["step"])
    assert [c.q for c in per_cell.named("torch.save", "sklearn.model_selection.train_test_split")] == \
        [c.q for c in per_cell.calls if c.q in ("torch.save", "sklearn.model_selection.train_test_split")]
    assert per_cell.methods("step", "backward") == [c for c in per_cell.calls if isinstance(c.node.func, ast.Attribute)
                                                     and c.node.func.attr in ("step", "backward")]


def test_rules_that_read_files_are_never_reused():
    """A rule module that can reach the file system (os, pathlib, the components index) may not have its notebook
    rules' hits reused for an unchanged history: they must be listed in `READS_OUTSIDE_NOTEBOOK`."""
    import importlib
    import inspect

    from jupyter_trainguard.rules.registry import READS_OUTSIDE_NOTEBOOK, notebook_rules, reusable

    reaching = {"os", "pathlib", "components", "constants", "environment"}
    for r in notebook_rules():
        module = importlib.import_module(r.check.__module__ if r.check else r.combine.__module__)  # type: ignore
        tree = ast.parse(inspect.getsource(module))
        imported = {a.name.split(".")[-1] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {(n.module or "").split(".")[-1] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        if imported & reaching and r.scope == "notebook":
            assert r.id in READS_OUTSIDE_NOTEBOOK, f"{r.id} ({module.__name__}) may read files"
        if r.id in READS_OUTSIDE_NOTEBOOK or r.scope != "notebook":
            assert not reusable(r)


def test_usage_index_continued_over_added_cells_equals_a_fresh_one(monkeypatch):
    """The guard's next analysis extends the last index by the cells added since; its lists, lookup tables and
    call filters equal those of an index built from scratch over the whole history, at every step (a new
    import, which changes the aliases, starts it afresh)."""
    from jupyter_trainguard.analysis.parsed import ParsedNotebook
    from jupyter_trainguard.analysis.usage import Usage
    from jupyter_trainguard.notebook.load import notebook_from_sources

    history = [
        SETUP + "\nimport torch",
        "model = torch.nn.Linear(4, 1).cuda()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)",
        "for xb, yb in batches:\n    loss = (model(xb) - yb).pow(2).mean()\n    loss.backward()\n    opt.step()",
        "%%guarded_train --seed 3\nclf = LogisticRegression().fit(X_train, y_train)",
        "pass",
        "torch.save(model.state_dict(), 'last.pt')\nclf.score(X_test, y_test)",
        "import os\nos.environ['PYTHONHASHSEED'] = '0'",  # new aliases: a fresh index
        "opt.zero_grad()\nmodel.to('cuda:0')",
    ]
    continued: list[int] = []
    original = Usage._continue

    def spy(self, previous, added):
        continued.append(len(added))
        return original(self, previous, added)

    monkeypatch.setattr(Usage, "_continue", spy)

    def facts(u: Usage) -> tuple:
        tables = tuple({k: [u.calls[i].node for i in v] for k, v in t.items()} for t in u._indexes)
        return ([(c.pos, c.node, c.q, c.in_func) for c in u.calls], u.funcs, u.assigns, u.assigned_calls, u.blocks,
                u.loops, tables, [c.node for c in u.fits], [c.node for c in u.cuda_uses], u.guard_seeded(),
                [c.node for c in u.optimizer_steps], u.tracking())

    previous_cells, previous_parsed, previous_usage = None, None, None
    for n in range(1, len(history) + 1):
        sources, counts = history[:n], list(range(1, n + 1))
        nb = notebook_from_sources("<session>", sources, counts)
        if previous_cells is not None:  # the guard keeps an unchanged cell as the same object, with its parse
            nb.cells[: len(previous_cells)] = previous_cells
        parsed = ParsedNotebook.from_notebook(nb, previous_parsed)
        u = Usage.build(parsed, previous_usage)
        facts(u)  # computes the tables and filters the next step continues
        fresh = Usage.build(ParsedNotebook.from_notebook(notebook_from_sources("<session>", sources, counts)))
        got, want = facts(u), facts(fresh)
        assert [(p, ast.dump(node), q, f) for p, node, q, f in got[0]] == \
            [(p, ast.dump(node), q, f) for p, node, q, f in want[0]]
        for mine, theirs in zip(got[1:], want[1:]):
            assert _dumped(mine) == _dumped(theirs)
        previous_cells, previous_parsed, previous_usage = nb.cells, parsed, u
    assert continued[:5] == [1, 1, 1, 1, 1], "cells added under the same aliases extend the last index"
    assert len(continued) == len(history) - 2, "every step continues the last index but the first and the new import"


def _dumped(value: Any) -> Any:
    """`value` with AST nodes (and cells) compared by content, so two parses of the same text are equal."""
    if isinstance(value, ast.AST):
        return ast.dump(value, include_attributes=True)
    if isinstance(value, dict):
        return {k: _dumped(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_dumped(v) for v in value]
    if isinstance(value, set):
        return sorted(value)
    if hasattr(value, "source") and hasattr(value, "index"):
        return (value.index, value.source)
    return value


def test_results_mapped_over_a_continued_index_are_computed_for_added_items_only():
    """`Usage.mapped` (per cell, per loop...): the next analysis of a growing session computes only the items
    added since the last one, under the same key; a new key, or an index not continued, computes them all."""
    from jupyter_trainguard.analysis.parsed import ParsedNotebook
    from jupyter_trainguard.analysis.usage import Usage
    from jupyter_trainguard.notebook.load import notebook_from_sources

    history = ["import torch", "for x in xs:\n    loss.backward()\n    opt.step()", "a = 1",
               "while True:\n    opt.zero_grad()\n    break"]
    seen: list[object] = []

    def judge(item):
        seen.append(item)
        return type(item).__name__

    prev_cells = prev_parsed = prev_u = None
    for n in range(1, len(history) + 1):
        nb = notebook_from_sources("<session>", history[:n], list(range(1, n + 1)))
        if prev_cells is not None:
            nb.cells[: len(prev_cells)] = prev_cells
        parsed = ParsedNotebook.from_notebook(nb, prev_parsed)
        u = Usage.build(parsed, prev_u)
        before = len(seen)
        cells = u.mapped("judge", "cells", judge)
        assert cells == ["ParsedCell"] * n
        assert len(seen) - before == 1, "only the added cell is judged"
        loops = u.mapped("judge", "loops", judge)
        assert len(loops) == len(u.loops)
        prev_cells, prev_parsed, prev_u = nb.cells, parsed, u
    assert sum(isinstance(x, tuple) for x in seen) == 2, "each loop judged once over the whole session"
    before = len(seen)
    u.mapped("another key", "cells", judge)
    assert len(seen) - before == len(history), "a new key computes every item"
