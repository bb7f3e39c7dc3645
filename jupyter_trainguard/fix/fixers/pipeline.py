"""PIPE001 (unsafe): a standard notebook's own training cell is replaced by a call to the configured runner, with
the runner's parameters taken from the notebook's constants of the same name. The old code stays in the cell,
commented out, for review. Applied only when the mapping is unambiguous; otherwise the reason is reported."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ..context import FixContext, View
from ..model import UNSAFE
from ..registry import fixer
from ..work import TextEdit


@dataclass
class Runner:
    module: str  # import path, e.g. notebooks.components.experiment_runner
    function: str
    required: list[str]
    optional: list[str]


def load_runner(ctx: FixContext) -> Runner | str:
    cfg = ctx.config
    if not cfg.runner or "." not in cfg.runner:
        return "no runner is configured ([tool.trainguard] runner = \"module.function\")"
    mod, fn = cfg.runner.rsplit(".", 1)
    pkg = cfg.package_name
    folder = cfg.components_dir
    if folder is None or pkg is None:
        return "no components folder is configured ([tool.trainguard] components)"
    path = folder / (mod.replace(".", "/") + ".py")
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError) as exc:
        return f"the runner module {path} cannot be read ({type(exc).__name__})"
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn:
            a = node.args
            positional = a.posonlyargs + a.args
            n_req = len(positional) - len(a.defaults)
            required = [p.arg for p in positional[:n_req]]
            optional = [p.arg for p in positional[n_req:]]
            for p, d in zip(a.kwonlyargs, a.kw_defaults):
                (optional if d is not None else required).append(p.arg)
            if a.posonlyargs:
                return f"{fn}() has positional-only parameters; call it by hand"
            return Runner(f"{pkg}.{mod}", fn, required, optional)
    return f"{path} defines no function {fn}()"


def _constants(ctx: FixContext) -> dict[str, str]:
    """lower-case name -> constant name, for UPPER_CASE names assigned at the top level."""
    import libcst as cst

    out: dict[str, str] = {}
    for _, stmt in ctx.top_statements():
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:
                        if isinstance(t.target, cst.Name) and t.target.value.isupper():
                            out[t.target.value.lower()] = t.target.value
    return out


def _training_cells(ctx: FixContext) -> list[View]:
    by_index = {v.cell.orig.index: v for v in ctx.views() if v.cell.orig is not None}
    cells: list[int] = []
    if ctx.engine.has_rule("PIPE001"):
        cells = sorted({f.location.cell for f in ctx.engine.of("PIPE001") if f.location.cell is not None})
    else:
        try:
            from ...analysis.parsed import ParsedNotebook
            from ...rules.pipeline_usage import training_signs
        except ImportError:
            return []
        signs = training_signs(ParsedNotebook.from_notebook(ctx.work.notebook))
        cells = sorted({s.cell.index for s in signs})
    return [by_index[i] for i in cells if i in by_index]


def _defined_and_used_later(ctx: FixContext, view: View) -> list[str]:
    """Names the training cell binds that later cells read."""
    try:
        tree = ast.parse(view.parsed.code)
    except SyntaxError:
        return ["<unparsable>"]
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
    views = ctx.views()
    later: set[str] = set()
    for v in views[views.index(view) + 1:]:
        try:
            later.update(n.id for n in ast.walk(ast.parse(v.parsed.code)) if isinstance(n, ast.Name))
        except SyntaxError:
            continue
    return sorted(bound & later)


@fixer(id="use-runner", rules="PIPE001", safety=UNSAFE, category="pipeline", order=5,
       description="Replace a standard notebook's own training cell by a call to the configured runner (the old "
                   "code is kept, commented out), when the mapping is unambiguous.")
def use_runner(ctx: FixContext) -> None:
    if ctx.config.notebook_kind(ctx.path) != "standard" or "PIPE001" not in ctx.selected:
        return
    cells = _training_cells(ctx)
    if not cells:
        return
    first = cells[0]
    runner = load_runner(ctx)
    if isinstance(runner, str):
        ctx.leave("PIPE001", first, None, runner + ".")
        return
    if len(cells) > 1:
        ctx.leave("PIPE001", first, None, f"training code spans {len(cells)} cells "
                  f"({', '.join(v.cell.label() for v in cells)}); which one the runner replaces is ambiguous.")
        return
    if not ctx.allowed("PIPE001", first, 1, first.parsed.source.count("\n") + 1):
        return
    used = _defined_and_used_later(ctx, first)
    if used:
        ctx.leave("PIPE001", first, None, f"later cells use {', '.join(used[:6])} from the training cell, so "
                                          "replacing it would break them.")
        return
    qual = f"{runner.module}.{runner.function}"
    existing = [v for v, _, q in ctx.calls() if q == qual and v is not first]
    consts = _constants(ctx)
    missing = [p for p in runner.required if p.lower() not in consts]
    if not existing and missing:
        ctx.leave("PIPE001", first, None, f"{runner.function}() needs {', '.join(missing)}, which no constant of the "
                                          "notebook provides (expected UPPER_CASE constants of the same name).")
        return
    old = first.parsed.source
    kept = "\n".join(("# " + ln) if ln.strip() else "#" for ln in old.split("\n"))
    if existing:
        header = (f"# Training runs in the shared pipeline: {runner.function}() is already called in "
                  f"{existing[0].cell.label()}.\n# The notebook's own training code is disabled (trainguard fix "
                  "PIPE001); delete it once reviewed:")
        new = f"{header}\n{kept}"
        why = f"the notebook already calls {runner.function}() in {existing[0].cell.label()}"
    else:
        local = next((k for k, t in ctx.aliases.items() if t == qual), None)
        lines = [] if local else [f"from {runner.module} import {runner.function}", ""]
        params = [p for p in runner.required + runner.optional if p.lower() in consts]
        call = f"{local or runner.function}(" + ", ".join(f"{p}={consts[p.lower()]}" for p in params) + ")"
        result = "results" if "results" not in ctx.aliases else "runner_results"
        header = "# Previous in-notebook training code, kept for review (trainguard fix PIPE001); delete it once the " \
                 "runner's results match:"
        new = "\n".join(lines + [f"{result} = {call}", "", header, kept])
        why = f"it now calls {call}"
    n = old.count("\n") + 1
    ctx.edit(first, [TextEdit(1, 0, n, len(old.split("\n")[-1]), new)],
             summary=f"training cell replaced by {runner.function}()",
             detail=f"a standard notebook must only call the shared runner, but this cell trains by itself; {why}. "
                    "The old code is kept as comments.", line=1)
