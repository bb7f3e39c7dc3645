"""PHEALTH010-013: error handling in the components' source, read with `ast` (nothing is imported)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from ..analysis.parsed import qualname
from .sources import ComponentModule, relative_target

FuncDef = ast.FunctionDef | ast.AsyncFunctionDef
_LOG_WORDS = ("log", "exception", "error", "warn", "critical", "print", "format_exc", "print_exc")


@dataclass
class StaticHit:
    rule_id: str
    module: str  # component short name
    line: int
    message: str
    evidence: dict


def _ids(nodes: list[ast.stmt]) -> set[int]:
    return {id(n) for stmt in nodes for n in ast.walk(stmt)}


def _tries(fn: ast.AST) -> list[ast.Try]:
    return [n for n in ast.walk(fn) if isinstance(n, (ast.Try, getattr(ast, "TryStar", ast.Try)))]


def _broad(handler: ast.ExceptHandler, aliases: dict[str, str]) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(qualname(k, aliases).rsplit(".", 1)[-1] in ("Exception", "BaseException") for k in kinds)


def _calls(nodes: list[ast.stmt]) -> Iterator[ast.Call]:
    for stmt in nodes:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Call):
                yield n


def _logs(handler: ast.ExceptHandler, aliases: dict[str, str]) -> bool:
    for call in _calls(handler.body):
        name = qualname(call.func, aliases).lower()
        leaf = name.rsplit(".", 1)[-1]
        if name.startswith(("logging.", "logger.", "log.", "warnings.", "traceback.")) or \
                any(w in leaf for w in _LOG_WORDS):
            return True
    return False


class Checker:
    """Evaluates the four error-handling rules over the parsed component modules."""

    def __init__(self, mods: list[ComponentModule], package: str, runner: str | None, training_loop: str | None,
                 artifacts: str) -> None:
        self.mods = {m.name: m for m in mods}
        self.package, self.runner, self.loop, self.artifacts = package, runner, training_loop, artifacts

    def _function(self, target: str | None) -> tuple[ComponentModule, FuncDef] | None:
        if not target or "." not in target:
            return None
        mod, _, name = target.partition(".")
        cm = self.mods.get(mod)
        fn = cm.function(name) if cm else None
        return (cm, fn) if cm and fn else None

    def _target(self, cm: ComponentModule, call: ast.Call) -> str | None:
        return relative_target(qualname(call.func, cm.aliases), self.package)

    def _frees_gpu(self, cm: ComponentModule, nodes: list[ast.stmt], depth: int = 0) -> bool:
        """`torch.cuda.empty_cache()` among `nodes`, directly or inside a component function they call."""
        for call in _calls(nodes):
            name = qualname(call.func, cm.aliases)
            if name.endswith("cuda.empty_cache"):
                return True
            tgt = self._target(cm, call)
            found = self._function(tgt) if depth < 3 else None
            if found and self._frees_gpu(found[0], found[1].body, depth + 1):
                return True
        return False

    def run(self) -> list[StaticHit]:
        hits: list[StaticHit] = []
        hits += self.training_loop_handles_errors()
        hits += self.runner_saves_on_failure()
        hits += self.gpu_released_on_error()
        for cm in self.mods.values():
            hits += self.tracking_runs_closed(cm)
        return hits

    # PHEALTH010
    def training_loop_handles_errors(self) -> list[StaticHit]:
        found = self._function(self.loop)
        if not found:
            return []
        cm, fn = found
        tries = _tries(fn)
        out = []
        logged = [h for t in tries for h in t.handlers if _broad(h, cm.aliases) and _logs(h, cm.aliases)]
        if not logged:
            caught = any(h for t in tries for h in t.handlers)
            why = "catches exceptions without logging them" if caught else "does not catch exceptions"
            out.append(StaticHit("PHEALTH010", cm.name, fn.lineno,
                                 f"{fn.name}() {why}: a failure mid-epoch loses its context.",
                                 {"function": self.loop, "handlers": caught}))
        if not any(t.finalbody for t in tries):
            out.append(StaticHit("PHEALTH010", cm.name, fn.lineno,
                                 f"{fn.name}() has no finally block: cleanup (eval mode, freeing memory) is skipped "
                                 "when training fails.", {"function": self.loop, "finally": False}))
        return out

    # PHEALTH011
    def runner_saves_on_failure(self) -> list[StaticHit]:
        found = self._function(self.runner)
        if not found:
            return []
        cm, fn = found
        saves, trains = [], []
        loop_module = (self.loop or "").split(".")[0]
        for call in _calls(fn.body):
            tgt = self._target(cm, call) or ""
            mod, _, leaf = tgt.partition(".")
            if mod == self.artifacts and not leaf.startswith(("load", "read", "_")):
                saves.append(call)
            if tgt == self.loop or (loop_module and mod == loop_module and leaf == (self.loop or "").split(".")[-1]):
                trains.append(call)
        if not saves:
            return [StaticHit("PHEALTH011", cm.name, fn.lineno,
                              f"{fn.name}() never saves artifacts through {self.artifacts}: a run leaves no report.",
                              {"function": self.runner})]
        for t in _tries(fn):
            covered = _ids(t.body)
            if trains and not any(id(c) in covered for c in trains):
                continue
            safe = _ids(t.finalbody)
            for h in t.handlers:
                if _broad(h, cm.aliases):
                    safe |= _ids(_until_raise(h.body))
            if any(id(s) in safe for s in saves):
                return []
        first = min(saves, key=lambda c: ("report" not in qualname(c.func, cm.aliases).lower(), c.lineno))
        what = "training" if trains else "the run"
        return [StaticHit("PHEALTH011", cm.name, first.lineno,
                          f"{fn.name}() saves artifacts only when {what} succeeds: the call on line {first.lineno} "
                          "is not in a finally block (or a broad except).",
                          {"function": self.runner, "save_lines": [c.lineno for c in saves]})]

    # PHEALTH012
    def gpu_released_on_error(self) -> list[StaticHit]:
        places = [f for f in (self._function(self.runner), self._function(self.loop)) if f]
        if not places:
            return []
        for cm, fn in places:
            for t in _tries(fn):
                cleanup = list(t.finalbody) + [s for h in t.handlers for s in h.body]
                if self._frees_gpu(cm, cleanup):
                    return []
        cm, fn = places[0]
        names = " or ".join(f"{f.name}()" for _, f in places)
        return [StaticHit("PHEALTH012", cm.name, fn.lineno,
                          f"GPU memory is not released on error: neither {names} calls torch.cuda.empty_cache() "
                          "in an except or finally block.", {"functions": [f.name for _, f in places]})]

    # PHEALTH013
    def tracking_runs_closed(self, cm: ComponentModule) -> list[StaticHit]:
        if cm.tree is None:
            return []
        out = []
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(cm.tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in ast.walk(cm.tree):
            if not isinstance(node, ast.Call):
                continue
            name = qualname(node.func, cm.aliases)
            if name not in ("mlflow.start_run", "wandb.init"):
                continue
            parent = parents.get(id(node))
            if isinstance(parent, ast.withitem) or (isinstance(parent, ast.Call) and
                                                    dotted_leaf(parent.func) == "enter_context"):
                continue
            scope = _enclosing_function(node, parents) or cm.tree
            closer = "end_run" if name.startswith("mlflow") else "finish"
            if any(any(qualname(c.func, cm.aliases).endswith(closer) for c in _calls(t.finalbody))
                   for t in _tries(scope)):
                continue
            out.append(StaticHit("PHEALTH013", cm.name, node.lineno,
                                 f"{name}() is not used as a with block and no finally block calls {closer}(): "
                                 "a failure leaves the run open.", {"call": name}))
        return out


def _until_raise(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements of a block that run: those before its first `raise`."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Raise):
            return body[:i]
    return body


def dotted_leaf(node: ast.AST) -> str:
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def _enclosing_function(node: ast.AST, parents: dict[int, ast.AST]) -> ast.AST | None:
    cur = parents.get(id(node))
    while cur is not None and not isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)):
        cur = parents.get(id(cur))
    return cur
