"""Small AST helpers shared by the interpreter mixins."""

from __future__ import annotations

import ast

from ..names import DATE_WORD


def kw(e: ast.Call, name: str) -> ast.expr | None:
    """The value of keyword argument `name`, or None."""
    for k in e.keywords:
        if k.arg == name:
            return k.value
    return None


def const(node: ast.AST | None) -> object:
    """The literal value of a constant node, else None."""
    return node.value if isinstance(node, ast.Constant) else None


def text(node: ast.AST | None) -> str:
    """Source text of a node on one line (used as a selection key: `X[:n]` and `X[n:]` name the same cut)."""
    if node is None:
        return ""
    try:
        return " ".join(ast.unparse(node).split())
    except Exception:  # pragma: no cover - unparse of odd nodes
        return "?"


def names_time(node: ast.AST) -> bool:
    """The expression selects a date or time column (`df['date']`, `df.year`, `pd.to_datetime(...)`)."""
    for n in ast.walk(node):
        word = n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else \
            n.attr if isinstance(n, ast.Attribute) else None
        if word and DATE_WORD.search(word):
            return True
    return False


def unenumerated(it_node: ast.expr, target: ast.expr) -> tuple[ast.expr, ast.expr]:
    """`for i, item in enumerate(xs)`: the iterable and the target that receive the items."""
    if isinstance(it_node, ast.Call) and isinstance(it_node.func, ast.Name) and it_node.func.id == "enumerate" \
            and it_node.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
        return it_node.args[0], target.elts[1]
    return it_node, target


MAX_GRID = 1000  # more points than any grid of settings a notebook tries


def literal_points(leaf: str, e: ast.Call) -> int:
    """How many values `np.linspace(a, b, n)` / `np.arange(a, b[, step])` makes, when its arguments are literals."""
    vals = [const(a) for a in e.args]
    if not vals or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return 0
    if leaf in ("linspace", "logspace", "geomspace"):
        return int(vals[2]) if len(vals) > 2 else 50
    start, stop, step = (0, vals[0], 1) if len(vals) == 1 else (vals[0], vals[1], vals[2] if len(vals) > 2 else 1)
    return int((stop - start) / step) if step else 0


PATH_KEYWORDS = frozenset({"filepath_or_buffer", "path", "fname", "file", "io", "directory", "path_or_buf",
                           "filepath"})


def path_arg(node: ast.Call) -> ast.expr | None:
    """The argument naming the file a read or write call uses: its first, else a path keyword."""
    return node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in PATH_KEYWORDS), None)


def call_leaf(node: ast.AST | None) -> str:
    """The last name of what a call calls (`np.subtract(...)` -> "subtract"), "" when it is not a name."""
    f = node.func if isinstance(node, ast.Call) else None
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def learned_bins(e: ast.Call) -> bool:
    """`pd.cut(x, 5)`: a bin count, whose edges come from the data's minimum and maximum (not given edges)."""
    bins = e.args[1] if len(e.args) > 1 else kw(e, "bins")
    return isinstance(const(bins), int) and not isinstance(const(bins), bool)


def regrouped(shape: list) -> bool:
    """A reshape to literal counts that regroups rows (`prices.reshape(100, 5)`: five values a row), after which
    positions no longer name the rows they named (`reshape(-1, 1)`, `reshape(len(X), -1)` keep them)."""
    if len(shape) == 1 and isinstance(shape[0], (ast.Tuple, ast.List)):
        shape = shape[0].elts
    dims = [const(d) for d in shape[:2]]
    return len(dims) == 2 and all(isinstance(d, int) and not isinstance(d, bool) and d > 1 for d in dims)


_NULL_TESTS = {"isna": True, "isnull": True, "notna": False, "notnull": False}


def null_mask(node: ast.AST) -> tuple[tuple, str] | None:
    """A row mask that tests one column for missing values (`df['c'].isna()`, `df.c.notnull()`, `~df['c'].isna()`,
    `pd.isnull(df['c'])`): the selection key shared by every such test of that column, and the side it keeps
    ('sub': the missing rows, 'not': the rest; `dropna(subset=['c'])` keeps the rest too)."""
    flip = False
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
        node, flip = node.operand, not flip
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or \
            node.func.attr not in _NULL_TESTS:
        return None
    col = node.func.value if not node.args else node.args[0] if len(node.args) == 1 else None  # pd.isnull(df.c)
    if isinstance(col, ast.Subscript) and isinstance(col.slice, ast.Constant) and isinstance(col.slice.value, str):
        name = col.slice.value
    elif isinstance(col, ast.Attribute) and (node.args or col is node.func.value):
        name = col.attr
    else:
        return None
    missing = _NULL_TESTS[node.func.attr] is not flip
    return ("null", name), "sub" if missing else "not"


