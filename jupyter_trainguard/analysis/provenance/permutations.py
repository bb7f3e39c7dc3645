"""Hand-made random splits: row positions shuffled (`idx = np.random.permutation(len(df))`, `torch.randperm(n)`,
or `idx = list(range(n))` then `np.random.shuffle(idx)`) and cut in two (`test_idx = idx[:k]`,
`train_idx = idx[k:]`) select disjoint random parts of the rows they index, as a split does. The shuffled
positions are an index without selections; each positional cut of them is one side of a random cut keyed by those
positions and the bound, which `df.iloc[train_idx]` or `Subset(ds, train_idx)` applies to the rows."""

from __future__ import annotations

import ast

from .astutil import const, counted_by, kw, text
from .rows import DUP, Selection
from .values import Val

PERMUTING = frozenset({"permutation", "randperm"})


class Permutations:
    """Mixin: shuffled row positions and the random cuts made of them."""

    def permuted(self, leaf: str, e: ast.Call, args: list) -> Val | None:
        """`np.random.permutation(n)` / `rng.permutation(n)` / `torch.randperm(n)` of a count (not of data, whose
        permutation is its own rows reordered): shuffled row positions."""
        if leaf not in PERMUTING or not e.args or any(a is not None and a.is_data and a.rows for a in args):
            return None
        return Val("index", site=self.site(e))

    def drawn(self, root: str, e: ast.Call, args: list) -> Val | None:
        """numpy's `choice` of many values (a size given). Drawn from a column's values: a random-sample fill
        (fills.py; one value picked, `random.choice(files)`, is a row). Drawn with replacement from row positions
        (`np.arange(len(X))`, `len(X)`): positions with repeats, so `X[idx]` holds copies of rows."""
        if root != "numpy" or not args or not (len(e.args) > 1 or any(k.arg == "size" for k in e.keywords)):
            return None
        if (fill := self.values_drawn(args[0], e)) is not None:
            return fill
        node = e.args[0] if e.args else None
        if not (isinstance(node, ast.Name) and (self.positions_made(node) is not None or
                                                counted_by(self.bound_nodes.get(node.id)) is not None) or
                self.position_range(node) is not None or counted_by(node) is not None):
            return None
        # drawn without repeats: a random subset of the rows (a sample); with repeats: copies of rows
        kind, part = ("sample", "sub") if const(kw(e, "replace")) is False else ("resample", DUP)
        key = self.new_key(kind)
        self.rec.selections[key] = Selection(key, kind, self.site(e))
        return Val("index", step=(key, part), items=((key, part),), site=self.site(e))

    def positions_left(self, among: ast.AST | None, drawn: Val | None) -> Val | None:
        """The row positions outside a drawn or cut index (`np.setdiff1d(np.arange(n), test_idx)`,
        `[i for i in range(n) if i not in test_idx]`): the other side of that selection."""
        if self.position_range(among) is None or drawn is None or drawn.kind != "index" or drawn.step is None:
            return None
        key, part = drawn.step
        other = {"sub": "rest", "lo": "hi", "hi": "lo"}.get(part)
        items = tuple(drawn.items or ((key, part),))
        return Val("index", step=(key, other), items=items[:-1] + ((key, other),), site=self.site(among)) \
            if other is not None else None

    def shuffled_in_place(self, leaf: str, e: ast.Call) -> None:
        """`np.random.shuffle(idx)` / `random.shuffle(idx)` where `idx` holds positions (`list(range(n))`,
        `np.arange(n)`): from here on `idx` is shuffled row positions."""
        if leaf != "shuffle" or len(e.args) != 1 or not isinstance(e.args[0], ast.Name):
            return
        if self.positions_made(e.args[0]) is not None:
            self.env[e.args[0].id] = Val("index", site=self.site(e), name=e.args[0].id)

    def positions_made(self, node: ast.AST) -> ast.Call | None:
        """The `range(n)` / `np.arange(n)` call a name was bound to (through `list(...)`/`np.array(...)`)."""
        return self.position_range(self.bound_nodes.get(node.id)) if isinstance(node, ast.Name) else None

    def position_range(self, node: ast.AST | None) -> ast.Call | None:
        """`range(n)`, `np.arange(n)`, `list(range(n))`, `np.array(range(n))`: that range call (row positions)."""
        while isinstance(node, ast.Call) and self.parsed.qualname(node.func) in ("list", "numpy.array") and node.args:
            node = node.args[0]
        if isinstance(node, ast.Call) and self.parsed.qualname(node.func) in ("range", "numpy.arange"):
            return node
        return None

    def permutation_cut(self, base: Val, sl: ast.Slice, e: ast.Subscript) -> Val | None:
        """`idx[:k]` / `idx[k:]` / `idx[a:b]` of row positions, shuffled or in order: the positions of one side
        of a cut (random when shuffled)."""
        if base.kind == "index" and base.step is None and _is_permutation(base):
            made, shuffled = base.site.node, True
        elif base.kind == "seq" and base.hyper:
            made, shuffled = self.positions_made(e.value), False
        else:
            return None
        if made is None or sl.lower is None and sl.upper is None:
            return None
        if sl.lower is None:
            bound, part = text(sl.upper), "lo"
        elif sl.upper is None:
            bound, part = text(sl.lower), "hi"
        else:
            bound, part = f"{text(sl.lower)}:{text(sl.upper)}", "mid"
        key = ("perm", id(made), bound)
        self.select(base, key, part, "slice", e)  # registers the cut (its place, the loops it varies in)
        self.rec.selections[key].shuffle = shuffled
        return Val("index", step=(key, part), items=((key, part),), site=self.site(e))


def _is_permutation(v: Val) -> bool:
    node = v.site.node if v.site is not None else None
    return isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and \
        (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) in PERMUTING | {"shuffle"}

