"""Time order: evidence that rows are ordered in time (lags, rolling windows, datetime parsing, sorting or
indexing by a date column, sliding windows), and the splits that shuffle them."""

from __future__ import annotations

import ast

from ...findings import Record
from ..names import DATE_WORD, TIME_OPS
from .astutil import const, kw
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
