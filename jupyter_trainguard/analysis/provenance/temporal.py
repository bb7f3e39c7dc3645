"""Time order: evidence that rows are ordered in time (lags, rolling windows, datetime parsing, sorting or
indexing by a date column, sliding windows), the splits that shuffle them, and the fold indices a splitter
hands out."""

from __future__ import annotations

import ast

from ...findings import Record
from ..names import DATE_WORD, TIME_OPS
from .api import lookup_class
from .astutil import call_leaf, const, kw
from .rows import Selection
from .values import Site, Val

RANDOM_SPLITTERS = ("ShuffleSplit", "StratifiedShuffleSplit", "GroupShuffleSplit")


class SplitUse(Record):
    """A split of some rows: where, what it split, and whether it shuffles them."""

    site: Site
    inputs: list
    shuffle: bool
    how: str

    def __init__(self, site: Site, inputs: list, shuffle: bool, how: str) -> None:
        self.site = site
        self.inputs = inputs
        self.shuffle = shuffle
        self.how = how


def _strings(node: ast.AST | None) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [x.value for x in node.elts if isinstance(x, ast.Constant) and isinstance(x.value, str)]
    return []


class TimeOrder:
    """Mixin: collects time-order evidence on values and records splits."""

    def evidence(self, what: str, node: ast.AST) -> frozenset:
        return frozenset({(what, getattr(self.cell, "index", 0), getattr(node, "lineno", None))})

    def time_evidence(self, recv: Val, attr: str, e: ast.Call) -> frozenset:
        """`.shift()`, `.rolling()`, ... and `sort_values('date')` / `set_index('date')` order rows in time (a column
        the notebook parsed as dates counts whatever its name)."""
        if attr in TIME_OPS:
            return self.evidence("op:" + attr, e)
        if attr in ("set_index", "sort_values"):
            names = _strings(e.args[0]) if e.args else _strings(kw(e, "by") or kw(e, "keys"))
            if any(DATE_WORD.search(n) or n in self.date_columns for n in names):
                return self.evidence(f"{attr}:{names[0]}", e)
        return frozenset()

    def datetime_evidence(self, rhs: ast.AST | None, column: str | None = None) -> frozenset:
        """`df['day'] = pd.to_datetime(...)`: `day` holds dates from here on."""
        if isinstance(rhs, ast.Call) and "to_datetime" in self.parsed.qualname(rhs.func):
            if column is not None:
                self.date_columns.add(column)
            return self.evidence("datetime", rhs)
        return frozenset()

    def read_evidence(self, e: ast.Call) -> frozenset:
        """`read_csv(..., parse_dates=['day'])` (or `index_col='day', parse_dates=True`): those columns are dates."""
        parsed = kw(e, "parse_dates")
        if parsed is None:
            return frozenset()
        self.date_columns.update(_strings(parsed))
        if const(parsed) is True:
            self.date_columns.update(_strings(kw(e, "index_col")))
        return self.evidence("parse_dates", e)

    def note_split(self, e: ast.AST, inputs: list, shuffle: bool, how: str) -> None:
        data = [v for v in inputs if v is not None and v.is_data]
        if data:
            self.rec.splits.append(SplitUse(self.site(e), data, shuffle, how))

    @staticmethod
    def splitter_shuffles(cls: str, e: ast.Call) -> bool:
        sh = const(kw(e, "shuffle"))
        return bool(sh) if sh is not None else cls.rsplit(".", 1)[-1] in RANDOM_SPLITTERS

    def fold_indices(self, it_node: ast.AST, target: ast.expr, body: list | None = None) -> str | None:
        """`for tr, te in kf.split(X)` (or a comprehension over it): binds fold indices that select disjoint rows
        of whatever they index. A loop whose body only takes the parts (`train = df.loc[tr]`) for use after it
        makes one split, not folds (`StratifiedShuffleSplit(n_splits=1)`); returns which ("split" or "folds")."""
        if isinstance(it_node, ast.Call) and isinstance(it_node.func, ast.Attribute) and it_node.func.attr == "split":
            recv, args = self.expr(it_node.func.value), it_node.args
        elif isinstance(it_node, ast.Name) or isinstance(it_node, ast.Call) and getattr(
                lookup_class(self.parsed.qualname(it_node.func)), "role", None) == "splitter":
            recv, args = self.expr(it_node), []  # scikit-learn < 0.18: `for tr, te in KFold(n, n_folds=5)`
        else:
            return None
        if recv is None or recv.kind != "obj" or recv.obj.role != "splitter":
            return None
        inputs = [self.expr(a) for a in args]
        self.note_split(it_node, inputs[:1], recv.obj.shuffle, recv.obj.cls.rsplit(".", 1)[-1])
        key = self.new_key("folds")
        tr = Val("index", step=(key, "train"), site=self.site(it_node))
        te = Val("index", step=(key, "test"), site=self.site(it_node))
        if recv.obj.cls.startswith("surprise.") and inputs and inputs[0] is not None and inputs[0].is_data:
            tr, te = (self.select(inputs[0], key, p, "folds", it_node) for p in ("train", "test"))  # the sets
        if isinstance(target, ast.Tuple) and len(target.elts) == 2:
            self.assign(target.elts[0], tr, it_node)
            self.assign(target.elts[1], te, it_node)
        one = body is not None and _takes_parts_only(body) and (not _collects(body) or _one_split(recv.obj))
        kind = "split" if one else "folds"
        self.rec.selections[key] = Selection(key, kind, self.site(it_node), loops=self.varying(key, it_node))
        return kind

    def positions(self, node: ast.AST, v: Val | None) -> tuple | None:
        """The selections already applied to row positions passed to a split (none for `range(n)`,
        `np.arange(n)`, `list(range(n))`), or None when these are not row positions."""
        if v is not None and v.kind == "index" and v.step is not None:
            return tuple(v.items or (v.step,))
        return () if self.position_range(node) is not None else None


_TAKING = frozenset({"print", "len", "copy", "reset_index", "drop", "to_numpy", "astype", "display", "append"})


def _collects(body: list) -> bool:
    """The loop body appends each pass's parts to lists (`Xs.append(X[tr])`): every fold is kept, not the last."""
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "extend")
               for st in body for n in ast.walk(st))


def _one_split(obj) -> bool:
    """A splitter built with `n_splits=1`: its loop runs once."""
    node = obj.site.node if obj.site is not None else None
    return isinstance(node, ast.Call) and any(k.arg == "n_splits" and isinstance(k.value, ast.Constant) and
                                              k.value.value == 1 for k in node.keywords)


def _takes_parts_only(body: list) -> bool:
    """The loop body only binds rows (subscripts, copies): nothing is fitted or scored per pass."""
    for st in body:
        if not isinstance(st, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Pass)):
            return False
        for n in ast.walk(st):
            if isinstance(n, ast.Call) and call_leaf(n) not in _TAKING:
                return False
    return True
