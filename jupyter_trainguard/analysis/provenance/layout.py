"""Arrays laid out with one sample per column (`X = data[:891].T`, shape (features, samples), as course notebooks
that write networks by hand keep them): there a column slice (`X[:, :840]`, `X[:, perm]`) selects samples, the
rows of the data, and `.T` turns the array back. Also the key of rows an index of unknown meaning picks."""

from __future__ import annotations

import ast

from .astutil import text
from .rows import mask_key
from .values import Val


class Layout:
    """Mixin: samples as columns."""

    def transposed_view(self, base: Val, out: Val) -> Val:
        """`x.T`: samples become columns, or (of such an array) rows again."""
        if id(base) not in self.transposed and out.is_data and out.rows:
            self.transposed[id(out)] = out
        return out

    def sample_part(self, base: Val, e: ast.Subscript, accessor: str | None,
                    rows_part: ast.AST | None) -> ast.AST | None:
        """The part of a subscript that picks samples: `X[:, a:b]` of samples laid out as columns picks by its
        column part; else the row part it was given."""
        sl = e.slice
        if id(base) in self.transposed and accessor is None and isinstance(sl, ast.Tuple) and len(sl.elts) == 2:
            return sl.elts[1]
        return rows_part

    def fresh_copy(self, base: Val, out: Val) -> Val:
        """A copy of a subscript's value; a part of samples laid out as columns keeps that layout."""
        copy = out._replace()
        if id(base) in self.transposed:
            self.transposed[id(copy)] = copy
        return copy

    def picked_key(self, sl: ast.AST, idx: Val | None) -> tuple:
        """The selection key of rows picked by an index of unknown meaning (see `rows.mask_key`)."""
        names = [self.env.get(n.id) for n in ast.walk(sl) if isinstance(n, ast.Name)]
        return mask_key(text(sl), [idx, *names])
