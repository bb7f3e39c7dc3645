"""Columns chosen by hand after a ranking was read.

A notebook shows a selector's ranking (`RFE(lr).fit(X, y).ranking_`, `SelectKBest(...).scores_`) or a model's
importances, then types the top columns in (`df[['a', 'b', 'c']]`, `df.drop(columns=['d', 'e'])`). The list is
the ranking's choice: the columns carry what it learned from its rows, so when those rows are later held out and
scored, the test rows' features were chosen with their own labels (LEAK001, naming the typed list).
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
        regression's slope as a feature is a value, not a choice of columns)."""
        if all(kind == "models" for _id, kind, _n in self.loops):
            self.ranked.append(fit)

    def typed_drop(self, recv: Val, out: Val, e: ast.Call) -> None:
        """`df.drop(['a', 'b'], axis=1)` (in place or not) typed after a ranking was read: the columns kept are
        its choice, as a typed list of the columns kept is."""
        listed = kw(e, "columns") or (e.args[0] if e.args and const(kw(e, "axis")) in (1, "columns") else None)
        if isinstance(listed, ast.List) and not self.label_names & set(strings(listed)):  # (dropping the label
            # makes the feature table)
            chosen = self.typed_after_ranking(recv, listed, set(strings(listed)))
            out.stats = out.stats | chosen
            if const(kw(e, "inplace")) is True:
                recv.stats = recv.stats | chosen

    def typed_after_ranking(self, base: Val, sl: ast.List, dropped: set | None = None) -> frozenset:
        """`df[['a', 'b', 'c']]` written out after a selector's ranking or a model's importances over some of the
        same rows were read (`RFE(lr).fit(X, y).ranking_` shown, then its top columns typed in): the columns are
        the ranking's choice and carry what it learned from its rows."""
        names = strings(sl)
        if len(names) < 2 or len(names) != len(sl.elts) or not base.rows:
            return frozenset()
        found = frozenset(f for f in self.ranked if f.rows and overlap(f.rows, base.rows) is not None and
                          not (dropped and dropped & (self.fit_removed.get(id(f)) or set())))  # (columns the
        # ranking never saw, such as its label, dropped again: the feature table made, not a ranking's choice)
        for f in found:
            self.rec.typed.setdefault(id(f), []).append(self.site(sl))
        return found
