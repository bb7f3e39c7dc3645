"""Missing values filled from other rows: the most frequent value (`s.value_counts().index[0]`, a mode as an
imputer learns it), values drawn at random from a column's rows (`np.random.choice(values, size=n)`, or
`.sample(n)` written into other rows' cells: a random-sample fill), and a model's predictions written into a
table's cells (a model-based imputer). Each carries a statistic of the rows it was learned from."""

from __future__ import annotations

import ast

from .astutil import most_frequent
from .columns import loc_cols
from .rows import key_kind
from .values import Fit, Val


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

    def values_drawn(self, values: Val | None, e: ast.Call) -> Val | None:
        """`np.random.choice(values, size=n)` of a column's values: new values, a statistic of those rows."""
        if values is None or values.kind != "data" or not values.rows:
            return None
        fit = self.add_fit("statistic", "choice", values, e)
        return Val("data", rows=self.source(e, "made").rows, stats=values.all_stats | {fit}, site=self.site(e))

    def drawn_values(self, base: Val, v: Val | None, node: ast.AST) -> Val | None:
        """`df.loc[df.c.isna(), 'c'] = df.c.dropna().sample(n).values`: values drawn at random from the frame's own
        rows and written into other rows' cells (a random-sample fill) carry a statistic of the frame's rows."""
        if v is None or not v.is_data or not v.rows or not base.rows or \
                not all(len(tok) > 1 and key_kind(tok[-1][0]) == "sample" for tok in v.rows) or \
                not all(any(tok[:len(b)] == b for b in base.rows) for tok in v.rows):
            return v
        draw = next((n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == "sample"), v.site.node if v.site is not None and v.site.node else node)
        fit = self.add_fit("statistic", "sample", Val("data", rows=base.rows, stats=base.stats, site=v.site), draw)
        return v._replace(stats=v.stats | {fit})

    def imputed(self, v: Val | None, t: ast.Subscript) -> Val | None:
        """A model's predictions written into a table's cells (`df.loc[miss, 'age'] = rf.predict(df.loc[miss, cols])`,
        `df['age_hat'] = rf.predict(df[cols])`): the model fills values, an imputer. The cells carry what it learned
        from the rows it was fitted on, as a statistic; unless a metric reads them later, they evaluate nothing.
        Out-of-fold predictions stored as a column (stacking) are left as they are."""
        col = loc_cols(t.slice) if isinstance(t.value, ast.Attribute) and t.value.attr in ("loc", "at") else t.slice
        named = isinstance(col, ast.Constant) and isinstance(col.value, str)  # (out-of-fold cells `S[idx, i]`: no)
        fits = [ev.fit for ev in (v.evals if v is not None and v.kind == "pred" and named else ()) if
                ev.fit is not None and ev.fit.kind == "model" and ev.fit.rows and
                not any(kind == "folds" for _lid, kind in ev.loops)]  # (out-of-fold predictions: stacking)
        if not fits:
            return v
        self.rec.imputed.update(id(ev) for ev in v.evals)
        learned = frozenset(self.imputers.setdefault(id(f), Fit("statistic", f.cls, f.rows, f.stats, f.site, obj=f.obj,
                                                                  data_name=f.data_name)) for f in fits)
        return v._replace(stats=v.stats | learned)
