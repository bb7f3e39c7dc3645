"""Syntactic facts about a notebook shared by the reproducibility, checkpoint, tracking and loop rules.

Every call is listed once with its resolved name and its position in execution order, so rules can ask
"is there a seed call", "was CUDA used before this line", "does this notebook train at all".
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Hashable, Iterator
from functools import cached_property
from typing import Any, ClassVar

from ..findings import FACTORY, Record, factory
from ..notebook.model import Cell
from .names import CV_FUNCS
from .parsed import ParsedNotebook, last_part

TRACKING_ROOTS = frozenset({"mlflow", "wandb", "neptune", "comet_ml", "clearml", "aim", "dvclive", "tensorboardX",
                            "trackio", "swanlab"})
SEED_ALL = frozenset({"seed_everything", "set_seed", "set_random_seed", "enable_full_determinism",
                      "seed_all", "fix_seed", "set_seeds", "set_global_seed", "seed_torch", "setup_seed",
                      "reset_seeds", "seed_worker"})


class CallSite(Record):
    """One call: where it ran, its node and its resolved name."""

    pos: tuple[int, int, int]  # (cell order, line, col)
    cell: Cell
    node: ast.Call
    q: str  # resolved qualified name ("" when not a name chain; ".attr" for chained calls)
    in_func: str | None  # name of the enclosing notebook function, if any

    def __init__(self, pos: tuple[int, int, int], cell: Cell, node: ast.Call, q: str, in_func: str | None) -> None:
        self.pos = pos
        self.cell = cell
        self.node = node
        self.q = q
        self.in_func = in_func

    @cached_property
    def leaf(self) -> str:
        return last_part(self.q) if self.q else ""

    def kw(self, name: str) -> ast.expr | None:
        for k in self.node.keywords:
            if k.arg == name:
                return k.value
        return None

    def receiver(self) -> str:
        f = self.node.func
        if isinstance(f, ast.Attribute):
            v = f.value
            while isinstance(v, (ast.Attribute, ast.Call, ast.Subscript)):
                v = v.func if isinstance(v, ast.Call) else v.value
            return v.id if isinstance(v, ast.Name) else ""
        return ""


class Usage(Record):
    """The notebook's calls, functions, assignments, blocks and loops, in execution order."""

    parsed: ParsedNotebook
    calls: list[CallSite] = factory(list)
    funcs: dict[str, ast.FunctionDef] = factory(dict)
    order: dict[int, int] = factory(dict)  # cell index -> execution position
    assigned_calls: list[tuple[str, str]] = factory(list)  # (name, qualname of the call)
    assigns: list[tuple[Cell, ast.Assign]] = factory(list)
    blocks: list[tuple[Cell, ast.stmt]] = factory(list)  # with / try statements
    loops: list[tuple[Cell, ast.stmt, tuple]] = factory(list)  # (cell, loop, enclosing loops)

    def __init__(self, parsed: ParsedNotebook, calls: list[CallSite] = FACTORY,
                 funcs: dict[str, ast.FunctionDef] = FACTORY, order: dict[int, int] = FACTORY,
                 assigned_calls: list[tuple[str, str]] = FACTORY, assigns: list[tuple[Cell, ast.Assign]] = FACTORY,
                 blocks: list[tuple[Cell, ast.stmt]] = FACTORY,
                 loops: list[tuple[Cell, ast.stmt, tuple]] = FACTORY) -> None:
        self.parsed = parsed
        self.calls = [] if calls is FACTORY else calls
        self.funcs = {} if funcs is FACTORY else funcs
        self.order = {} if order is FACTORY else order
        self.assigned_calls = [] if assigned_calls is FACTORY else assigned_calls
        self.assigns = [] if assigns is FACTORY else assigns
        self.blocks = [] if blocks is FACTORY else blocks
        self.loops = [] if loops is FACTORY else loops

    @classmethod
    def build(cls, parsed: ParsedNotebook, previous: Usage | None = None) -> Usage:
        """Index the notebook's nodes. A `ParsedNotebook` is indexed cell by cell, each cell's index kept on its
        parsed cell while the cell, its place in execution order and the import aliases stay the same (the guard
        re-analyses a growing session); the lists and their order are those of one walk over the whole notebook.

        `previous`: the index of the same session's last analysis. When its cells are the first cells of this one
        (the same parsed parts, the same aliases), its lists and lookup tables are extended by the new cells only."""
        if previous is not None:
            continued = cls._continued(parsed, previous)
            if continued is not None:
                return continued
        u = cls(parsed)
        for i, (cell, _) in enumerate(parsed.trees):
            u.order[cell.index] = i
        if not hasattr(parsed, "aliases_key"):  # an older parsed notebook without per-cell node lists: one walk
            u._extend([_index([(cell, n) for cell, tree in parsed.trees for n in ast.walk(tree)], parsed, u.order)])
            _sorted((u.calls, u.funcs, u.assigns, u.assigned_calls, u.blocks, u.loops), u.order)
            return u
        parts = [_part(pc, parsed, u.order) for pc in parsed.cells if pc.tree is not None]
        if len(parts) != len(u.order):  # cells sharing an index: sort as a whole (and never continue it)
            u._extend(parts)
            _sorted((u.calls, u.funcs, u.assigns, u.assigned_calls, u.blocks, u.loops), u.order)
            return u
        # every cell's part is sorted and its place in execution order (the first key) grows from part to part:
        # the concatenation is sorted
        u._parts = parts
        u._extend(parts)
        return u

    @classmethod
    def _continued(cls, parsed: ParsedNotebook, previous: Usage) -> Usage | None:
        """`previous` extended by the cells `parsed` adds after its own (the same parsed cells first, the same
        aliases, no new cell sharing an index with an earlier one); None when it is not such a continuation."""
        old, new = previous.parsed.cells, parsed.cells
        if (previous._parts is None or not hasattr(parsed, "aliases_key")
                or parsed.aliases_key is not previous.parsed.aliases_key or len(new) < len(old)
                or not all(a is b for a, b in zip(old, new))):
            return None
        u = cls(parsed)
        u.order = dict(previous.order)
        added = []
        for pc in new[len(old):]:
            if pc.tree is None:
                continue
            if pc.cell.index in u.order:
                return None  # cells sharing an index: sorted as a whole by a full build
            u.order[pc.cell.index] = len(u.order)
            added.append(_part(pc, parsed, u.order))
        u._parts = previous._parts + added
        u._continue(previous, added)
        u.__dict__["_inherited"] = dict(previous.__dict__.get("_mapped", {}))  # results for the first items
        if "_guard_seeded" in previous.__dict__:  # cells are only added: a seeding cell stays, new ones may seed
            u.__dict__["_guard_seeded"] = previous.__dict__["_guard_seeded"] or _guard_seeds(new[len(old):])
        return u

    # the per-cell parts concatenated into the lists, when they are (a plain attribute: not a field of the record)
    _parts: ClassVar[list[tuple] | None] = None

    def mapped(self, key: Hashable, source: str, fn: Callable[[Any], Any]) -> list:
        """`[fn(item) for item in <source>]`, the source being "cells" (the parsed cells, in execution order),
        "calls", "loops" or "assigns". `key` names `fn` with every input it reads besides the item (a rule id and
        its settings). An index continued from the session's last analysis holds that analysis' results under
        the same key for its first items, which are the same objects: only the added items are computed."""
        done = self.__dict__.setdefault("_mapped", {})
        hit = done.get((key, source))
        if hit is None:
            items = self.parsed.cells if source == "cells" else getattr(self, source)
            before = self.__dict__.get("_inherited", {}).get((key, source), [])
            hit = done[(key, source)] = before + [fn(x) for x in items[len(before):]]
        return hit

    def _extend(self, parts: list[tuple]) -> None:
        for calls, funcs, assigns, assigned_calls, blocks, loops in parts:
            self.calls.extend(calls)
            self.funcs.update(funcs)
            self.assigns.extend(assigns)
            self.assigned_calls.extend(assigned_calls)
            self.blocks.extend(blocks)
            self.loops.extend(loops)

    def _continue(self, previous: Usage, added: list[tuple]) -> None:
        """This index as `previous` plus the parts `added`: the lists copied and extended, and the lookup tables
        and call filters `previous` computed extended by the new calls only (never recomputed over the old)."""
        n = len(previous.calls)
        self.calls = list(previous.calls)
        self.funcs = dict(previous.funcs)
        self.assigns = list(previous.assigns)
        self.assigned_calls = list(previous.assigned_calls)
        self.blocks = list(previous.blocks)
        self.loops = list(previous.loops)
        self._extend(added)
        new_calls = self.calls[n:]
        done = previous.__dict__
        if "_indexes" in done:
            tables = tuple(dict(t) for t in done["_indexes"])
            touched: set[tuple[int, str]] = set()
            for (k, key), i in _index_keys(new_calls, n):
                table = tables[k]
                if (k, key) not in touched:
                    touched.add((k, key))
                    table[key] = list(table.get(key, ()))
                table[key].append(i)
            self.__dict__["_indexes"] = tables
        if "fits" in done:
            self.__dict__["fits"] = done["fits"] + self._fits_among(new_calls)
        if "cuda_uses" in done:
            self.__dict__["cuda_uses"] = done["cuda_uses"] + _cuda_among(new_calls)

    def pos(self, cell: Cell, node: ast.AST) -> tuple[int, int, int]:
        return (self.order.get(cell.index, 0), getattr(node, "lineno", 0), getattr(node, "col_offset", 0))

    def named(self, *names: str) -> list[CallSite]:
        return self._select(self._by_name, names)

    def leaf_in(self, names) -> list[CallSite]:
        return self._select(self._by_leaf, names)

    def methods(self, *attrs: str) -> list[CallSite]:
        return self._select(self._by_method, attrs)

    def select(self, names=(), leaves=(), methods=()) -> list[CallSite]:
        """The calls with any of these resolved names, leaf names or method names, each once, in the order of
        `calls` (as one filter over them would give)."""
        found = {i for index, keys in ((self._by_name, names), (self._by_leaf, leaves), (self._by_method, methods))
                 for k in set(keys) for i in index.get(k, ())}
        return [self.calls[i] for i in sorted(found)]

    def leaves(self) -> Iterator[str]:
        """Every leaf name a call of the notebook has (to select calls by a pattern over names)."""
        return iter(self._by_leaf)

    def _select(self, index: dict[str, list[int]], keys) -> list[CallSite]:
        """The calls under any of `keys` in `index`, in the order of `calls` (as a filter over them would give)."""
        found = [i for k in set(keys) for i in index.get(k, ())]
        if len(found) > 1:
            found.sort()
        return [self.calls[i] for i in found]

    @cached_property
    def _indexes(self) -> tuple[dict[str, list[int]], dict[str, list[int]], dict[str, list[int]]]:
        """Positions in `calls` by resolved name, by leaf name and by method name (one pass)."""
        tables: tuple[dict[str, list[int]], dict[str, list[int]], dict[str, list[int]]] = ({}, {}, {})
        for (k, key), i in _index_keys(self.calls, 0):
            tables[k].setdefault(key, []).append(i)
        return tables

    @property
    def _by_name(self) -> dict[str, list[int]]:
        return self._indexes[0]

    @property
    def _by_leaf(self) -> dict[str, list[int]]:
        return self._indexes[1]

    @property
    def _by_method(self) -> dict[str, list[int]]:
        return self._indexes[2]

    def roots(self) -> set[str]:
        return self.parsed.imported_modules

    @cached_property
    def torch_train(self) -> list[CallSite]:
        """`.backward()` calls (a manual torch training loop) when torch is imported."""
        if "torch" not in self.roots():
            return []
        return self.methods("backward")

    @cached_property
    def optimizer_steps(self) -> list[CallSite]:
        return [c for c in self.methods("step") if "sched" not in c.receiver().lower()]

    @cached_property
    def fits(self) -> list[CallSite]:
        """Model training calls: `.fit(`/`.train(` of ML objects, `xgb.train`, `Trainer.train`."""
        return self._fits_among(self.calls)

    def _fits_among(self, calls: list[CallSite]) -> list[CallSite]:
        out: list[CallSite] = []
        ml = self.roots() & {"sklearn", "xgboost", "lightgbm", "catboost", "keras", "tensorflow", "torch",
                             "transformers", "pytorch_lightning", "lightning", "statsmodels", "imblearn"}
        if not ml:
            return out
        for c in calls:
            f = c.node.func
            if isinstance(f, ast.Attribute) and f.attr in ("fit", "fit_generator", "partial_fit") and \
                    (c.node.args or c.node.keywords):
                out.append(c)
            elif c.q in ("xgboost.train", "lightgbm.train", "catboost.train") or (
                    c.q.startswith("sklearn.model_selection.") and c.leaf in CV_FUNCS):
                out.append(c)
            elif isinstance(f, ast.Attribute) and f.attr == "train" and not c.node.args and \
                    "trainer" in c.receiver().lower():
                out.append(c)
        return out

    @cached_property
    def trains(self) -> bool:
        return bool(self.fits or (self.torch_train and self.optimizer_steps))

    def first_training(self) -> CallSite | None:
        cands = self.fits + [c for c in self.torch_train]
        return min(cands, key=lambda c: c.pos) if cands else None

    @cached_property
    def cuda_uses(self) -> list[CallSite]:
        return _cuda_among(self.calls)

    def seeded_all(self) -> bool:
        return bool(self.leaf_in(SEED_ALL)) or self.guard_seeded()

    def guard_seeded(self) -> bool:
        """A `%%guarded_train --seed N` cell: the guard seeds Python `random`, NumPy and torch before it runs."""
        return self._guard_seeded

    @cached_property
    def _guard_seeded(self) -> bool:
        return _guard_seeds(self.parsed.cells)

    def tracking(self) -> set[str]:
        roots = self.roots() & TRACKING_ROOTS
        if any(v.startswith(("torch.utils.tensorboard", "tensorflow.summary")) for v in self.parsed.aliases.values()):
            roots.add("tensorboard")
        if self.leaf_in(("TensorBoard", "SummaryWriter", "MLFlowLogger", "WandbLogger", "TensorBoardLogger",
                         "CSVLogger")):
            roots.add("tensorboard")
        return roots