_BELOW, _ABOVE = (ast.Lt, ast.LtE), (ast.Gt, ast.GtE)
_MIRROR = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq, ast.NotEq: ast.NotEq}


def cutoff_mask(node: ast.AST) -> tuple[tuple, str] | None:
    """A row mask that compares one value with a bound (`df.index < '2015-01-01'`, `df['year'] >= 2015`,
    `df.kind == 'test'`): the selection key shared by the two sides of that bound, and the side it keeps ('sub':
    below or equal, 'not': above or different). `df[df.date < d]` and `df[df.date >= d]` split one table."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    left, op, right = node.left, node.ops[0], node.comparators[0]
    if isinstance(left, ast.Constant) and not isinstance(right, ast.Constant):
        if type(op) not in _MIRROR:
            return None  # `'a' in s`
        left, right, op = right, left, _MIRROR[type(op)]()
    if isinstance(op, _BELOW + _ABOVE):
        return ("mask", f"{_column_text(left)} <> {text(right)}"), "sub" if isinstance(op, _BELOW) else "not"
    if isinstance(op, (ast.Eq, ast.NotEq)):
        return ("mask", f"{_column_text(left)} =/= {text(right)}"), "sub" if isinstance(op, ast.Eq) else "not"
    return None


def _column_text(node: ast.expr) -> str:
    """A compared column's text, written the same way however it is accessed (`df.part` as `df['part']`)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr not in ("index", "values"):
        return f"{node.value.id}[{node.attr!r}]"
    return text(node)


