"""Columns chosen by hand after a ranking was read.

A notebook shows a selector's ranking (`RFE(lr).fit(X, y).ranking_`, `SelectKBest(...).scores_`) or a model's
importances, then types the top columns in (`df[['a', 'b', 'c']]`, `df.drop(columns=['d', 'e'])`). The list is
the ranking's choice: the columns carry what it learned from its rows, so when those rows are later held out and
scored, the test rows' features were chosen with their own labels (LEAK001, naming the typed list). A list filled
under a test of the ranking (`if sel.support_[i]: keep.append(col)`) is its choice as well.
"""

from __future__ import annotations

import ast

from .astutil import const, kw
from .columns import strings
from .rows import overlap
from .values import Fit, Val


class Rankings:
    """Rankings read so far (`State.ranked`) and the typed column lists that follow them."""

    def rank_read(self, fit: Fit) -> None:
        """A ranking or importances read, unless a loop over rows or settings reads one per pass (a rolling
        regression's slope as a feature is a value, not a choice of columns); a loop over the columns reads it
        column by column."""
        if all(kind == "models" or lid in self.column_loops for lid, kind, _n in self.loops):
            self.ranked.append(fit)

    def over_columns(self, it_node: ast.expr, it: Val | None) -> bool:
        """A loop over column names or positions, not rows: `X.columns`, `zip(X.columns, sel.support_)`,
        `range(len(X.columns))`, `range(X.shape[1])`."""
        if it is not None and it.is_data and not it.rows:
            return True
        if not (isinstance(it_node, ast.Call) and isinstance(it_node.func, ast.Name) and it_node.func.id == "range"
                and len(it_node.args) == 1):
            return False
        n = it_node.args[0]
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Attribute) and n.value.attr == "shape" and \
                const(n.slice) == 1:
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1 \
                and not any(isinstance(c, ast.Call) for c in ast.walk(n.args[0])):  # (read again: nothing called)
            v = self.expr(n.args[0])
            return v is not None and v.is_data and not v.rows
        return False

    def ranking_call(self, effect: str, e: ast.Call, args: list, kws: dict) -> Val | None:
        """`permutation_importance(model, X, y)`: each column's importance, learned from the rows it shuffles and
        their labels, read as a ranking; `eli5.show_weights(perm)` shows a fitted ranking (eli5's
        `PermutationImportance(model).fit(X, y)`)."""
        if effect == "shows_ranking":
            for a in args:
                if a is not None and a.kind == "obj" and a.obj.fit is not None:
                    self.rank_read(a.obj.fit)
            return None
        x = args[1] if len(args) > 1 else kws.get("X")
        if x is None or not x.is_data:
            return None
        fit = self.add_fit("statistic", "permutation_importance", x, e, y=args[2] if len(args) > 2 else kws.get("y"))
        self.rank_read(fit)
        return Val("data", stats=x.all_stats | {fit}, site=self.site(e))

    def ranking_tested(self, test: Val | None) -> frozenset:
        """The rankings an `if` test reads (`if not selector.support_[i]:`): what its body appends, it chooses."""
        if test is None or not test.is_data:
            return frozenset()
        return frozenset(f for f in test.all_stats if any(f is g for g in self.ranked))

    def guarded_items(self, new: list) -> list:
        """Items appended under a test of a ranking: names or positions of columns it chose, carrying it."""
        if not self.ranked_guard:
            return new
        return [Val("data", stats=self.ranked_guard) if v is None else
                v._replace(stats=v.stats | self.ranked_guard) if v.is_data and not v.rows else v for v in new]

    def typed_drop(self, recv: Val, out: Val, e: ast.Call) -> None:
        """`df.drop(['a', 'b'], axis=1)` (in place or not) typed after a ranking was read: the columns kept are
        its choice, as a typed list of the columns kept is."""
        listed = kw(e, "columns") or (e.args[0] if e.args and const(kw(e, "axis")) in (1, "columns") else None)
        chosen: frozenset = frozenset()
        if isinstance(listed, ast.List) and not self.label_names & set(strings(listed)):  # (dropping the label
            # makes the feature table)
            chosen = self.typed_after_ranking(recv, listed, set(strings(listed)))
        elif isinstance(listed, ast.Name) and (v := self.env.get(listed.id)) is not None and v.kind == "seq":
            chosen = frozenset().union(*(i.stats for i in v.items or () if i is not None and i.is_data and
                                         not i.rows))  # names gathered under a test of a ranking
        out.stats = out.stats | chosen
        if const(kw(e, "inplace")) is True:
            recv.stats = recv.stats | chosen

    def typed_after_ranking(self, base: Val, sl: ast.List | ast.Name, dropped: set | None = None) -> frozenset:
        """`df[['a', 'b', 'c']]` written out after a selector's ranking or a model's importances over some of the
        same rows were read (`RFE(lr).fit(X, y).ranking_` shown, then its top columns typed in): the columns are
        the ranking's choice and carry what it learned from its rows. So is `df[cols]` of a list typed into a name
        after the ranking was read (`cols = ['a', 'b', 'c']`); one typed before it chose nothing by it."""
        rankings = self.ranked
        if isinstance(sl, ast.Name):
            sl, seen = self.typed_lists.get(sl.id, (None, 0))
            rankings = self.ranked[:seen]
        names = strings(sl) if sl is not None else []
        if len(names) < 2 or len(names) != len(sl.elts) or not base.rows:
            return frozenset()
        found = frozenset(f for f in rankings if f.rows and overlap(f.rows, base.rows) is not None and
                          not (dropped and dropped & (self.fit_removed.get(id(f)) or set())))  # (columns the
        # ranking never saw, such as its label, dropped again: the feature table made, not a ranking's choice)
        for f in found:
            self.rec.typed.setdefault(id(f), []).append(self.site(sl))
        return found
