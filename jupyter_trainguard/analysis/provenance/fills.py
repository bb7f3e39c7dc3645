"""Missing values filled from other rows: the most frequent value (`s.value_counts().index[0]`, a mode as an
imputer learns it) and values drawn at random from a column's rows and written into other rows' cells (a
random-sample fill). Both carry a statistic of the rows they come from."""

from __future__ import annotations

import ast

from .astutil import most_frequent
from .rows import key_kind
from .values import Val


class Fills:
    """Mixin: fill values learned from other rows."""

    def most_frequent_value(self, e: ast.expr) -> Val | None:
        """`s.value_counts().index[0]` / `.idxmax()`: the mode of the counted rows, a statistic of them."""
        counts = most_frequent(e)
        recv = self.expr(counts.func.value) if counts is not None else None
        if recv is None or recv.kind not in ("data", "index") or not recv.rows:
            return None
        fit = self.add_fit("statistic", "mode", recv, e)
        return Val("data", stats=recv.all_stats | {fit}, site=self.site(e))

    def drawn_values(self, base: Val, v: Val | None, node: ast.AST) -> Val | None:
        """`df.loc[df.c.isna(), 'c'] = df.c.dropna().sample(n).values`: values drawn at random from the frame's own
        rows and written into other rows' cells (a random-sample fill) carry a statistic of the frame's rows."""
        if v is None or not v.is_data or not v.rows or not base.rows or \
                not all(len(tok) > 1 and key_kind(tok[-1][0]) == "sample" for tok in v.rows) or \
                not all(any(tok[:len(b)] == b for b in base.rows) for tok in v.rows):
            return v
        draw = next((n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == "sample"), v.site._node if v.site is not None and v.site._node else node)
        fit = self.add_fit("statistic", "sample", Val("data", rows=base.rows, stats=base.stats, site=v.site), draw)
        return v._replace(stats=v.stats | {fit})

    def one_row(self, v: Val) -> bool:
        """The value holds one row of a loop over rows by position (`X[i]`, i in range(len(X))): what is computed
        over it (`X[i].mean(axis=0)`) is that row's own feature."""
        return bool(v.rows) and all(_row_step(tok, self.row_counters) for tok in v.rows)

    def every_row(self, v: Val) -> Val:
        """A value made from one row each pass of `for i in range(len(X))` (`X[i]`) and gathered pass by pass
        (`feats.append(f(X[i]))`): the gathered list holds every row of X."""
        rows = frozenset(tok[:k] if (k := _row_step(tok, self.row_counters)) else tok for tok in v.rows)
        return v if rows == v.rows else v._replace(rows=rows)


def _row_step(tok: tuple, counters: dict) -> int:
    return next((k for k, step in enumerate(tok) if k and step[1] == "one" and isinstance(step[0], tuple) and
                 step[0][0] == "row" and step[0][1] in counters), 0)