def mask_steps(node: ast.AST) -> list[tuple[tuple, str]] | None:
    """The selections a row mask makes, one per test it joins with `&` (`(df.t > 60) & (df.t <= 90)` is the part
    above 60 of one split, then the part up to 90 of another), when every test is a null or bound test."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd) or \
            isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        sides = [node.left, node.right] if isinstance(node, ast.BinOp) else node.values
        steps = [mask_steps(n) for n in sides]
        return None if any(s is None for s in steps) else [st for s in steps for st in s]  # type: ignore[union-attr]
    one = null_mask(node) or cutoff_mask(node)
    return [one] if one is not None else None


def one_subset(e: ast.Call) -> str | None:
    """The one column `dropna(subset=['c'])` (or `subset='c'`) tests."""
    sub = kw(e, "subset")
    if isinstance(sub, (ast.List, ast.Tuple)) and len(sub.elts) == 1:
        sub = sub.elts[0]
    return sub.value if isinstance(sub, ast.Constant) and isinstance(sub.value, str) else None


def dropped_rows(e: ast.Call) -> tuple | None:
    """The rows a `dropna` keeps, as (selection key, side): `dropna(subset=['c'])` the side `df[df.c.isna()]` leaves;
    a whole table's `df.dropna()` the rows complete in every column (`("null", "*")`: none of the rows a null test of
    one of its columns picks). Of a column or of some columns (`df[cols].dropna()`) the rows are kept as they are,
    for the statistics computed on them."""
    if const(kw(e, "axis")) not in (None, 0, "index") or e.args:
        return None
    if one_subset(e) is not None:
        return ("null", one_subset(e)), "not"
    whole = isinstance(e.func, ast.Attribute) and isinstance(e.func.value, ast.Name)
    return (("null", "*"), "not") if whole and kw(e, "subset") is None and kw(e, "how") is None else None


def _counts_call(node: ast.AST) -> ast.Call | None:
    return node if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
        node.func.attr == "value_counts" else None


def most_frequent(node: ast.AST) -> ast.Call | None:
    """The `value_counts()` call whose most frequent value the expression takes (a mode, as an imputer learns
    it): `s.value_counts().index[0]`, `s.value_counts().keys()[0]`, `s.value_counts().idxmax()`."""
    kind = type(node)
    if kind is ast.Call:
        f = node.func
        return _counts_call(f.value) if type(f) is ast.Attribute and f.attr == "idxmax" else None
    if kind is not ast.Subscript or type(node.slice) is not ast.Constant or node.slice.value != 0:
        return None
    inner = node.value
    if isinstance(inner, ast.Attribute) and inner.attr == "values":
        inner = inner.value
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "keys":
        inner = inner.func
    return _counts_call(inner.value) if isinstance(inner, ast.Attribute) and inner.attr in ("index", "keys") \
        else None


def subscript_name(e: ast.Subscript) -> str | None:
    """The name a subscript reads from (`t` in `t[i:j]` or `t.iloc[i:j]`)."""
    node = e.value.value if isinstance(e.value, ast.Attribute) and e.value.attr in ("iloc", "loc") else e.value
    return node.id if isinstance(node, ast.Name) else None


def counted_by(n: ast.AST | None) -> ast.expr | None:
    """What `len(X)` or `X.shape[0]` counts the rows of: X."""
    if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1:
        return n.args[0]
    if isinstance(n, ast.Subscript) and const(n.slice) == 0 and isinstance(n.value, ast.Attribute) and \
            n.value.attr == "shape":
        return n.value.value
    return None


def counted_rows(it_node: ast.AST) -> str | None:
    """The name whose rows `range(len(X))` / `range(X.shape[0])` counts one by one, else None."""
    if not (isinstance(it_node, ast.Call) and isinstance(it_node.func, ast.Name) and it_node.func.id == "range"
            and len(it_node.args) == 1 and not it_node.keywords):
        return None
    n = counted_by(it_node.args[0])
    return n.id if isinstance(n, ast.Name) else None


def range_slice(node: ast.AST) -> ast.Slice | None:
    """A run of consecutive positions given as an index (`range(a, b)`, `list(range(b))`, `np.arange(a, b)`): the
    slice `a:b` it picks. With a step other than 1 it picks no run."""
    if isinstance(node, ast.Call) and call_leaf(node) in ("list", "array") and len(node.args) == 1 and \
            not node.keywords:
        node = node.args[0]
    if not (isinstance(node, ast.Call) and call_leaf(node) in ("range", "arange") and 1 <= len(node.args) <= 3) or \
            node.keywords or len(node.args) == 3 and const(node.args[2]) != 1:
        return None
    lower, upper = (None, node.args[0]) if len(node.args) == 1 else (node.args[0], node.args[1])
    if const(lower) == 0:
        lower = None
    return ast.copy_location(ast.Slice(lower=lower, upper=upper), node)


def literal_like(node: ast.AST) -> bool:
    """A fixed value: a literal, a module constant (`np.inf`, `math.inf`), `float('inf')`, or one negated."""
    if isinstance(node, ast.UnaryOp):
        return literal_like(node.operand)
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Attribute):
        return isinstance(node.value, ast.Name) and node.attr.lower() in ("inf", "nan", "infty", "pinf", "ninf")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int") and \
        len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)


def index_slice(node: ast.AST | None, base: str) -> ast.Slice | None:
    """`df.index[a:b]` given as rows of `df` itself (`df.loc[df.index[-12:]]`, `df.drop(df.index[:100])`): the
    positional slice it names."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and node.slice.step is None and \
            isinstance(node.value, ast.Attribute) and node.value.attr == "index" and text(node.value.value) == base:
        return node.slice
    return None


def literal_words(it_node: ast.AST, target: ast.expr, passes: int) -> list[str] | None:
    """The strings of a loop over a literal list of words (`for phase in ['train', 'val']`), one per pass."""
    if not isinstance(target, ast.Name) or not isinstance(it_node, (ast.List, ast.Tuple)) or \
            len(it_node.elts) != passes:
        return None
    words = [e.value for e in it_node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return words if len(words) == passes else None


def class_like(name: str) -> bool:
    """A CamelCase name with two capitals or more (`URLs`, `ImageDataLoaders`), not a data name (`X`, `X_train`,
    `XY`, `Xtrain`)."""
    return name[:1].isupper() and "_" not in name and any(c.islower() for c in name) and \
        sum(c.isupper() for c in name) >= 2
