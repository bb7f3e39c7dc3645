"""Hand-made random splits: row positions shuffled (`idx = np.random.permutation(len(df))`, `torch.randperm(n)`,
or `idx = list(range(n))` then `np.random.shuffle(idx)`) and cut in two (`test_idx = idx[:k]`,
`train_idx = idx[k:]`) select disjoint random parts of the rows they index, as a split does. The shuffled
positions are an index without selections; each positional cut of them is one side of a random cut keyed by those
positions and the bound, which `df.iloc[train_idx]` or `Subset(ds, train_idx)` applies to the rows. Positions
cut around a loop's counter (`idx[k * n:(k + 1) * n]` and `idx[:k * n]`, `idx[(k + 1) * n:]`) or split into parts
taken by it (`folds = np.array_split(idx, 5)`, then `folds[k]`) are a hand-written k-fold."""

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
        if self.position_range(among) is None and not self.all_positions(among) or drawn is None or \
                drawn.kind != "index" or drawn.step is None:
            return None
        key, part = drawn.step
        other = {"sub": "rest", "lo": "hi", "hi": "lo", "test": "train", "train": "test"}.get(part)
        items = tuple(drawn.items or ((key, part),))
        return Val("index", step=(key, other), items=items[:-1] + ((key, other),), site=self.site(among)) \
            if other is not None else None

    def all_positions(self, node: ast.AST | None, v: Val | None = None) -> bool:
        """Every row position, shuffled (`idx = np.random.permutation(n)`) or not (`np.arange(n)` bound to a name);
        `v`: the node's value when already evaluated."""
        if node is None or self.position_range(node) is not None or \
                isinstance(node, ast.Name) and self.positions_made(node) is not None:
            return node is not None
        v = v if v is not None else self.expr(node) if isinstance(node, ast.Name) else None
        return v is not None and v.kind == "index" and v.step is None and _is_permutation(v)

    def position_parts(self, e: ast.Call, n: int, src: Val | None) -> Val | None:
        """`np.array_split(idx, k)` of every row position: k disjoint parts of the rows, each one part of one split
        when taken by a literal index (`folds[0]`)."""
        if not e.args or not self.all_positions(e.args[0], src):
            return None
        key = self.new_key("parts")
        self.rec.selections[key] = Selection(key, "split", self.site(e))
        names = ["train"] + [f"part{i}" for i in range(1, n - 1)] + ["test"]
        return Val("seq", items=tuple(Val("index", step=(key, p), items=((key, p),), site=self.site(e))
                                      for p in names), site=self.site(e))

    def fold_of_parts(self, parts: Val, e: ast.Subscript) -> Val | None:
        """`folds[k]` of position parts with `k` a loop's counter: this pass's held-out fold; a slice around it
        (`folds[:k]`, `folds[k + 1:]`) holds the fold's training rows."""
        key = parts_key(parts)
        if key is None:
            return None
        counters = set().union(*self.loop_vars) if self.loop_vars else set()
        if not any(isinstance(n, ast.Name) and n.id in counters for n in ast.walk(e.slice)):
            return None
        if isinstance(e.slice, ast.Slice):
            return Val("seq", items=(self.fold_index(key, "train", e),), site=self.site(e))
        return self.fold_index(key, "test", e)

    def over_position_parts(self, it_node: ast.AST, target: ast.expr) -> str | None:
        """`for va in folds` over position parts: each pass holds one fold out ("folds"), else None."""
        if not isinstance(target, ast.Name) or not isinstance(it_node, ast.Name) or \
                (key := parts_key(self.env.get(it_node.id))) is None:
            return None
        self.assign(target, self.fold_index(key, "test", it_node), it_node)
        return "folds"

    def fold_index(self, key: tuple, part: str, e: ast.AST) -> Val:
        """The positions of one side of the k-fold a loop makes of position parts."""
        fkey = ("fold", key)
        if fkey not in self.rec.selections:
            self.rec.selections[fkey] = Selection(fkey, "folds", self.site(e), loops=self.varying(fkey, e))
        return Val("index", step=(fkey, part), items=((fkey, part),), site=self.site(e))

    def rows_of_parts(self, base: Val, idx: Val, e: ast.AST) -> Val | None:
        """`X[np.concatenate([tr, va])]` with the positions of several parts: the rows of each, together."""
        if not idx.items or not all(i is not None and i.kind == "index" and i.step is not None for i in idx.items):
            return None
        parts = []
        for i in idx.items:
            part = base
            for key, side in i.items or (i.step,):
                part = self.select(part, key, side, "folds", e)
            parts.append(part)
        return self.derive(e, parts)

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
        if (cut := self.fold_cut(sl, e)) is not None:  # `idx[k * n:(k + 1) * n]` in a hand-written k-fold
            key, part = ("perm", id(made)) + cut[0], cut[1]
            self.select(base, key, part, "folds", e)
            return Val("index", step=(key, part), items=((key, part),), site=self.site(e))
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


def parts_key(v: Val | None) -> tuple | None:
    """The key of the split that `np.array_split` made of row positions, when `v` is its list of parts."""
    first = v.items[0] if v is not None and v.kind == "seq" and v.items else None
    key = first.step[0] if first is not None and first.kind == "index" and first.step is not None else None
    return key if isinstance(key, tuple) and key[:1] == ("parts",) else None


def _is_permutation(v: Val) -> bool:
    node = v.site.node if v.site is not None else None
    return isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and \
        (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id) in PERMUTING | {"shuffle"}