_GUARD_SEED = re.compile(r"--seed(=|\s+)-?\d+")


def _guard_seeds(cells: list) -> bool:
    """One of these parsed cells is a `%%guarded_train --seed N` cell."""
    return any(pc.cell.cell_magic == "guarded_train" and
               _GUARD_SEED.search(pc.cell.source.lstrip("\n").partition("\n")[0]) for pc in cells)


def _cuda_among(calls: list[CallSite]) -> list[CallSite]:
    """The calls that put work on CUDA."""
    out = []
    for c in calls:
        if c.q.startswith("torch.cuda.") and c.leaf not in ("is_available", "device_count"):
            out.append(c)
        elif isinstance(c.node.func, ast.Attribute) and c.node.func.attr == "cuda":
            out.append(c)
        elif c.leaf in ("to", "device") and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("cuda")
                for a in c.node.args):
            out.append(c)
        elif c.q == "torch.device" and any(isinstance(n, ast.Constant) and n.value == "cuda"
                                           for n in ast.walk(c.node)):
            out.append(c)
    return out


def _index_keys(calls: list[CallSite], first: int) -> Iterator[tuple[tuple[int, str], int]]:
    """((table, key), position) of each call for the lookup tables: 0 by resolved name, 1 by leaf, 2 by method."""
    for i, c in enumerate(calls, first):
        yield (0, c.q), i
        yield (1, c.leaf), i
        if isinstance(c.node.func, ast.Attribute):
            yield (2, c.node.func.attr), i


def _part(pc, parsed: ParsedNotebook, order: dict[int, int]) -> tuple:
    """A parsed cell's sorted part of the index, kept on it while the aliases and its place in execution order
    stay the same."""
    key = (parsed.aliases_key, order.get(pc.cell.index, 0))
    hit = pc.memo.get("usage")
    if hit is None or hit[0] != key:
        hit = pc.memo["usage"] = (key, _sorted(_index(pc.node_pairs(), parsed, order), order))
    return hit[1]


def _index(nodes: list[tuple[Cell, ast.AST]], parsed: ParsedNotebook, order: dict[int, int]) -> tuple:
    """(calls, funcs, assigns, assigned calls, blocks, loops) of these nodes, in node order (unsorted)."""
    calls: list[CallSite] = []
    funcs: dict[str, ast.FunctionDef] = {}
    assigns: list[tuple[Cell, ast.Assign]] = []
    assigned_calls: list[tuple[str, str]] = []
    blocks: list[tuple[Cell, ast.stmt]] = []
    ranges: list[tuple[int, int, int, str]] = []  # (cell index, first line, last line, function name)
    found_loops = []
    for cell, node in nodes:
        t = type(node)
        if t is ast.Call:
            calls.append(CallSite((order.get(cell.index, 0), node.lineno, node.col_offset), cell, node,
                                  parsed.qualname(node.func), None))
        elif t is ast.Assign:
            assigns.append((cell, node))
            if type(node.value) is ast.Call:
                q = parsed.qualname(node.value.func)
                assigned_calls.extend((tg.id, q) for tg in node.targets if type(tg) is ast.Name)
        elif t in (ast.With, ast.AsyncWith, ast.Try):
            blocks.append((cell, node))
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            funcs[node.name] = node
            ranges.append((cell.index, node.lineno, node.end_lineno or node.lineno, node.name))
        elif t in (ast.For, ast.AsyncFor, ast.While):
            found_loops.append((cell, node))
    if ranges:
        for c in calls:
            c.in_func = _enclosing(ranges, c.cell.index, c.node.lineno)
    loops = []
    for cell, loop in found_loops:
        fn = _enclosing(ranges, cell.index, loop.lineno) if ranges else None
        parents = tuple(o for oc, o in found_loops if oc is cell and o is not loop and o.lineno <= loop.lineno and
                        (o.end_lineno or o.lineno) >= (loop.end_lineno or loop.lineno) and
                        (not ranges or _enclosing(ranges, cell.index, o.lineno) == fn))
        loops.append((cell, loop, parents))
    return calls, funcs, assigns, assigned_calls, blocks, loops


def _sorted(part: tuple, order: dict[int, int]) -> tuple:
    """`part` (as `_index` returns it) with its calls, loops, assignments and blocks sorted (stable) in place."""
    calls, _, assigns, _, blocks, loops = part
    calls.sort(key=lambda c: c.pos)
    for items in (loops, assigns, blocks):
        items.sort(key=lambda x: (order.get(x[0].index, 0), x[1].lineno, x[1].col_offset))
    return part


def _enclosing(ranges: list[tuple[int, int, int, str]], cell: int, line: int) -> str | None:
    """The innermost notebook function (by line range) around `line` of `cell`."""
    best = None
    for c, first, last, name in ranges:
        if c == cell and first < line <= last and (best is None or first > best[0]):
            best = (first, name)
    return best[1] if best else None


def usage_of(ctx) -> Usage:
    """The notebook's index, built once per analysis (continuing the live session's last one, when handed in)."""
    u = ctx.cache.get("usage")
    if u is None:
        u = ctx.cache["usage"] = Usage.build(ctx.parsed, ctx.cache.pop("usage_previous", None))
    return u


def assigned_names(u: Usage, pred) -> set[str]:
    """Names assigned from a call whose resolved name satisfies `pred` (e.g. optimizers)."""
    return {name for name, q in u.assigned_calls if pred(q)}
